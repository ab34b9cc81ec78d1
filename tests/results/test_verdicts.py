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
