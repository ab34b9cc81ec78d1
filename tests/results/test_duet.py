"""The duet's comparison (results/duet.py) on series whose truth is known: the machine's noise,
which hits both servers in the same second, leaves the ratio; a placement asymmetry cancels
over the swapped halves and is reported; an A/A of autocorrelated seconds, whose place's worth
also moves from half to half, is called faster or slower about as often as its level says;
one repeat has no interval; bad series are refused, naming the half and second."""

import math
import random

import pytest

from tuninglab.results import stats
from tuninglab.results.duet import Half, batch_ratios, compare_duet


def _ar1(rng, n, sd, phi):
    """n values of an AR(1) process with marginal sd and lag-1 correlation phi."""
    x, out = rng.gauss(0, sd), []
    for _ in range(n):
        out.append(x)
        x = phi * x + rng.gauss(0, sd * math.sqrt(1 - phi ** 2))
    return out


def _duet(rng, effect=1.0, placement=1.0, seconds=300, machine=0.15, own=0.03, phi=0.6,
          moves=0.0, repeats=1):
    """A repeat's two halves (repeats of them, in order): the machine's noise (machine, common
    to both servers) and each server's own (own), both autocorrelated, per second; the tested
    setting faster by effect, the first half's placement favouring it by placement (the
    second's favouring the baseline), and the place's worth moving from half to half by a
    log sd of moves (the servers start afresh each half)."""
    halves = []
    for _ in range(repeats):
        for first, swap in ((True, placement), (False, 1 / placement)):
            common = _ar1(rng, seconds, machine, phi)
            a, b = _ar1(rng, seconds, own, phi), _ar1(rng, seconds, own, phi)
            shift = effect * swap * math.exp(rng.gauss(0, moves))
            halves.append(Half([1000 * shift * math.exp(c + e) for c, e in zip(common, a)],
                               [1000 * math.exp(c + e) for c, e in zip(common, b)], first))
    return halves


def test_the_machines_noise_leaves_the_ratio():
    rng = random.Random(1)
    duet = compare_duet(_duet(rng, effect=1.05, machine=0.30, own=0.01, repeats=2),
                        margin=0.02)
    c = duet.comparison
    assert c.ci_low < 1.05 < c.ci_high and c.verdict_kind == stats.FASTER
    # each second's throughput moves ~30%, yet the interval is a few percent wide
    assert (c.ci_high - c.ci_low) / 2 / c.ratio < 0.02
    assert duet.batch_seconds == 60


def test_a_placement_asymmetry_cancels_and_is_reported():
    rng = random.Random(2)
    halves = _duet(rng, effect=1.0, placement=1.08, repeats=3)
    duet = compare_duet(halves, margin=0.03)
    assert duet.comparison.ci_low < 1 < duet.comparison.ci_high
    assert duet.comparison.verdict_kind == stats.EQUIVALENT
    assert duet.placement == pytest.approx(1.08, rel=0.01)
    first, second = halves[:2]
    # one half alone reads the placement as an effect
    alone = [math.exp(sum(math.log(x / b) for x, b in zip(h.values, h.baseline)) / 300)
             for h in (first, second)]
    assert alone[0] == pytest.approx(1.08, rel=0.01) and alone[1] == pytest.approx(1 / 1.08,
                                                                                   rel=0.01)


@pytest.mark.parametrize("moves, phi", [(0.0, 0.8), (0.03, 0.6), (0.03, 0.95)])
def test_an_autocorrelated_a_a_is_called_as_often_as_its_level_says(moves, phi):
    rng = random.Random(3)
    trials = 400
    calls = sum(compare_duet(_duet(rng, seconds=200, phi=phi, moves=moves, repeats=2))
                .comparison.verdict_kind in (stats.FASTER, stats.SLOWER) for _ in range(trials))
    # 5% expected: neither the seconds' correlation nor the place's moving may inflate it
    assert calls / trials <= 0.08


def test_a_moving_place_widens_the_interval_beyond_the_batches():
    # a CPU-bound A/A's place moved by about 3% from half to half (bench/duet.py), its
    # batches by about 1.5% on a half's mean: the interval must be the halves' width
    rng = random.Random(6)
    still = compare_duet(_duet(rng, phi=0.6, repeats=2)).comparison
    moving = compare_duet(_duet(rng, phi=0.6, moves=0.03, repeats=2)).comparison
    assert moving.ci_high / moving.ci_low > 2 * still.ci_high / still.ci_low - 1


def test_one_repeat_has_a_ratio_but_no_interval():
    first, second = _duet(random.Random(7), effect=1.2)
    c = compare_duet([first, second]).comparison
    assert c.ratio == pytest.approx(1.2, rel=0.05)
    assert (c.ci_low, c.ci_high, c.verdict_kind) == (None, None, stats.TOO_FEW_REPEATS)


def test_a_cost_reads_less_or_more_and_a_zero_is_not_compared():
    rng = random.Random(4)
    halves = _duet(rng, effect=0.8, own=0.02, machine=0.02, repeats=2)
    assert compare_duet(halves, cost=True).comparison.verdict_kind == stats.LESS
    first, second = halves[:2]
    zero = Half([0.0] + list(first.values[1:]), first.baseline)
    assert compare_duet([zero, second], cost=True).comparison.verdict_kind == stats.ZERO_COST


def test_batches_weigh_the_same_and_drop_the_odd_seconds():
    half = Half([2, 2, 3, 3, 5, 5, 100], [1, 1, 1, 1, 1, 1, 1])
    assert batch_ratios(half, 3, "first half") == pytest.approx(
        [math.log(2), math.log(3), math.log(5)])


def test_a_stalled_second_counts_against_its_setting():
    # the tested setting matches the baseline but stalls one second in ten
    tested = [0.0 if i % 10 == 0 else 100.0 for i in range(200)]
    duet = compare_duet([Half(tested, [100.0] * 200), Half(tested, [100.0] * 200, False)],
                        batches=4)
    assert duet.comparison.ratio == pytest.approx(0.9)


@pytest.mark.parametrize("first, batches, message", [
    (Half([1, 2, 3], [1, 2]), 2, "first half: 3 seconds of the tested setting but 2"),
    (Half([0, 0, 3, 4], [1, 2, 3, 4]), 2, "first half, seconds 0 to 1: the tested "
                                          "setting's server did nothing in a whole batch"),
    (Half([1, -2, 3, 4], [1, 2, 3, 4]), 2, "first half, second 1: -2 and 2; expected finite "
                                           "numbers, none below 0"),
    (Half([1, float("nan"), 3, 4], [1, 2, 3, 4]), 2, "first half, second 1: nan"),
    (Half([1, 2, 3], [1, 2, 3]), 5, "a duet half of 3 seconds cannot be cut into 5 batches"),
    (Half([1, 2, 3, 4], [1, 2, 3, 4]), 1, "batches: expected a whole number of at least 2"),
])
def test_bad_series_are_refused_naming_the_half_and_second(first, batches, message):
    second = Half([1.0] * 10, [1.0] * 10, first=False)
    with pytest.raises(ValueError, match=message):
        compare_duet([first, second], batches=batches)


def test_many_halves_pool_and_the_places_must_balance():
    rng = random.Random(5)
    halves = _duet(rng, effect=1.05, placement=1.1, repeats=4)
    duet = compare_duet(halves, margin=0.02)
    assert duet.comparison.ci_low < 1.05 < duet.comparison.ci_high
    assert duet.placement == pytest.approx(1.1, rel=0.02)
    assert duet.comparison.ci_high - duet.comparison.ci_low < \
        (lambda c: c.ci_high - c.ci_low)(compare_duet(halves[:4], margin=0.02).comparison)
    with pytest.raises(ValueError, match="3 halves, 2 with the tested setting in the first "
                                         "place; expected as many"):
        compare_duet(halves[:3])


def test_a_duets_pooled_estimate_is_never_narrower_than_its_batches_say():
    """The pooled estimate (Result.estimate, what a verdict pools) takes the batches' floor as
    the duet's own interval does: halves whose totals agree exactly still carry their seconds'
    noise."""
    import statistics

    from helpers import duet_doc
    from tuninglab.results import duet, pooling
    from tuninglab.results.result import Result, paired_series, places

    doc = duet_doc(halves=4, seconds=40)
    r = Result(doc)
    point = next(p for p in r.points if not p.is_baseline)
    values, base, _ = r.compared_values(point, "tps")
    first = places(point.runs, r.baseline_point.runs)
    plain = pooling.placed_estimate(values, base, first)
    floored = r.estimate(point, values, base)
    assert floored.se >= plain.se and floored.log_ratio == plain.log_ratio
    # the halves' totals made to agree exactly: no spread of halves, only the batches'
    same = [values[0] if f == first[0] else values[1] for f in first]
    both = [base[0] if f == first[0] else base[1] for f in first]
    assert pooling.placed_estimate(same, both, first) is None
    mine = sorted(point.runs, key=lambda run: run["repeat"])
    theirs = sorted(r.baseline_point.runs, key=lambda run: run["repeat"])
    ratios = [duet.batch_ratios(duet.Half(*paired_series(a, b)), duet.DEFAULT_BATCHES, "h")
              for a, b in zip(mine, theirs)]
    var, df = duet.within_variance(ratios, [statistics.fmean(x) for x in ratios])
    found = pooling.placed_estimate(same, both, first, floor=(var, df))
    assert found.se == pytest.approx(math.sqrt(var / len(first))) and found.df == df
