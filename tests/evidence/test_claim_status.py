"""Where each claim stands and what answering it would take here (evidence/claim_status.py, and
`invoke claims.status` in evidence/claims_text.py): the status lines against the committed results,
the time estimate (the pooled interval with one more result, rounds by bisection), what keeps a
claim from an answer here, and the order of the runs."""

import dataclasses
import math

import pytest

from helpers import fixture_recipe
from tuninglab.errors import UserError
from tuninglab.evidence import claim_jobs as cj
from tuninglab.evidence import claim_reach as cr
from tuninglab.evidence import claim_status as cs
from tuninglab.evidence import claim_verdicts, claims_map, claims_text, result_files
from tuninglab.evidence.claims_map import Claim
from tuninglab.evidence.sets import EvidenceSet
from tuninglab.recipes import plan as planner
from tuninglab.recipes.load import load
from tuninglab.results import pooling, precision_need, sitting_model
from tuninglab.results import verdicts as words

HERE = cs.Here(sitting="ffffffffffffffff")


@pytest.fixture
def committed(committed_data, monkeypatch):
    monkeypatch.setattr(result_files, "DATA_DIR", committed_data)
    return committed_data


def claim(**changes) -> Claim:
    fields = dict(id="c", source="s", table="t.csv", row="r", column="", source_baseline="",
                  source_ratio=1.30, recipe="doublewrite", variant="", point="OFF",
                  invert=False, metric="", headline=False, why="", topic="doublewrite")
    return Claim(**(fields | changes))


# --- the status lines --------------------------------------------------------------------------

def test_every_claim_has_one_line_with_its_verdict_need_and_what_it_would_take(committed):
    claims = claims_map.load_map()[0]
    found = cs.statuses(here=HERE)
    out = claims_text.status_report(here=HERE)
    lines = out.splitlines()
    assert lines[0].startswith("Claims: the verdict on the claim's first evidence set")
    for st in found:
        c = st.claim
        line = next(x for x in lines if x.startswith(f"  {c.id} ({c.topic}): "))
        assert f": {st.verdict.text}" in line and f"; needs {st.need.text}" in line
        if st.answered:
            assert line.endswith("; answered")
        elif st.reach:   # reaching the need here, or a sitting towards it
            assert (f"; here: {st.reach.rounds} rounds, about " in line or
                    f"; a sitting toward it here: {st.reach.rounds} rounds, about " in line)
        else:
            assert st.why and line.endswith(st.why)
        if st.verdict.kind == words.NOT_TESTABLE:
            assert st.block == cs.NOT_HERE and st.why.startswith(st.verdict.why)
            if st.verdict.rerun:  # the command that answers it on real hardware
                assert st.why.endswith(f"; answered {st.verdict.rerun}")
    assert len(found) == len(claims)
    answered = sum(st.answered for st in found)
    assert f"Answered {answered} of {len(claims)} claims. Open and answerable here: " in out
    assert lines[-1] == f"Estimates assume: {cs.ASSUMPTIONS}."


def test_the_totals_say_what_the_answers_took(committed):
    found = cs.statuses(here=HERE)
    answered = [st for st in found if st.answered]
    if not answered:
        pytest.skip("no claim is answered by the committed results")
    n, seconds = claims_text.evidence_time(found)
    results = {r.run_id for st in answered for r in st.verdict.evidence.results}
    assert n == len(results) and seconds > 60 * n  # every result ran for minutes
    line = next(x for x in claims_text.totals(found) if x.startswith("The answers rest on "))
    assert line == (f"The answers rest on {n} results, {claims_text.human_seconds(seconds)} "
                    "of runs (each result's start to its finish).")


def test_a_line_gives_the_pooled_ratio_and_the_width_it_has(committed):
    st = next(s for s in cs.statuses(here=HERE) if s.verdict.ratio is not None)
    line = claims_text.status_line(st)
    assert f"{st.verdict.kind}, x" in line and f", has ±{st.current_pct:.1f}%" in line
    assert math.isclose(st.current_pct, st.verdict.ratio.half_width_pct)


def test_a_topic_narrows_the_claims_and_an_unknown_one_is_refused(committed):
    found = cs.statuses("redo-size", HERE)
    assert found and {st.claim.topic for st in found} == {"redo-size"}
    assert claims_text.status_report("redo-size", HERE).startswith("Claims of topic redo-size")
    with pytest.raises(UserError, match=r"--topic 'nope': no claim has that topic; expected "
                                        r"one of .*redo-size"):
        cs.statuses("nope", HERE)


# --- the time a claim would take here ----------------------------------------------------------

@pytest.fixture
def tiny(tmp_path):
    fixture_recipe(tmp_path, "tiny")
    return planner.build(load("tiny", recipes_dir=tmp_path).experiment(), design="restart")


# Many quiet A/A sittings: the model's between-sitting spread is then small, and one result's
# own noise is most of a pooled interval.
QUIET = tuple(pooling.Estimate(0.002 * (-1) ** i, 0.004, 30, f"aa{i}") for i in range(12))


@pytest.fixture
def same_effect_everywhere(monkeypatch):
    """The effect the same on every machine (delta 0): one new result's own noise is then most
    of a pooled interval, which is what these tests of the rounds look at."""
    monkeypatch.setattr(sitting_model, "DELTA_SCALE", 0.0)


@pytest.mark.usefixtures("same_effect_everywhere")
def test_the_rounds_are_the_fewest_that_bring_the_pooled_interval_inside_the_need(tiny):
    pool = cr.Pool([], 0.0, QUIET, "me")
    need = precision_need.Need(10.0, "")
    r = cr.reach(pool, need, tiny, sd=0.2)
    aim = 10.0 * cr.AIM_INSIDE
    assert pool.half(0.2, r.rounds, "restart") <= aim < pool.half(0.2, r.rounds - 1, "restart")
    assert math.isclose(r.pooled_pct, pool.half(0.2, r.rounds, "restart"))
    bigger = dataclasses.replace(tiny.experiment.measure, repeats=r.rounds)
    assert r.seconds == planner.build(dataclasses.replace(tiny.experiment, measure=bigger),
                                      1, "restart").estimate()
    # quiet calibrations leave little between-sitting spread: the result's own width is most
    # of the pooled one
    assert abs(r.pooled_pct - r.result_pct) < 1


@pytest.mark.usefixtures("same_effect_everywhere")
def test_sampling_error_shrinks_with_the_square_root_of_the_rounds(tiny):
    pool = cr.Pool([], 0.0, QUIET, "me")
    wide = cr.reach(pool, precision_need.Need(10.0, ""), tiny, sd=0.2).rounds
    narrow = cr.reach(pool, precision_need.Need(5.0, ""), tiny, sd=0.2).rounds
    assert 3.3 < narrow / wide < 4.8  # half the width: about four times the rounds


@pytest.mark.usefixtures("same_effect_everywhere")
def test_what_more_rounds_cannot_shrink_makes_a_claim_out_of_reach(tiny):
    pool = cr.Pool([], 0.0, (), "me")  # no A/A calibrations: the priors' spread
    why = cr.reach(pool, precision_need.Need(3.52, ""), tiny, sd=0.2)
    assert why.startswith("out of reach from this sitting: 1000 rounds at this host's "
                          "per-round noise leave the pooled interval ±")
    assert "0 A/A calibration sittings" in why and why.endswith("the class's calibrations "
                                                                "narrow it)")
    assert not isinstance(cr.reach(cr.Pool([], 0.0, QUIET, "me"), precision_need.Need(3.52, ""),
                                   tiny, sd=0.2), str)


def test_where_the_effect_may_differ_between_machines_one_machine_adds_a_sitting_towards_it(
        tiny):
    """However quiet the class, one machine cannot tell how far the effect differs between
    machines: out of reach, and the run that adds its sitting stops where more rounds buy
    almost nothing."""
    pool = cr.Pool([], 0.0, QUIET, "me")
    why = cr.reach(pool, precision_need.Need(3.52, ""), tiny, sd=0.2)
    assert why.startswith("out of reach from this sitting")
    step = cr.toward(pool, tiny, sd=0.2)
    floor = pool.half(0.2, cr.MAX_REPEATS, "restart")
    assert step.pooled_pct <= floor * (1 + cr.TOWARD) < pool.half(0.2, step.rounds - 1,
                                                                      "restart")
    assert step.rounds < cr.MAX_REPEATS and step.seconds > 0


def test_the_noise_comes_from_earlier_results_else_the_hosts_figures_the_larger_of_both(
        committed, tiny):
    c = next(x for x in claims_map.load_map()[0] if x.recipe == "redo-size" and not x.variant)
    v = claim_verdicts.verdicts(c)[0]
    sd, basis = cs.round_sd(c, v, tiny, HERE)
    assert sd > 0 and basis.endswith(("(other profiles)", "(full)"))
    none = claim_verdicts.Verdict(words.NOT_MEASURED, words.NOT_MEASURED, None, None)
    assert cs.round_sd(c, none, tiny, HERE) == (None, "")
    figures = dataclasses.replace(HERE, noise_sd=lambda plan: 0.04)
    assert cs.round_sd(c, none, tiny, figures) == (0.04, "this host's lab.noise figures")
    # A host noisier than the earlier results' rounds plans from its own noise.
    noisy = dataclasses.replace(HERE, noise_sd=lambda plan: sd * 3)
    assert cs.round_sd(c, v, tiny, noisy) == (sd * 3, "this host's lab.noise figures "
                                              f"(noisier than {basis})")
    quiet = dataclasses.replace(HERE, noise_sd=lambda plan: sd / 3)
    assert cs.round_sd(c, v, tiny, quiet) == (sd, basis)


# --- what keeps a claim from an answer here ---------------------------------------------------

def test_a_claim_just_above_its_margin_needs_what_tells_it_from_no_effect(committed,
                                                                          monkeypatch):
    # Not measured yet, so its need is the source's alone (a result would add today's ratio's).
    # x1.035 against ±3%: no longer ±0.49% (the band's part inside ±3% is no effect worth
    # knowing), but what excludes 1 around it.
    unmeasured = claim_verdicts.Verdict(words.NOT_MEASURED, words.NOT_MEASURED, None, None)
    monkeypatch.setattr(claim_verdicts, "verdicts", lambda _: [unmeasured])
    c = claim(source_ratio=1.035, recipe="redo-size", variant="serie-i", point="128M")
    st = cs.status(c, HERE)
    assert st.verdict.kind == words.NOT_MEASURED and st.need_now is None
    assert st.need.reachable and st.need.pct >= 3 and st.block != cs.TOO_FINE


def test_a_lab_vm_throughput_claim_is_not_run_under_tcg(committed):
    c = claim(recipe="kernels", variant="pti", point="off", topic="kernels", source_ratio=1.75)
    st = cs.status(c, HERE)
    assert st.verdict.kind == words.NOT_MEASURED
    assert not st.open and st.block == cs.LAB_THROUGHPUT
    assert "(emulated CPU)" in st.why and "a host with KVM" in st.why


def test_under_kvm_a_one_disk_lab_recipe_answers_its_throughput_claim(committed):
    c = claim(recipe="kernels", variant="pti", point="off", topic="kernels", source_ratio=1.75)
    st = cs.status(c, dataclasses.replace(HERE, lab_kvm=True))
    assert st.block != cs.LAB_THROUGHPUT


def test_under_kvm_an_array_on_one_device_still_answers_no_throughput_claim(committed,
                                                                          monkeypatch):
    unmeasured = claim_verdicts.Verdict(words.NOT_MEASURED, words.NOT_MEASURED, None, None)
    monkeypatch.setattr(claim_verdicts, "verdicts", lambda _: [unmeasured])
    c = claim(recipe="raid-level", point="0", topic="raid", source_ratio=1.3)
    st = cs.status(c, dataclasses.replace(HERE, lab_kvm=True))
    assert st.block == cs.LAB_THROUGHPUT and "(disks on one device)" in st.why
    assert "real disks with --device" in st.why and "KVM" not in st.why


def test_a_regime_missed_by_every_run_of_this_profile_is_not_rerun_in_it():
    docs = ({"profile": "quick", "plan": {"repeats": 3}},)
    s = EvidenceSet("purge-threads", "", "mariadb 10.11", None, docs, ())
    v = claim_verdicts.Verdict(words.REGIME_NOT_REACHED, words.REGIME_NOT_REACHED, None,
                               None, evidence=s)
    assert cs._regime_open(v, "full") == (True, "")
    ok, why = cs._regime_open(v, "quick")
    assert not ok and why.startswith("every quick result missed the recipe's regime check")


# --- the runs, in order ------------------------------------------------------------------------

def status(cid, recipe, seconds=None, variant="", open_=True) -> cs.Status:
    v = claim_verdicts.Verdict(words.TOO_NOISY, words.TOO_NOISY, None, None)
    reach = cs.Reach(5, seconds, 8.0, 9.0) if seconds and open_ else None
    block = cs.OUT_OF_REACH if not open_ else "" if seconds else cs.UNKNOWN
    return cs.Status(claim(id=cid, recipe=recipe, variant=variant), v,
                     precision_need.Need(10.0, ""), None, open_, reach, block=block)


def test_runs_are_ordered_by_expected_answers_per_hour_unknown_times_last():
    found = [status("slow", "a", 3600), status("unknown", "b"), status("fast", "c", 600),
             status("two-1", "d", 1800), status("two-2", "d", 1200),
             status("closed", "e", 60, open_=False), status("variant", "a", 900, "v")]
    jobs = cj.jobs(found)
    assert [j.label for j in jobs] == ["c", "d", "a:v", "a", "b"]
    two = jobs[1]
    assert two.seconds == 1800 and two.per_hour == pytest.approx(4.0)  # one run, 2 answers
    assert jobs[-1].seconds is None and jobs[-1].per_hour == 0.0
    assert cj.blocked(found) == {cs.OUT_OF_REACH: 1}


def test_a_claim_too_noisy_aims_at_the_need_at_todays_ratio(committed):
    noisy = [st for st in cs.statuses(here=HERE) if st.verdict.kind == words.TOO_NOISY]
    if not noisy:
        pytest.skip("no claim is too noisy to tell in the committed results")
    for st in noisy:
        assert st.need_now is not None and st.aim is st.need_now
        assert f"(±{st.need_now.pct:g}% at today's x" in claims_text.status_line(st)
        if st.reach and st.block != cs.OUT_OF_REACH:
            assert st.reach.pooled_pct <= st.need_now.pct
