"""The claim's verdict sized against the source's ratio (results/verdicts.py)."""

import pytest

from tuninglab.results import verdicts as v


def iv(low, high, tost=None):
    tl, th = tost or (low, high)
    return v.Interval(low, high, tl, th)


@pytest.mark.parametrize("source, interval, expected", [
    (1.30, iv(1.10, 1.40), v.REPRODUCED),          # holds S, excludes 1
    (1.30, iv(1.02, 1.27), v.REPRODUCED),          # within the 3% margin of S
    (1.30, iv(1.02, 1.15), v.SMALLER),             # real, and smaller than claimed
    (1.30, iv(1.50, 1.90), v.LARGER),
    (0.50, iv(0.70, 0.90), v.SMALLER),             # a slowdown, smaller than claimed
    (0.50, iv(0.20, 0.40), v.LARGER),
    (0.50, iv(0.45, 0.60), v.REPRODUCED),
    (1.30, iv(0.80, 0.95), v.REVERSED),
    (0.50, iv(1.05, 1.20), v.REVERSED),
    (1.30, iv(0.90, 1.40), v.TOO_NOISY),           # holds 1 and S
    # The cases: an interval that rules the claim out is never "too noisy".
    (1.30, iv(0.75, 1.20), v.NOT_REPRODUCED),      # redo-size 1G vs 48M
    (1.56, iv(0.85, 1.34), v.NOT_REPRODUCED),      # CFQ (bfq today)
    (1.16, iv(0.97, 1.05), v.NOT_REPRODUCED),      # read-ahead off
])
def test_a_claimed_effect_is_judged_by_its_size(source, interval, expected):
    assert v.judge(source, interval, margin=0.03) == expected


def test_a_source_effect_under_the_margin_is_a_claim_of_no_difference():
    assert v.no_difference_claimed(1.028, 0.03)
    assert v.judge(1.028, iv(0.97, 1.03, (0.98, 1.02)), 0.03) == v.REPRODUCED
    assert v.judge(1.028, iv(1.05, 1.10), 0.03) == v.NOT_REPRODUCED
    assert v.judge(1.028, iv(0.90, 1.10), 0.03) == v.TOO_NOISY


def test_a_source_effect_within_its_own_stated_noise_is_tested_for_equivalence():
    # deadline vs noop x0.96 with the source's ±10% run-to-run swing
    assert v.no_difference_claimed(0.96, 0.03, source_noise=0.10)
    assert not v.no_difference_claimed(0.96, 0.03)
    assert v.judge(0.96, iv(0.90, 1.08), 0.03, source_noise=0.10) == v.TOO_NOISY
    assert v.judge(0.96, iv(0.99, 1.01), 0.03, source_noise=0.10) == v.REPRODUCED


def test_every_verdict_is_defined_once():
    assert set(v.ANSWERS) <= set(v.VOCABULARY)
    assert all(text and text[0].islower() for text in v.VOCABULARY.values())


def test_a_source_ratio_must_be_positive():
    with pytest.raises(ValueError, match="must be > 0"):
        v.judge(0.0, iv(0.9, 1.1), 0.03)


# --- the margin stated (issue 59) -------------------------------------------------------------

def test_a_claim_of_no_difference_is_not_reproduced_only_wholly_outside_the_margin():
    # deadline vs noop on the Xeon class: x0.95 [0.91, 0.999] excludes 1, mostly inside ±3%
    assert v.judge(0.96, iv(0.91, 0.999, (0.92, 0.99)), 0.03, source_noise=0.10) == v.TOO_NOISY
    assert v.judge(0.96, iv(0.90, 0.96), 0.03, source_noise=0.10) == v.NOT_REPRODUCED
    assert v.judge(1.028, iv(1.031, 1.10), 0.03) == v.NOT_REPRODUCED


def test_a_claimed_effect_inside_the_margin_today_is_no_effect_worth_knowing():
    assert v.judge(1.30, iv(0.98, 1.025, (0.985, 1.02)), 0.03) == v.NO_EFFECT
    # excluding 1 does not make a 2% effect one worth knowing
    assert v.judge(1.30, iv(1.004, 1.028, (1.006, 1.026)), 0.03) == v.NO_EFFECT
    assert v.judge(0.50, iv(0.975, 1.01, (0.98, 1.005)), 0.03) == v.NO_EFFECT
    assert v.NO_EFFECT in v.ANSWERS


def test_a_claimed_band_leaves_out_its_part_inside_the_margin():
    # serie H: x1.035 with a 3% margin is judged against x1.03..x1.066, not x1.005
    low, high = v.band(1.035, 0.03)
    assert low == pytest.approx(1.03) and high == pytest.approx(1.035 * 1.03)
    assert v.band(0.50, 0.03) == pytest.approx((0.50 / 1.03, 0.50 * 1.03))
    assert v.band(1.028, 0.03) == pytest.approx((1 / 1.03, 1.03))    # no difference claimed
    assert v.band(0.97, 0.03) == pytest.approx((0.97 / 1.03, 1 / 1.03))
    # an interval that excludes 1 but stops short of the band is smaller than claimed
    assert v.judge(1.035, iv(1.005, 1.029, (1.008, 1.031)), 0.03) == v.SMALLER
    assert v.judge(1.035, iv(1.05, 1.33), 0.03) == v.REPRODUCED


def test_a_verdict_says_what_it_was_judged_against():
    assert v.band_text(1.035, 0.03) == "x1.035 ±3% (x1.030 to x1.066)"
    assert v.band_text(1.30, 0.05) == "x1.3 ±5% (x1.238 to x1.365)"
    assert v.band_text(1.028, 0.03) == "no difference (±3%)"


def test_a_caveat_lowers_an_answer_that_judges_the_source_to_source_in_doubt():
    """Issue 59: serie H's source lists doublewrite off in its base configuration too, so
    [1.05, 1.33] "reproduced" its x1.035 only by a ratio the source cannot support."""
    serie_h = iv(1.05, 1.33, (1.07, 1.30))
    assert v.judge(1.035, serie_h, 0.03) == v.REPRODUCED
    assert v.doubted(v.REPRODUCED, serie_h, 0.03) == v.SOURCE_IN_DOUBT
    for kind in (v.SMALLER, v.LARGER, v.NOT_REPRODUCED, v.REVERSED):
        assert v.doubted(kind, serie_h, 0.03) == v.SOURCE_IN_DOUBT
    # what judges nothing of the source stays; equivalence still answers
    for kind in (v.NO_EFFECT, v.TOO_NOISY, v.REGIME_NOT_REACHED):
        assert v.doubted(kind, serie_h, 0.03) == kind
    inside = iv(0.98, 1.025, (0.985, 1.02))
    assert v.doubted(v.REPRODUCED, inside, 0.03) == v.NO_EFFECT
    assert v.SOURCE_IN_DOUBT in v.VOCABULARY and v.SOURCE_IN_DOUBT not in v.ANSWERS
    judged = v.band_text(1.035, 0.03)
    assert v.doubted_band(judged).startswith(judged) and "caveat" in v.doubted_band(judged)


def test_a_caveated_verdict_says_what_was_measured_and_the_doubt():
    """A measured "larger than claimed" is not hidden by the doubt; "too noisy" never reads
    without it."""
    assert v.doubted_text(v.LARGER, v.SOURCE_IN_DOUBT) == f"{v.LARGER}; {v.IN_DOUBT}"
    assert v.doubted_text(v.TOO_NOISY, v.TOO_NOISY) == f"{v.TOO_NOISY}; {v.IN_DOUBT}"
    # a claim of no difference "reproduced" within the margin reads as what doubted() keeps
    assert v.doubted_text(v.REPRODUCED, v.NO_EFFECT).startswith(v.NO_EFFECT + "; ")
