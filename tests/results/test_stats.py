"""Tests for tuninglab.stats: hand-computed cases, simulated coverage and power."""

import json
import math

import numpy as np
import pytest
from scipy import stats as sps

from tuninglab.results.stats import (
    COST_VERDICTS,
    DEFAULT_SMALLEST_EFFECT,
    EQUIVALENT,
    FASTER,
    LESS,
    MORE,
    RATIO_VERDICTS,
    SLOWER,
    TOO_FEW_REPEATS,
    TOO_NOISY,
    VERDICTS,
    ZERO_COST,
    Comparison,
    Summary,
    compare,
    compare_cost,
    equivalent_text,
    summarize,
)

T_975_2 = 4.302652729911275  # t(0.975, df=2), from tables


# --- exact small cases -------------------------------------------------------


def test_summarize_one_two_three_by_hand():
    s = summarize([3, 1, 2])
    assert (s.n, s.median, s.mean, s.stdev) == (3, 2.0, 2.0, 1.0)
    # The interval of the geometric mean: logs 0, 0.6931, 1.0986 (mean 0.5973, sd 0.5555)
    half = T_975_2 * 0.555548 / math.sqrt(3)
    assert half == pytest.approx(1.38003, abs=1e-4)
    assert s.ci_low == pytest.approx(math.exp(0.597253 - 1.38003), rel=1e-4)   # 0.4571
    assert s.ci_high == pytest.approx(math.exp(0.597253 + 1.38003), rel=1e-4)  # 7.223
    assert s.half_width_pct() == pytest.approx((s.ci_high - s.ci_low) / 2 / 2 * 100)


def test_summarize_is_scipys_t_interval_of_the_log_values_back_transformed():
    x = [101.2, 99.8, 100.5, 98.9, 100.1, 102.3]
    s = summarize(x, confidence=0.9)
    logs = np.log(x)
    lo, hi = sps.t.interval(0.9, len(x) - 1, loc=np.mean(logs), scale=sps.sem(logs))
    assert (s.ci_low, s.ci_high) == pytest.approx((math.exp(lo), math.exp(hi)), rel=1e-12)
    assert s.median == pytest.approx(100.3)
    assert s.mean == pytest.approx(np.mean(x))  # the mean and stdev stay the plain ones


def test_two_far_apart_repeats_give_no_interval_below_zero():
    """Issue 16: 2 repeats gave "-8,092.9 .. 20,229.7 tps"."""
    s = summarize([4954, 7183])
    assert 0 < s.ci_low < min(4954, 7183) and s.ci_high > 7183
    assert (s.ci_low, s.ci_high) == pytest.approx((563.07, 63198.0), rel=1e-4)
    assert s.ci_low * s.ci_high == pytest.approx(4954 * 7183)  # centred on the geometric mean


def test_a_repeat_of_zero_falls_back_to_the_linear_interval_clipped_at_zero():
    s = summarize([0, 10, 20])
    half = T_975_2 * 10 / math.sqrt(3)
    assert (s.ci_low, s.ci_high) == (0.0, pytest.approx(10 + half))
    assert summarize([0] + [1000] * 10).ci_low > 0  # clipped only where it would be < 0


def test_values_that_can_be_negative_keep_the_linear_interval():
    s = summarize([-1, 1, 3])
    half = T_975_2 * 2 / math.sqrt(3)
    assert (s.ci_low, s.ci_high) == pytest.approx((1 - half, 1 + half))


def test_summarize_single_repeat_has_no_interval():
    s = summarize([42])
    assert (s.n, s.median, s.mean) == (1, 42.0, 42.0)
    assert s.stdev is None and s.ci_low is None and s.ci_high is None
    assert s.half_width_pct() is None


def test_summarize_identical_repeats_zero_width():
    s = summarize([0.1, 0.1, 0.1])
    assert s.stdev == 0.0
    assert s.ci_low == s.ci_high == 0.1
    assert s.half_width_pct() == 0.0


def test_summarize_accepts_zero_throughput():
    s = summarize([0, 0, 0])
    assert s.median == 0.0 and s.ci_low == s.ci_high == 0.0
    assert s.half_width_pct() is None  # relative width undefined at median 0
    assert summarize([0, 10, 20]).median == 10.0


def test_summarize_accepts_numpy_and_generators():
    assert summarize(np.array([1.0, 2.0, 3.0])).mean == 2.0
    assert summarize(x for x in (1, 2, 3)).n == 3


def test_to_dict_is_plain_json():
    s = summarize([1, 2, 3])
    d = s.to_dict()
    assert set(d) == {"n", "median", "mean", "stdev", "ci_low", "ci_high"}
    assert json.loads(json.dumps(d)) == d
    assert Summary(**d) == s
    c = compare([1, 2, 3], [2, 3, 4])
    d = c.to_dict()
    assert set(d) == {"ratio", "ci_low", "ci_high", "verdict", "verdict_kind", "tost_low",
                      "tost_high"}
    assert json.loads(json.dumps(d)) == d
    assert Comparison(**d) == c
    assert json.loads(json.dumps(summarize([5]).to_dict()))["ci_low"] is None


def test_compare_welch_by_hand():
    # log values: x -> 1, 2, 3 (mean 2, var 1); base -> 0, 2 (mean 1, var 2)
    # se^2 = 1/3 + 2/2 = 4/3; df = (4/3)^2 / ((1/3)^2/2 + 1^2/1) = 32/19
    c = compare([math.e, math.e**2, math.e**3], [1, math.e**2])
    assert c.ratio == pytest.approx(math.e)
    half = sps.t.ppf(0.975, 32 / 19) * math.sqrt(4 / 3)
    assert c.ci_low == pytest.approx(math.exp(1 - half))
    assert c.ci_high == pytest.approx(math.exp(1 + half))
    assert c.verdict == c.verdict_kind == TOO_NOISY  # 0.3 to 25: a ratio of e tells nothing


def test_compare_matches_scipy_welch():
    rng = np.random.default_rng(7)
    for _ in range(20):
        x = rng.lognormal(math.log(110), 0.03, size=6)
        b = rng.lognormal(math.log(100), 0.01, size=4)
        c = compare(x, b, confidence=0.9)
        ci = sps.ttest_ind(np.log(x), np.log(b), equal_var=False).confidence_interval(0.9)
        assert math.log(c.ci_low) == pytest.approx(ci.low, rel=1e-9)
        assert math.log(c.ci_high) == pytest.approx(ci.high, rel=1e-9)


def test_compare_single_repeat_too_few():
    for c in (compare([5], [5, 6]), compare([5, 6], [5])):
        assert c.ci_low is None and c.ci_high is None
        assert c.tost_low is None and c.tost_high is None
        assert c.verdict == c.verdict_kind == TOO_FEW_REPEATS
    assert compare([10], [5]).ratio == pytest.approx(2.0)


def test_compare_zero_variance_is_a_point_interval():
    c = compare([110] * 3, [100] * 3)
    assert c.ratio == pytest.approx(1.1)
    assert c.ci_low == c.ci_high == c.ratio
    assert c.verdict == FASTER
    assert compare([110] * 3, [100] * 3, higher_is_better=False).verdict == SLOWER
    assert compare([90] * 3, [100] * 3).verdict == SLOWER
    # different n with the same constant: ratio must be exactly 1, not 1 +- ulp
    same = compare([987.65] * 3, [987.65] * 5)  # naive sum/n: 1 - 9e-16
    assert same.ratio == 1.0 and same.tost_low == same.tost_high == 1.0
    assert same.verdict_kind == EQUIVALENT and same.verdict == "equivalent within ±3%"


def test_compare_one_group_constant_uses_the_other_variance():
    # vb = 0 -> Welch df = n_x - 1, se^2 = var(log x) / n_x
    x = [100, 105, 110]
    c = compare(x, [100] * 4)
    lx = np.log(x)
    half = sps.t.ppf(0.975, 2) * lx.std(ddof=1) / math.sqrt(3)
    diff = lx.mean() - math.log(100)
    assert (c.ci_low, c.ci_high) == pytest.approx((math.exp(diff - half), math.exp(diff + half)))


# --- simulated coverage and power -------------------------------------------


def test_summary_ci_coverage_lognormal():
    # The interval is one of the geometric mean: 100 for a lognormal around log(100).
    rng = np.random.default_rng(20240601)
    samples = rng.lognormal(math.log(100), 0.05, size=(2000, 5))
    hits = 0
    for row in samples:
        s = summarize(row)
        hits += s.ci_low <= 100 <= s.ci_high
    assert 0.93 <= hits / len(samples) <= 0.97


def test_summary_ci_coverage_of_the_mean_of_a_normal_throughput():
    # Repeats of a throughput spread a few % around its mean: the interval of the geometric
    # mean covers the mean too (they differ by about sd^2 / 2 mean, 0.02 here).
    rng = np.random.default_rng(20240601)
    samples = rng.normal(100, 2, size=(2000, 5))
    hits = sum(s.ci_low <= 100 <= s.ci_high for s in map(summarize, samples))
    assert 0.93 <= hits / len(samples) <= 0.97


def test_ratio_ci_coverage_lognormal_unequal_groups():
    # True ratio of geometric means = 110/100; unequal n and spread (Welch).
    rng = np.random.default_rng(11)
    xs = rng.lognormal(math.log(110), 0.03, size=(2000, 6))
    bs = rng.lognormal(math.log(100), 0.01, size=(2000, 4))
    hits = 0
    for x, b in zip(xs, bs):
        c = compare(x, b)
        hits += c.ci_low <= 1.1 <= c.ci_high
    assert 0.93 <= hits / len(xs) <= 0.97


def test_clear_difference_gives_verdict():
    rng = np.random.default_rng(3)
    for _ in range(100):
        hi = rng.normal(120, 2.4, size=5)  # CV 2%
        lo = rng.normal(100, 2.0, size=5)
        assert compare(hi, lo).verdict == FASTER
        assert compare(lo, hi).verdict == SLOWER
        # e.g. latency: lower is better
        assert compare(hi, lo, higher_is_better=False).verdict == SLOWER
        assert compare(lo, hi, higher_is_better=False).verdict == FASTER


@pytest.mark.parametrize("cv, equivalent", [(1, (0.85, 0.96)), (2, (0.25, 0.45))])
def test_identical_distributions_rarely_differ_and_are_equivalent_when_precise(cv, equivalent):
    # 5 repeats: a false "faster" or "slower" stays near the 5% the 95% interval allows. The
    # 90% interval is about ±1.2% at a CV of 1%, inside ±3% nearly always; at 2% it is about
    # ±2.4% around an estimate that itself wanders by ±1.3%, inside ±3% about a third of the
    # time: "equivalent within ±3%" needs a CV near 1% at 5 repeats, else more repeats.
    rng = np.random.default_rng(5)
    xs = rng.normal(100, cv, size=(2000, 5))
    bs = rng.normal(100, cv, size=(2000, 5))
    kinds = [compare(x, b).verdict_kind for x, b in zip(xs, bs)]
    assert 0.02 <= (kinds.count(FASTER) + kinds.count(SLOWER)) / len(kinds) <= 0.08
    assert equivalent[0] <= kinds.count(EQUIVALENT) / len(kinds) <= equivalent[1]
    assert set(kinds) <= {FASTER, SLOWER, EQUIVALENT, TOO_NOISY}


def test_ratio_tost_interval_coverage_is_90_percent():
    rng = np.random.default_rng(12)
    xs = rng.lognormal(math.log(103), 0.03, size=(2000, 6))
    bs = rng.lognormal(math.log(100), 0.01, size=(2000, 4))
    hits = sum(c.tost_low <= 1.03 <= c.tost_high for c in map(compare, xs, bs))
    assert 0.88 <= hits / len(xs) <= 0.92


# --- equivalence (two one-sided tests) ----------------------------------------

def test_equal_groups_with_a_small_spread_are_equivalent():
    c = compare([100.0, 100.5, 99.5, 100.2, 99.8], [100.1, 99.9, 100.3, 99.7, 100.0])
    assert c.verdict_kind == EQUIVALENT
    assert c.verdict == "equivalent within ±3%"
    assert 1 / 1.03 < c.tost_low < 1 < c.tost_high < 1.03
    assert c.ci_low < c.tost_low and c.tost_high < c.ci_high  # 90% inside 95%


def test_equal_groups_with_a_large_spread_are_too_noisy_to_tell():
    """The issue's case: an interval of about ±20% across 1, no longer "no difference"."""
    c = compare([80.0, 100.0, 120.0], [85.0, 100.0, 115.0])
    assert c.ratio == pytest.approx(1.0, abs=0.02)
    assert c.ci_low < 0.8 and c.ci_high > 1.2
    assert c.verdict == c.verdict_kind == TOO_NOISY


def test_a_clear_20_percent_effect_is_faster_whatever_the_margin():
    x, b = [120.0, 121.0, 119.0, 120.5, 119.5], [100.0, 101.0, 99.0, 100.5, 99.5]
    for margin in (0.03, 0.5):
        c = compare(x, b, margin=margin)
        assert c.verdict == c.verdict_kind == FASTER
        assert c.ratio == pytest.approx(1.2, rel=1e-3) and c.ci_low > 1.15


def _spread(s: float) -> list[float]:
    """Three repeats whose logs are -s, 0, s around log 100: variance s^2."""
    return [100 * math.exp(-s), 100.0, 100 * math.exp(s)]


def test_equivalent_when_the_90_interval_is_inside_though_the_95_one_reaches_past():
    # Two groups of 3 with log variance s^2: se = s * sqrt(2/3), df = 4 exactly. With
    # s = 0.015 the 90% half-width 2.132 * se = 0.0261 < log 1.03 = 0.0296 < 0.0340, the 95%
    # half-width: TOST at 5% each says equivalent where the 95% interval alone could not.
    c = compare(_spread(0.015), _spread(0.015))
    se = 0.015 * math.sqrt(2 / 3)
    assert c.tost_high == pytest.approx(math.exp(sps.t.ppf(0.95, 4) * se), rel=1e-9)
    assert c.ci_high == pytest.approx(math.exp(sps.t.ppf(0.975, 4) * se), rel=1e-9)
    assert c.ci_low < 1 / 1.03 and c.ci_high > 1.03
    assert 1 / 1.03 < c.tost_low < 1 < c.tost_high < 1.03
    assert c.verdict_kind == EQUIVALENT
    assert compare(_spread(0.018), _spread(0.018)).verdict_kind == TOO_NOISY  # 0.0313 > 0.0296


def _shifted(log_ratio: float, half90: float) -> tuple[list[float], list[float]]:
    """Two groups of 3 (as _spread) whose ratio is exp(log_ratio) with a 90% interval of
    exactly log_ratio +- half90 on the log scale."""
    s = half90 / (sps.t.ppf(0.95, 4) * math.sqrt(2 / 3))
    return [v * math.exp(log_ratio) for v in _spread(s)], _spread(s)


def test_the_equivalence_bounds_are_symmetric_on_the_log_scale():
    # A 90% interval of 0.9705 to 0.9999: inside 0.97 .. 1.03, but not inside 1/1.03 .. 1.03
    # (0.97087): its mirror, the groups swapped, is 1.0001 to 1.0304, past 1.03. Bounds of
    # 1 - X .. 1 + X would call one equivalent and not the other.
    x, b = _shifted(-0.015, 0.014944)
    for c in (compare(x, b), compare(b, x)):
        assert c.ci_low < 1 < c.ci_high  # neither faster nor slower
        assert c.verdict_kind == TOO_NOISY
    assert compare(x, b).tost_low == pytest.approx(0.9705, abs=1e-4)
    # Nearer 1 both ways are equivalent alike.
    x, b = _shifted(0.012, 0.0105)
    for c in (compare(x, b), compare(b, x)):
        assert c.ci_low < 1 < c.ci_high
        assert c.verdict_kind == EQUIVALENT


def test_the_tost_interval_is_scipys_90_percent_welch_interval_and_its_two_tests():
    rng = np.random.default_rng(17)
    margin = math.log(1.03)
    kinds = []
    for _ in range(200):
        x = rng.lognormal(math.log(rng.uniform(97, 103)), rng.uniform(0.002, 0.03), size=5)
        b = rng.lognormal(math.log(100), rng.uniform(0.002, 0.03), size=4)
        c = compare(x, b)
        lx, lb = np.log(x), np.log(b)
        ci = sps.ttest_ind(lx, lb, equal_var=False).confidence_interval(0.90)
        assert (math.log(c.tost_low), math.log(c.tost_high)) == \
            pytest.approx((ci.low, ci.high), rel=1e-9, abs=1e-12)
        # The two one-sided Welch tests, by hand: the difference is above -log 1.03, and
        # below +log 1.03, each at 5% (shifting one group leaves the variances alone).
        above = sps.ttest_ind(lx + margin, lb, equal_var=False, alternative="greater").pvalue
        below = sps.ttest_ind(lx - margin, lb, equal_var=False, alternative="less").pvalue
        if c.verdict_kind not in (FASTER, SLOWER):
            assert (c.verdict_kind == EQUIVALENT) == (max(above, below) < 0.05)
        kinds.append(c.verdict_kind)
    assert min(kinds.count(k) for k in (FASTER, SLOWER, EQUIVALENT, TOO_NOISY)) >= 10


def test_the_margin_is_the_callers_and_the_verdict_names_it():
    wide = compare(_spread(0.05), _spread(0.05))
    assert wide.verdict_kind == TOO_NOISY
    c = compare(_spread(0.05), _spread(0.05), margin=0.10)
    assert c.verdict_kind == EQUIVALENT and c.verdict == "equivalent within ±10%"
    assert c.ratio == wide.ratio and c.tost_low == wide.tost_low  # only the bounds moved
    assert equivalent_text(DEFAULT_SMALLEST_EFFECT) == "equivalent within ±3%"
    assert equivalent_text(0.025) == "equivalent within ±2.5%"
    assert equivalent_text(0.035) == "equivalent within ±3.5%"


def test_equivalence_does_not_depend_on_the_direction():
    same = compare(_spread(0.005), _spread(0.005), higher_is_better=False)
    assert same.verdict_kind == EQUIVALENT


def test_every_kind_is_a_verdict():
    assert set(VERDICTS) >= {FASTER, SLOWER, EQUIVALENT, TOO_NOISY, TOO_FEW_REPEATS}
    assert len(set(VERDICTS)) == len(VERDICTS)


@pytest.mark.parametrize("margin", [0, 1, 1.5, -0.03, math.nan])
def test_bad_margin_rejected(margin):
    with pytest.raises(ValueError, match="margin must be a fraction between 0 and 1"):
        compare([1, 2, 3], [2, 3, 4], margin=margin)


# --- bad input ---------------------------------------------------------------


@pytest.mark.parametrize("bad", [[], (), iter([])])
def test_empty_rejected(bad):
    with pytest.raises(ValueError, match=r"^values: empty sequence"):
        summarize(bad)


def test_empty_baseline_rejected():
    with pytest.raises(ValueError, match=r"^baseline: empty sequence"):
        compare([1, 2], [])


@pytest.mark.parametrize("bad", [math.nan, math.inf, -math.inf])
def test_non_finite_rejected(bad):
    with pytest.raises(ValueError, match=r"^values\[1\] is .*finite"):
        summarize([1.0, bad, 3.0])
    with pytest.raises(ValueError, match=r"^baseline\[2\] is .*finite"):
        compare([1.0, 2.0], [1.0, 2.0, bad])


@pytest.mark.parametrize("bad", [0, -5.0])
def test_non_positive_rejected_by_compare(bad):
    with pytest.raises(ValueError, match=r"^values\[0\] is .*must be > 0"):
        compare([bad, 2.0], [1.0, 2.0])
    with pytest.raises(ValueError, match=r"^baseline\[1\] is .*must be > 0"):
        compare([1.0, 2.0], [1.0, bad])


def test_non_numbers_rejected():
    with pytest.raises(ValueError, match=r"^values\[1\] is 'x', not a number"):
        summarize([1, "x"])
    with pytest.raises(ValueError, match=r"^values\[0\] is None, not a number"):
        summarize([None])
    with pytest.raises(ValueError, match="got a string"):
        summarize("123")


@pytest.mark.parametrize("conf", [0, 1, 1.5, -0.1, math.nan])
def test_bad_confidence_rejected(conf):
    with pytest.raises(ValueError, match="confidence must be between 0 and 1"):
        summarize([1, 2, 3], confidence=conf)
    with pytest.raises(ValueError, match="confidence must be between 0 and 1"):
        summarize([1], confidence=conf)
    with pytest.raises(ValueError, match="confidence must be between 0.5 and 1"):
        compare([1, 2, 3], [2, 3, 4], confidence=conf)
    with pytest.raises(ValueError, match="confidence must be between 0.5 and 1"):
        compare([1], [2], confidence=conf)


@pytest.mark.parametrize("conf", [0.5, 0.3])
def test_a_comparison_needs_a_confidence_above_one_half(conf):
    # Its equivalence test is at 2 * confidence - 1, which must be a confidence too.
    with pytest.raises(ValueError, match="confidence must be between 0.5 and 1"):
        compare([1, 2, 3], [2, 3, 4], confidence=conf)


# --- costs per transaction (compare_cost) ------------------------------------------------------

CPU_US = [850.0, 858.5, 841.5, 854.25, 845.75]  # ±1% around 850 µs a transaction


def test_equal_costs_are_equivalent_within_the_margin():
    c = compare_cost([x * 1.002 for x in reversed(CPU_US)], CPU_US)
    assert c.verdict_kind == EQUIVALENT and c.verdict == "equivalent within ±3%"
    assert 1 / 1.03 < c.tost_low < 1 < c.tost_high < 1.03
    assert compare_cost(CPU_US, CPU_US, margin=0.05).verdict == "equivalent within ±5%"


def test_a_cost_20_percent_lower_is_less_and_20_percent_higher_more():
    less = compare_cost([x * 0.8 for x in CPU_US], CPU_US)
    assert less.verdict == less.verdict_kind == LESS
    assert less.ratio == pytest.approx(0.8) and less.ci_high < 0.85
    more = compare_cost([x * 1.2 for x in CPU_US], CPU_US)
    assert more.verdict == more.verdict_kind == MORE
    assert more.ratio == pytest.approx(1.2) and more.ci_low > 1.15


def test_a_cost_is_compared_with_the_statistics_of_compare_in_words_for_amounts():
    """The same ratio and intervals as compare() where lower is better; "less" where that says
    "faster", "more" where it says "slower"."""
    words = {FASTER: LESS, SLOWER: MORE, EQUIVALENT: EQUIVALENT, TOO_NOISY: TOO_NOISY}
    rng = np.random.default_rng(21)
    kinds = set()
    for _ in range(200):
        x = rng.lognormal(math.log(rng.uniform(80, 120)), rng.uniform(0.002, 0.05), size=5)
        b = rng.lognormal(math.log(100), rng.uniform(0.002, 0.05), size=4)
        cost, speed = compare_cost(x, b), compare(x, b, higher_is_better=False)
        assert (cost.ratio, cost.ci_low, cost.ci_high, cost.tost_low, cost.tost_high) == \
            (speed.ratio, speed.ci_low, speed.ci_high, speed.tost_low, speed.tost_high)
        assert cost.verdict_kind == words[speed.verdict_kind]
        kinds.add(cost.verdict_kind)
    assert kinds == {LESS, MORE, EQUIVALENT, TOO_NOISY}


def test_equal_cost_distributions_rarely_read_less_or_more():
    rng = np.random.default_rng(22)
    xs = rng.lognormal(math.log(2400), 0.02, size=(2000, 5))
    bs = rng.lognormal(math.log(2400), 0.02, size=(2000, 5))
    kinds = [compare_cost(x, b).verdict_kind for x, b in zip(xs, bs)]
    assert 0.02 <= (kinds.count(LESS) + kinds.count(MORE)) / len(kinds) <= 0.08


def test_a_noisy_cost_is_too_noisy_to_tell():
    c = compare_cost([800.0, 1000.0, 1200.0], [850.0, 1000.0, 1150.0])
    assert c.verdict == c.verdict_kind == TOO_NOISY


@pytest.mark.parametrize("values, baseline", [
    ([0.0, 0.0, 0.0], [0.05, 0.051, 0.049]),   # no fsync at this point
    ([0.05, 0.051, 0.049], [0.05, 0.0, 0.049]),  # one repeat of the baseline made none
    ([0.0, 0.0, 0.0], [0.0, 0.0, 0.0]),
])
def test_a_cost_of_zero_in_a_repeat_is_not_compared(values, baseline):
    c = compare_cost(values, baseline)
    assert c == Comparison(None, None, None, ZERO_COST, ZERO_COST, None, None)
    assert json.loads(json.dumps(c.to_dict())) == c.to_dict()
    assert c.verdict == "zero in a repeat: not compared"


def test_a_cost_of_one_repeat_is_too_few():
    c = compare_cost([850.0], CPU_US)
    assert c.verdict == c.verdict_kind == TOO_FEW_REPEATS and c.ci_low is None


def test_a_negative_cost_is_refused():
    with pytest.raises(ValueError, match=r"^values\[1\] is -1.0; .*must be > 0"):
        compare_cost([850.0, -1.0], CPU_US)
    with pytest.raises(ValueError, match=r"^baseline\[0\] is -1.0"):
        compare_cost(CPU_US, [-1.0, 0.0])  # negative, not "zero in a repeat"


@pytest.mark.parametrize("kw, match", [({"margin": 0}, "margin must be"),
                                       ({"confidence": 0.5}, "confidence must be")])
def test_a_cost_comparison_checks_its_levels_before_its_zeros(kw, match):
    with pytest.raises(ValueError, match=match):
        compare_cost([0.0, 1.0], [1.0, 2.0], **kw)


def test_every_cost_kind_is_a_verdict():
    assert set(COST_VERDICTS) == {LESS, MORE, EQUIVALENT, TOO_NOISY, TOO_FEW_REPEATS, ZERO_COST}
    assert set(COST_VERDICTS) | set(RATIO_VERDICTS) == set(VERDICTS)
    assert len(set(VERDICTS)) == len(VERDICTS)
