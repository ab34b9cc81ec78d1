"""pooling: one result's estimate against stats' comparisons, and the pooled interval's shape."""

import math
from dataclasses import replace

import pytest

from tuninglab.results import pooling, stats
from tuninglab.results.pooling import Estimate

POINT = [1100.0, 1150.0, 1080.0, 1120.0]
BASE = [1000.0, 1040.0, 990.0]


def test_an_estimate_has_compares_ratio_and_at_k_1_its_interval():
    e = pooling.estimate(POINT, BASE)
    c = stats.compare(POINT, BASE)
    assert math.exp(e.log_ratio) == pytest.approx(c.ratio)
    p = pooling.pool([e], between_sd=0.0)
    assert (p.ratio, p.ci_low, p.ci_high) == pytest.approx((c.ratio, c.ci_low, c.ci_high))
    assert (p.tost_low, p.tost_high) == pytest.approx((c.tost_low, c.tost_high))
    assert p.k == p.sittings == 1


def test_a_paired_estimate_is_compare_paireds():
    values, base = [1010.0, 1090.0, 905.0, 995.0], [1000.0, 1100.0, 900.0, 1000.0]
    e = pooling.estimate(values, base, paired=True)
    c = stats.compare_paired(values, base)
    p = pooling.pool([e], between_sd=0.0)
    assert e.df == 3
    assert (p.ratio, p.ci_low, p.ci_high) == pytest.approx((c.ratio, c.ci_low, c.ci_high))
    with pytest.raises(ValueError, match="paired values"):
        pooling.estimate(values, base[:3], paired=True)


@pytest.mark.parametrize("values, base", [([1000.0], BASE), (POINT, [1000.0]),
                                          ([0.0, 10.0], BASE), ([5.0, 5.0], [5.0, 5.0])])
def test_no_estimate_without_two_repeats_a_logarithm_or_any_spread(values, base):
    assert pooling.estimate(values, base) is None


def test_k_1_with_a_between_sitting_sd_is_its_interval_widened():
    e = Estimate(0.1, 0.02, 10.0, "a")
    alone = pooling.pool([e], between_sd=0.0)
    wider = pooling.pool([e], between_sd=0.05, between_from="6 A/A sittings",
                         between_sittings=6)
    assert wider.ratio == pytest.approx(alone.ratio)
    assert wider.ci_low < alone.ci_low and wider.ci_high > alone.ci_high
    assert wider.between_from == "6 A/A sittings" and wider.between_sd == pytest.approx(0.05)


def test_identical_estimates_pool_to_their_ratio_and_narrower():
    e = Estimate(0.2, 0.05, 4.0)
    one = pooling.pool([replace(e, sitting="a")], between_sd=0.0)
    three = pooling.pool([replace(e, sitting=s) for s in "abc"], between_sd=0.0)
    assert three.ratio == pytest.approx(math.exp(0.2))
    assert three.ci_low > one.ci_low and three.ci_high < one.ci_high
    assert three.k == 3 and three.sittings == 3


def test_results_of_one_sitting_share_its_deviation():
    same = [Estimate(0.2, 0.05, 4.0, "a") for _ in range(3)]
    apart = [Estimate(0.2, 0.05, 4.0, s) for s in "abc"]
    one = pooling.pool(same, between_sd=0.1)
    three = pooling.pool(apart, between_sd=0.1)
    assert one.sittings == 1 and one.k == 3
    # one sitting's deviation is counted once however many results it holds
    assert one.ci_high / one.ci_low > three.ci_high / three.ci_low


def test_more_sittings_narrow_the_interval():
    widths = []
    for n in (2, 3, 5):
        p = pooling.pool([Estimate(0.1 * (i % 2), 0.03, 6.0, str(i)) for i in range(n)],
                         between_sd=0.05, between_sittings=8)
        widths.append(p.ci_high / p.ci_low)
    assert widths[0] > widths[1] > widths[2]


def test_without_a_calibration_the_fallback_is_stated_and_wider_than_none():
    es = [Estimate(0.1, 0.03, 6.0, "a"), Estimate(0.12, 0.03, 6.0, "b")]
    fallback = pooling.pool(es)
    known0 = pooling.pool(es, between_sd=0.0, between_from="the class's 6 A/A sittings")
    assert fallback.between_sd == pooling.FALLBACK_BETWEEN_SD
    assert "no A/A calibrations" in fallback.between_from and "assumed" in fallback.method
    assert fallback.ci_low < known0.ci_low and fallback.ci_high > known0.ci_high
    assert "the class's 6 A/A sittings" in known0.method


def test_sittings_that_disagree_widen_it_but_never_past_their_own_intervals():
    es = [Estimate(math.log(0.225), 0.023, 3.5, "a"), Estimate(math.log(0.282), 0.041, 2.6, "b")]
    p = pooling.pool(es, between_sd=0.0)
    assert p.between_sd > 0.1 and "widened" in p.between_from
    # Hartung-Knapp's t on 1 df gave [0.06, 1.04]; the hull of the two intervals is the bound
    own = [stats.t_quantile(0.95, e.df) * e.se for e in es]
    assert p.ci_low >= math.exp(es[0].log_ratio - own[0]) - 1e-12
    assert p.ci_high <= math.exp(es[1].log_ratio + own[1]) + 1e-12
    assert p.ci_high < 0.5


def test_bad_input_is_refused():
    with pytest.raises(ValueError, match="nothing to pool"):
        pooling.pool([])
    with pytest.raises(ValueError, match="standard error"):
        pooling.pool([Estimate(0.1, -1.0, 3.0)])
    with pytest.raises(ValueError, match="between_sd"):
        pooling.pool([Estimate(0.1, 0.1, 3.0)], between_sd=float("nan"))
    with pytest.raises(ValueError, match="nothing to weigh"):
        pooling.pool([Estimate(0.1, 0.0, 3.0)], between_sd=0.0)


def test_a_sitting_known_almost_exactly_does_not_divide_by_zero():
    """The campaign's floor (a new result of sd 1e-9) beside a real sitting: DerSimonian-Laird's
    denominator, total - sum(w^2) / total, cancelled to 0 in floating point."""
    from tuninglab.results.pooling import _Sitting, dl_tau2
    assert dl_tau2([_Sitting(0.1255, 0.0217, 13.8), _Sitting(0.1255, 5e-19, 2.0)]) == 0.0
    three = [_Sitting(0.1, 0.01, 5), _Sitting(0.3, 0.02, 5), _Sitting(-0.1, 0.015, 5)]
    w = [1 / s.var for s in three]
    mean = sum(wi * s.y for wi, s in zip(w, three)) / sum(w)
    q = sum(wi * (s.y - mean) ** 2 for wi, s in zip(w, three))
    assert dl_tau2(three) == pytest.approx((q - 2) / (sum(w) - sum(x * x for x in w) / sum(w)))


# --- a duet's halves, their places cancelled (issue 62) -------------------------------------

def test_a_duets_estimate_cancels_the_place_and_keeps_its_spread_out_of_the_error():
    # the point 10% faster; whoever has the first place 20% faster again; 1% noise
    first = [True, False, False, True, True, False]
    noise = [1.01, 0.99, 1.0, 1.0, 0.99, 1.01]
    values = [1100 * (1.2 if f else 1) * n for f, n in zip(first, noise)]
    base = [1000 * (1 if f else 1.2) for f in first]
    e = pooling.placed_estimate(values, base, first)
    assert math.exp(e.log_ratio) == pytest.approx(1.1, rel=0.01)
    assert e.se < 0.01 and e.df == 4 and e.paired
    # paired by half alone, the place's +-20% is all error
    assert pooling.estimate(values, base, paired=True).se > 10 * e.se


def test_a_duet_of_one_repeat_or_all_in_one_place_gives_no_estimate():
    assert pooling.placed_estimate([1.1, 1.2], [1.0, 1.0], [True, False]) is None
    assert pooling.placed_estimate([1.1, 1.2, 1.3], [1.0] * 3, [True] * 3) is None
    with pytest.raises(ValueError, match="expected one of each per half"):
        pooling.placed_estimate([1.1, 1.2, 1.3], [1.0] * 3, [True, False])
