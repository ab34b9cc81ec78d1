"""compare_paired on known distributions: the switchback's paired interval covers the true
ratio as often as it says, calls an A/A pair different about as often as its level allows, and
is far narrower than Welch's when the rounds share their noise."""

import math
import random

import pytest

from helpers import make_doc
from tuninglab.results import document, stats


def rounds(rng, n, ratio, shared=0.10, own=0.01):
    """n rounds of (value, baseline): each round's level moves by `shared` (that minute's
    neighbours), each block by `own` more; the true ratio is `ratio`."""
    out = []
    for _ in range(n):
        level = 1000 * math.exp(rng.gauss(0, shared))
        out.append((level * ratio * math.exp(rng.gauss(0, own)),
                    level * math.exp(rng.gauss(0, own))))
    return [v for v, _ in out], [b for _, b in out]


def test_the_interval_covers_the_true_ratio_95_times_in_100():
    rng = random.Random(17)
    trials, covered = 2000, 0
    for _ in range(trials):
        c = stats.compare_paired(*rounds(rng, 12, 1.05))
        covered += c.ci_low <= 1.05 <= c.ci_high
    assert 0.93 <= covered / trials <= 0.97


def test_an_a_a_pair_is_called_faster_or_slower_about_5_times_in_100():
    rng = random.Random(23)
    trials = 2000
    false = sum(stats.compare_paired(*rounds(rng, 12, 1.0)).verdict_kind
                in (stats.FASTER, stats.SLOWER) for _ in range(trials))
    assert 0.03 <= false / trials <= 0.07


def test_pairing_removes_the_noise_the_rounds_share():
    rng = random.Random(5)
    values, base = rounds(rng, 12, 1.05, shared=0.10, own=0.01)
    paired = stats.compare_paired(values, base)
    welch = stats.compare(values, base)
    assert paired.ci_high / paired.ci_low < 1.03
    assert welch.ci_high / welch.ci_low > 1.1
    assert paired.verdict_kind == stats.FASTER


def test_tight_pairs_of_equal_settings_are_equivalent():
    rng = random.Random(9)
    c = stats.compare_paired(*rounds(rng, 24, 1.0, own=0.003))
    assert c.verdict_kind == stats.EQUIVALENT and c.verdict == "equivalent within ±3%"
    assert 1 / 1.03 < c.tost_low <= c.ci_low or c.tost_low > c.ci_low


def test_loose_pairs_are_too_noisy_not_equivalent():
    rng = random.Random(9)
    c = stats.compare_paired(*rounds(rng, 4, 1.0, own=0.10))
    assert c.ci_low < 1 < c.ci_high
    assert c.verdict_kind == stats.TOO_NOISY


def test_the_ratio_is_that_of_the_geometric_means():
    values, base = [110.0, 90.0, 100.0], [100.0, 100.0, 80.0]
    c = stats.compare_paired(values, base)
    assert c.ratio == pytest.approx(stats.compare(values, base).ratio)


def test_the_paired_interval_by_hand():
    values, base = [105.0, 210.0, 99.0], [100.0, 200.0, 100.0]
    diffs = [math.log(v / b) for v, b in zip(values, base)]
    mean = sum(diffs) / 3
    sd = math.sqrt(sum((d - mean) ** 2 for d in diffs) / 2)
    half = stats.t_quantile(0.95, 2) * sd / math.sqrt(3)
    c = stats.compare_paired(values, base)
    assert (c.ci_low, c.ci_high) == pytest.approx((math.exp(mean - half), math.exp(mean + half)))


def test_costs_are_compared_in_words_for_amounts():
    less = stats.compare_paired([1.0, 1.01, 0.99, 1.0], [2.0, 2.0, 2.02, 1.98], cost=True)
    assert less.verdict_kind == stats.LESS
    zero = stats.compare_paired([0.0, 1.0], [1.0, 1.0], cost=True)
    assert zero.verdict_kind == stats.ZERO_COST and zero.ratio is None


def test_one_round_is_too_few_and_unequal_lengths_are_an_error():
    assert stats.compare_paired([1.0], [2.0]).verdict_kind == stats.TOO_FEW_REPEATS
    with pytest.raises(ValueError, match="2 values but 3 baseline values"):
        stats.compare_paired([1.0, 2.0], [1.0, 2.0, 3.0])


def switchback_doc():
    """A result as a switchback writes it: the repeats are rounds, paired across points."""
    doc = make_doc()
    doc["plan"]["design"] = "switchback"
    doc["plan"]["settle_s"] = 2.0
    return doc


def test_a_switchback_results_ratios_pair_the_blocks_by_round():
    doc = switchback_doc()
    base, other = doc["points"][0], doc["points"][1]
    other["runs"] = list(reversed(other["runs"]))  # stored order does not matter: rounds do
    computed = document.point_stats(doc)[1]["stats"]["ratio"]
    by_round = {r["repeat"]: r["summary"]["tps"] for r in base["runs"]}
    mine = sorted(other["runs"], key=lambda r: r["repeat"])
    expected = stats.compare_paired([r["summary"]["tps"] for r in mine],
                                    [by_round[r["repeat"]] for r in mine]).to_dict()
    assert computed == expected
    assert document.methods(doc)["ratio"] == stats.PAIRED_METHOD
    assert document.design_text(doc).startswith("switchback: one server")


def test_a_restart_results_ratios_stay_welchs():
    doc = make_doc()
    assert document.methods(doc)["ratio"] == stats.RATIO_METHOD
    assert document.design_text(doc).startswith("restart: ")
