"""The precision a claim needs (results/precision_need.py), proved against verdicts.judge: an
interval of that half-width centred on the source's ratio or on 1 gets an answer; one slightly
wider can be "too noisy to tell"."""

import math

import pytest

from tuninglab.results import precision_need as pn
from tuninglab.results import verdicts as words


def interval(centre: float, pct: float) -> words.Interval:
    """A log-symmetric 95% interval of half-width pct (± % of the ratio) around centre, with
    the equivalence test's 90% interval as the normal quantiles make it."""
    a = pn.log_of_pct(pct)
    b = a * pn.TOST_TO_CI
    return words.Interval(centre * math.exp(-a), centre * math.exp(a),
                          centre * math.exp(-b), centre * math.exp(b))


EFFECTS = [(1.30, 0.03, 0.0), (1.106, 0.03, 0.0), (0.625, 0.03, 0.0), (2.0, 0.05, 0.0),
           (0.80, 0.03, 0.10), (1.08, 0.05, 0.0)]
NO_DIFFERENCE = [(1.01, 0.03, 0.0), (0.96, 0.03, 0.10), (1.0, 0.05, 0.0), (1.028, 0.03, 0.0)]


@pytest.mark.parametrize("source,margin,noise", EFFECTS)
def test_a_claimed_effect_is_answered_at_its_need_from_the_source_or_from_one(source, margin,
                                                                            noise):
    need = pn.need(source, margin, noise)
    assert not words.no_difference_claimed(source, margin, noise)
    for centre in (source, 1.0):
        verdict = words.judge(source, interval(centre, need.pct), margin, noise)
        assert verdict in words.ANSWERS, (centre, need, verdict)
    # Centred on the source's ratio it is reproduced, on 1 not reproduced or no effect worth
    # knowing (inside ±X).
    assert words.judge(source, interval(source, need.pct), margin, noise) == words.REPRODUCED
    assert words.judge(source, interval(1.0, need.pct), margin, noise) in (words.NOT_REPRODUCED,
                                                                           words.NO_EFFECT)


@pytest.mark.parametrize("source,margin,noise", EFFECTS)
def test_a_claimed_effect_slightly_wider_than_its_need_can_be_too_noisy(source, margin, noise):
    wider = pn.need(source, margin, noise).pct * 1.01 + 0.02
    if wider >= pn.MAX_NEED_PCT:
        pytest.skip("capped: any interval a run gives answers it")
    assert words.TOO_NOISY in {words.judge(source, interval(centre, wider), margin, noise)
                               for centre in (source, 1.0)}


@pytest.mark.parametrize("source,margin,noise", NO_DIFFERENCE)
def test_a_claim_of_no_difference_needs_equivalence_within_the_margin(source, margin, noise):
    need = pn.need(source, margin, noise)
    assert words.no_difference_claimed(source, margin, noise)
    assert words.judge(source, interval(1.0, need.pct), margin, noise) == words.REPRODUCED
    wider = need.pct * 1.01 + 0.02
    assert words.TOO_NOISY in {words.judge(source, interval(centre, wider), margin, noise)
                               for centre in (source, 1.0)}


def test_the_numbers_of_known_claims():
    # x1.30 against ±3%: ln(1.30/1.03) = 0.233, sinh = 23.49%
    assert pn.need(1.30, 0.03).pct == 23.49
    # no difference within ±3%: ln(1.03) / 0.839 = 0.0352
    assert pn.need(1.0, 0.03).pct == 3.52
    assert pn.need(1.0, 0.03).decides.startswith("equivalent within ±3%")
    assert pn.need(1.30, 0.03).decides == "x1.30 (within ±3%) from no effect"


def test_an_effect_just_above_the_margin_needs_what_tells_it_from_no_effect():
    # x1.035 against ±3%: centred on it, an interval answers while it excludes 1 (ln 1.035 =
    # 0.0344); the band's part inside ±3% no longer asks for ±0.49%
    near = pn.need(1.035, 0.03)
    assert near.pct == 3.44 and near.reachable


def test_a_need_narrower_than_any_run_gives_is_out_of_reach():
    tight = pn.need(1.004, 0.001)  # an effect of 0.4% against a margin of 0.1%
    assert tight.pct < pn.MIN_NEED_PCT and not tight.reachable
    assert tight.text.endswith("(out of reach)")


def test_a_large_effect_is_capped():
    assert pn.need(0.15, 0.03).pct == pn.MAX_NEED_PCT and pn.need(0.15, 0.03).reachable


def test_the_need_is_strictly_inside_the_boundary():
    source, margin = 1.30, 0.03
    exact = pn.pct_of_log(math.log(source) - math.log1p(margin))
    assert pn.need(source, margin).pct < exact


@pytest.mark.parametrize("source,margin", [(0, 0.03), (-1, 0.03), (1.2, 0)])
def test_bad_inputs_are_refused(source, margin):
    with pytest.raises(ValueError):
        pn.need(source, margin)


CENTRES = [1.0, 1.05, 1.1, 1.15, 1.2, 1.3, 1.45, 0.9]


@pytest.mark.parametrize("source,margin,noise", EFFECTS + NO_DIFFERENCE)
@pytest.mark.parametrize("centre", CENTRES)
def test_an_interval_on_todays_ratio_answers_at_its_need_there(source, margin, noise, centre):
    now = pn.need_at(source, margin, noise, centre)
    if not now.reachable:
        pytest.skip("today's ratio sits on a boundary: no run answers it there")
    assert words.judge(source, interval(centre, now.pct), margin, noise) in words.ANSWERS
    wider = now.pct * 1.01 + 0.02
    if wider < pn.MAX_NEED_PCT:
        assert words.judge(source, interval(centre, wider), margin, noise) == words.TOO_NOISY


@pytest.mark.parametrize("source,margin,noise", EFFECTS + NO_DIFFERENCE)
def test_on_the_sources_ratio_or_on_one_the_need_there_is_no_tighter(source, margin, noise):
    need = pn.need(source, margin, noise).pct
    assert pn.need_at(source, margin, noise, 1.0).pct >= need
    if not words.no_difference_claimed(source, margin, noise):
        assert pn.need_at(source, margin, noise, source).pct >= need
