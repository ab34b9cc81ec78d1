"""sitting_model: the Bayesian random-effects pool's known cases, its monotonicity in a result's
own error, its refusals and its determinism (unit tests; the coverage is `invoke bench --only
pooling`'s)."""

import math
from dataclasses import replace

import numpy as np
import pytest
from scipy import optimize, stats

from helpers import make_doc
from tuninglab.results import calibrations, likelihood_grid, sitting_model
from tuninglab.results.pooling import Estimate
from tuninglab.results.sitting_model import pool

# A/A calibrations of a quiet host class: 8 sittings, a restart's and a switchback's each,
# within their own errors (tau and x small).
QUIET = [Estimate(y, se, df, f"h{i}") for i, (a, b) in enumerate(
    [(0.004, -0.01), (-0.006, 0.012), (0.002, 0.0), (-0.003, -0.015), (0.005, 0.02),
     (-0.001, 0.006), (0.003, -0.004), (-0.004, 0.009)])
    for y, se, df in ((a, 0.006, 19.0), (b, 0.02, 6.0))]
QUIET_PAIRED = [True, False] * 8
SES = (0.0, 0.0025, 0.005, 0.01, 0.02, 0.04, 0.08)
# How far the grid's arithmetic may move a half-width (log scale) that should stay put: the
# grid follows each result's se, so tiny se changes move its points.
RESOLUTION = 1e-5


def half_width(p) -> float:
    return (math.log(p.ci_high) - math.log(p.ci_low)) / 2


def test_one_result_with_only_the_prior_is_its_t_widened_by_the_prior_spreads():
    """One sitting says nothing about tau or delta: its interval is y minus (its t error + u +
    d), u and d normal with tau half-normal(10%) and delta half-normal(DELTA_SCALE): here
    against that integral done another way (delta 0: tau's alone)."""
    e = Estimate(0.1, 0.02, 10.0, "a")
    errors = 0.02 * stats.t.ppf((np.arange(400) + 0.5) / 400, 10.0)
    grid = np.linspace(0.0, 0.6, 301)
    step = np.full(grid.size, grid[1]) * np.r_[0.5, np.ones(grid.size - 2), 0.5]
    for scale in (0.0, sitting_model.DELTA_SCALE):
        p = pool([e], [], delta_scale=scale)
        assert math.log(p.ratio) == pytest.approx(0.1, abs=1e-6)
        assert math.log(p.ci_high) - 0.1 == pytest.approx(0.1 - math.log(p.ci_low), rel=1e-3)
        tau_w = stats.halfnorm.pdf(grid, 0, 0.1) * step
        delta, delta_w = (grid, stats.halfnorm.pdf(grid, 0, scale) * step) if scale else \
            (np.zeros(1), np.ones(1))
        sd = np.hypot(grid[:, None], delta[None, :])
        w = (tau_w[:, None] * delta_w[None, :]) / (tau_w.sum() * delta_w.sum())
        keep = w > 1e-12

        def cdf(d):   # P(t error + u + d <= x), over the priors on their grid
            z = (d - errors[None, :]) / np.maximum(sd[keep], 1e-9)[:, None]
            return float((w[keep][:, None] * stats.norm.cdf(z)).sum() / errors.size)
        high = optimize.brentq(lambda d: cdf(d) - 0.975, 0.01, 1.5)
        assert math.log(p.ci_high) - 0.1 == pytest.approx(high, rel=0.015)
    assert p.k == p.sittings == 1
    assert p.tost_low > p.ci_low and p.tost_high < p.ci_high
    assert "scale 10%" in p.between_from and "0 A/A" in p.between_from


def test_the_effects_spread_gives_each_tau_its_whole_prior_mass():
    """For each tau node, delta's prior mass over the claim's sitting sd nodes sums to 1, and
    delta 0 puts it all on tau's own node."""
    taus, _ = sitting_model.tau_nodes()
    for scale in (0.0, 0.02, sitting_model.DELTA_SCALE, 0.2):
        values, log_pair = sitting_model.spread_nodes_of(scale)
        assert np.exp(log_pair).sum(axis=1) == pytest.approx(1.0, abs=1e-4)
        assert np.all(np.isneginf(log_pair) | (values[None, :] >= taus[:, None] / 1.17))
    values, log_pair = sitting_model.spread_nodes_of(0.0)
    assert [values[np.argmax(row)] for row in log_pair] == pytest.approx(list(taus))


def test_machines_that_agree_teach_a_small_effect_spread_and_one_machine_cannot():
    """The cost of the effect's own spread falls on few machines: one machine's interval
    widens by its prior, six that agree shrink delta towards 0 and the interval with it."""
    one = [Estimate(0.1, 0.01, 19.0, "a")]
    six = [Estimate(0.1 + d, 0.01, 19.0, str(i))
           for i, d in enumerate((0.004, -0.003, 0.002, -0.005, 0.001, 0.0))]
    def widening(estimates):
        return half_width(pool(estimates, QUIET, calibration_paired=QUIET_PAIRED)) / half_width(
            pool(estimates, QUIET, calibration_paired=QUIET_PAIRED, delta_scale=0.0))
    assert widening(one) > 2
    assert widening(six) < widening(one) / 2


def test_equal_results_pool_to_their_ratio_and_narrower_the_more_sittings():
    one = pool([Estimate(0.2, 0.03, 6.0, "a")], QUIET, calibration_paired=QUIET_PAIRED)
    widths = [half_width(one)]
    for n in (3, 6):
        p = pool([Estimate(0.2, 0.03, 6.0, str(i)) for i in range(n)], QUIET,
                 calibration_paired=QUIET_PAIRED)
        assert math.log(p.ratio) == pytest.approx(0.2, abs=1e-6)
        assert p.k == p.sittings == n
        widths.append(half_width(p))
    assert widths[0] > widths[1] > widths[2]


def test_a_sittings_results_share_its_deviation():
    same = [Estimate(0.2, 0.03, 6.0, "a") for _ in range(3)]
    apart = [replace(e, sitting=s) for e, s in zip(same, "abc")]
    one, three = pool(same, []), pool(apart, [])
    assert one.sittings == 1 and one.k == 3 and three.sittings == 3
    assert half_width(one) > 2 * half_width(three)   # the prior's tau counted once, not thrice


def test_a_far_precise_sitting_is_a_spread_between_sittings_and_widens_the_interval():
    """With a new class's 2 calibration sittings (with 8 that agree, tau stays near theirs and
    the far sitting is mostly taken for its own error's tail: a lopsided interval)."""
    two = [Estimate(0.0, 0.01, 9.0, "a"), Estimate(0.01, 0.012, 9.0, "b")]
    far = two + [Estimate(0.3, 0.01, 9.0, "c")]
    near, wide = (pool(e, QUIET[:4], calibration_paired=QUIET_PAIRED[:4]) for e in (two, far))
    assert wide.between_sd > 4 * near.between_sd
    assert half_width(wide) > 1.5 * half_width(near)
    assert wide.ci_low < math.exp(0.31 / 3) < wide.ci_high


def test_a_far_result_from_few_repeats_pulls_little():
    """Its t (2 df) lets its accidental standard error count for little: the other two decide
    (with the effect the same on every machine; where it may differ, a far machine is also
    taken for that, and both pull more, the precise one still the most)."""
    two = [Estimate(0.0, 0.01, 9.0, "a"), Estimate(0.01, 0.012, 9.0, "b")]
    for scale, share in ((0.0, 0.5), (None, 1.0)):
        p, precise = (pool(two + [Estimate(0.3, 0.01, df, "c")], QUIET[:4],
                           calibration_paired=QUIET_PAIRED[:4], delta_scale=scale)
                      for df in (2.0, 9.0))
        assert math.log(p.ratio) < share * math.log(precise.ratio)


def test_calibrations_narrow_tau_and_a_scattered_class_widens_it():
    claim = [Estimate(0.1, 0.01, 19.0, "a"), Estimate(0.12, 0.015, 9.0, "b")]
    none = pool(claim, [])
    few = pool(claim, QUIET[:4], calibration_paired=QUIET_PAIRED[:4])
    many = pool(claim, QUIET, calibration_paired=QUIET_PAIRED)
    assert none.between_sd > few.between_sd > many.between_sd
    assert half_width(none) > half_width(few) > half_width(many)
    assert "16 A/A" not in many.between_from and "8 A/A calibration sittings" in many.between_from
    scattered = [replace(e, log_ratio=e.log_ratio + (0.08 if i % 4 < 2 else -0.08))
                 for i, e in enumerate(QUIET)]
    loud = pool(claim, scattered, calibration_paired=QUIET_PAIRED)
    assert loud.between_sd > 3 * many.between_sd and half_width(loud) > half_width(many)


def test_a_switchbacks_excess_is_learnt_from_its_calibrations():
    """Switchback A/As that scatter beyond their paired se raise x, not tau: a claim's
    switchback result widens, a restart result barely moves."""
    loud = [replace(e, log_ratio=e.log_ratio + (0.04 if i % 4 == 0 else -0.04 if i % 4 == 2
                                                else 0.0)) for i, e in enumerate(QUIET)]
    sb, rs = Estimate(0.1, 0.008, 19.0, "a"), Estimate(0.1, 0.02, 6.0, "a")
    for e, paired, moves in ((sb, [True], True), (rs, [False], False)):
        # the effect the same everywhere: one machine's interval is then x's and tau's alone
        quiet = pool([e], QUIET, paired=paired, calibration_paired=QUIET_PAIRED,
                     delta_scale=0.0)
        noisy = pool([e], loud, paired=paired, calibration_paired=QUIET_PAIRED,
                     delta_scale=0.0)
        assert (half_width(noisy) > 1.5 * half_width(quiet)) is moves
    post = sitting_model.posterior([sb], loud, [True], QUIET_PAIRED)
    assert sitting_model.node_median(post.excess, post.excess_weights) > 0.02
    assert sitting_model.node_median(post.taus, post.tau_weights) < 0.01


def test_a_calibrations_sitting_is_never_a_claims():
    claim = [Estimate(0.1, 0.01, 19.0, "h0")]
    shared = pool(claim, QUIET, calibration_paired=QUIET_PAIRED)
    other = pool(claim, [replace(e, sitting="x" + e.sitting) for e in QUIET],
                 calibration_paired=QUIET_PAIRED)
    assert (shared.ratio, shared.ci_low, shared.ci_high) == (other.ratio, other.ci_low,
                                                            other.ci_high)


@pytest.mark.parametrize("paired", [False, True])
@pytest.mark.parametrize("cal", [0, 4, 16])
def test_a_more_precise_result_never_widens_the_interval_1_sitting(paired, cal):
    widths = [half_width(pool([Estimate(0.1, se, 6.0, "a")], QUIET[:cal], paired=[paired],
                              calibration_paired=QUIET_PAIRED[:cal])) for se in SES]
    assert all(b > a - RESOLUTION for a, b in zip(widths, widths[1:])), widths
    assert widths[-1] > 1.15 * widths[0]


@pytest.mark.parametrize("paired", [False, True])
@pytest.mark.parametrize("cal", [0, 4, 16])
def test_a_more_precise_result_never_widens_the_interval_3_sittings(paired, cal):
    """Three sittings that agree: one result's se varied, then all three's."""
    def width(ses):
        est = [Estimate(0.1, se, df, s) for se, df, s in zip(ses, (6.0, 19.0, 4.0), "abc")]
        return half_width(pool(est, QUIET[:cal], paired=[paired] * 3,
                               calibration_paired=QUIET_PAIRED[:cal]))
    for ses in ([(se, 0.02, 0.03) for se in SES], [(se, se, se) for se in SES]):
        widths = [width(s) for s in ses]
        assert all(b > a - RESOLUTION for a, b in zip(widths, widths[1:])), widths


def test_precise_results_that_disagree_widen_it_the_sittings_differ():
    """Not a failure of monotonicity but what the model is for: sittings at 8, 10 and 13% are
    explained by their own errors at se 2%, and only by a spread between sittings at se 0 (tau
    alone: the effect the same on every machine)."""
    def width(se):
        est = [Estimate(y, se, 6.0, s) for y, s in zip((0.08, 0.1, 0.13), "abc")]
        return half_width(pool(est, QUIET[:4], calibration_paired=QUIET_PAIRED[:4],
                               delta_scale=0.0))
    assert width(0.0) > width(0.02)


@pytest.mark.parametrize("estimates, match", [
    ([], "nothing to pool"),
    ([Estimate(math.nan, 0.01, 5.0)], "estimate 0"),
    ([Estimate(0.1, math.inf, 5.0)], "finite log ratio, a standard error"),
    ([Estimate(0.1, -0.01, 5.0)], "standard error >= 0"),
    ([Estimate(0.1, 0.01, 5.0), Estimate(0.1, 0.01, 0.0)], "estimate 1"),
    ([Estimate(0.1, 0.01, math.nan)], "degrees of freedom > 0")])
def test_bad_estimates_are_refused(estimates, match):
    with pytest.raises(ValueError, match=match):
        pool(estimates, QUIET)


def test_bad_calibrations_flags_and_confidence_are_refused():
    e = [Estimate(0.1, 0.01, 5.0)]
    with pytest.raises(ValueError, match="calibration estimate 1"):
        pool(e, [QUIET[0], replace(QUIET[1], se=-1.0)])
    with pytest.raises(ValueError, match="2 switchback flags for 1 estimate"):
        pool(e, [], paired=[True, False])
    with pytest.raises(ValueError, match="1 switchback flags for 16 calibration estimate"):
        pool(e, QUIET, calibration_paired=[True])
    for confidence in (0.5, 1.0, math.nan):
        with pytest.raises(ValueError, match="confidence"):
            pool(e, [], confidence=confidence)


def test_it_is_deterministic_and_the_order_of_sittings_does_not_matter():
    claim = [Estimate(0.1, 0.02, 6.0, "a"), Estimate(0.05, 0.01, 19.0, "b"),
             Estimate(0.14, 0.04, 2.5, "c")]
    first = pool(claim, QUIET, paired=[False, True, False], calibration_paired=QUIET_PAIRED)
    sitting_model._calibration_log_lik.cache_clear()
    again = pool(claim, QUIET, paired=[False, True, False], calibration_paired=QUIET_PAIRED)
    assert first == again
    turned = pool(claim[::-1], QUIET[::-1], paired=[False, True, False][::-1],
                  calibration_paired=QUIET_PAIRED[::-1])
    for a, b in zip((first.ratio, first.ci_low, first.ci_high),
                    (turned.ratio, turned.ci_low, turned.ci_high)):
        assert a == pytest.approx(b, rel=2e-3)
    assert first.method.startswith("pooled over 3 results from 3 sittings by a Bayesian")


def test_a_standard_error_of_0_is_the_floor():
    zero = pool([Estimate(0.1, 0.0, 5.0, "a")], QUIET, calibration_paired=QUIET_PAIRED)
    floor = pool([Estimate(0.1, likelihood_grid.SE_FLOOR, 5.0, "a")], QUIET,
                 calibration_paired=QUIET_PAIRED)
    assert zero == floor and 1.0 < zero.ci_high / zero.ratio < 1.2


def record(host_id: str) -> dict:
    """An A/A calibration record of that host: a switchback's and a restart's comparison."""
    switchback = make_doc(on_tps=[1000.0, 1100.0, 900.0, 1000.0],
                          off_tps=[1010.0, 1089.0, 909.0, 990.0])
    switchback["plan"]["design"] = "switchback"
    restart = make_doc(on_tps=[1000.0, 1100.0, 900.0], off_tps=[1000.0, 1050.0, 950.0])
    r = calibrations.record_of({"switchback": switchback, "restart": restart},
                               "2026-11-24T04:30:08+00:00", quick=True)
    return r | {"host": {**r["host"], "id": host_id}}


def test_calibration_of_flags_each_records_switchback():
    estimates, paired = sitting_model.calibration_of([record("a" * 16), record("b" * 16)])
    assert paired == [True, False, True, False]
    assert estimates == calibrations.aa_estimates(record("a" * 16)) + calibrations.aa_estimates(
        record("b" * 16))
