"""Which design a claim's rerun here uses (issue 62, evidence/claim_status.py: choose): the
recipe's on the whole machine, or a duet on half of it where a duet may measure the recipe and
answers the claim sooner; the new result's estimate per design (claim_reach.py), the runs per
design (claim_jobs.py), the campaign's and `invoke recipe --budget`'s design, and the status
line that says which."""

import dataclasses
import math

import pytest

from tuninglab import campaign
from tuninglab.evidence import claim_jobs as cj
from tuninglab.evidence import claim_reach as cr
from tuninglab.evidence import claim_status as cs
from tuninglab.evidence import claim_verdicts, claims_text
from tuninglab.evidence.claims_map import Claim
from tuninglab.evidence.host_class import HostClass
from tuninglab.recipes import plan as planner
from tuninglab.recipes.duets import duet_obstacle
from tuninglab.recipes.load import load
from tuninglab.results import precision_need
from tuninglab.results import verdicts as words

WHOLE = HostClass("m", "a machine", "a machine", False, False)
DUET = HostClass("d", "duet, 1 of 2 CPUs a server on a machine", "duet", False, False, True)
HERE = cs.Here(sitting="ffffffffffffffff", server="mariadb 10.11", machine=WHOLE,
               duet_machine=DUET)


def claim(**changes) -> Claim:
    fields = dict(id="c", source="s", table="t.csv", row="r", column="", source_baseline="",
                  source_ratio=1.30, recipe="doublewrite", variant="", point="OFF",
                  invert=False, metric="", headline=False, why="", topic="doublewrite")
    return Claim(**(fields | changes))


def status(seconds=None, kind=words.TOO_NOISY, block="", design=None, **changes) -> cs.Status:
    v = claim_verdicts.Verdict(kind, kind, None, None)
    reach = cr.Reach(4, seconds, 8.0, 9.0) if seconds else None
    return cs.Status(claim(**changes), v, precision_need.Need(10.0, ""), None,
                     bool(reach) or block == cs.UNKNOWN, reach, block=block, design=design)


# --- the choice --------------------------------------------------------------------------------

@pytest.mark.parametrize("whole, duet, chosen, beside", [
    (status(3600), status(1200, design="duet"), "duet",
     "the whole machine: 4 rounds, about 1h00m"),
    (status(1200), status(3600, design="duet"), None,
     "a duet (half the machine): 4 rounds, about 1h00m"),
    (status(3600), status(block=cs.OUT_OF_REACH, design="duet"), None,
     f"a duet (half the machine): {cs.OUT_OF_REACH}"),
    (status(block=cs.OUT_OF_REACH), status(1200, design="duet"), "duet",
     f"the whole machine: {cs.OUT_OF_REACH}"),
    (status(block=cs.UNKNOWN), status(1200, design="duet"), "duet",
     f"the whole machine: {cs.UNKNOWN}"),
    (status(3600), status(kind=words.REPRODUCED, design="duet"), "duet",
     "the whole machine: 4 rounds, about 1h00m"),
    (status(block=cs.UNKNOWN), status(block=cs.UNKNOWN, design="duet"), None,
     f"a duet (half the machine): {cs.UNKNOWN}"),
    # A duet's evidence that found the source in doubt settles the claim on its class: the
    # campaign says "too noisy to tell -> source in doubt", not the whole machine's "not
    # measured yet" (the first duet the campaign chose, doublewrite on MariaDB 11.8).
    (status(block=cs.OUT_OF_REACH, kind=words.NOT_MEASURED),
     status(kind=words.SOURCE_IN_DOUBT, block=cs.DOUBTED, design="duet"), "duet",
     f"the whole machine: {cs.OUT_OF_REACH}"),
])
def test_the_duet_is_chosen_where_it_answered_or_reaches_the_need_sooner(whole, duet, chosen,
                                                                           beside):
    st = cs.choose(whole, duet)
    assert st.design == chosen and st.beside == beside


def canned(monkeypatch, whole: cs.Status, duet: cs.Status) -> list:
    """_status gives `whole` on the whole machine and `duet` on the duet's class; the Heres
    it was asked for."""
    asked = []

    def fake(c, here, v=None):
        asked.append(here)
        return dataclasses.replace(duet if here.design == "duet" else whole, claim=c)
    monkeypatch.setattr(cs, "_status", fake)
    return asked


def test_a_duet_is_weighed_on_the_duet_class_for_a_recipe_a_duet_may_measure(monkeypatch):
    asked = canned(monkeypatch, status(3600), status(600))
    st = cs.status(claim(), HERE)
    assert st.design == "duet" and st.reach.seconds == 600
    assert [(h.design, h.machine) for h in asked] == [(None, WHOLE), ("duet", DUET)]
    assert asked[1].duet_machine is None   # the duet's own status weighs nothing more


@pytest.mark.parametrize("changes", [
    dict(recipe="flush-log-at-trx-commit", variant="log-writer-threads", point="OFF"),
    dict(recipe="concurrency", point="32"),   # a sweep of the load's threads
    dict(recipe="doublewrite", variant="modes", point="OFF"),   # four points
])
def test_no_duet_is_weighed_where_the_recipe_cannot_have_one(monkeypatch, changes):
    asked = canned(monkeypatch, status(3600), status(600))
    st = cs.status(claim(**changes), HERE)
    assert st.design is None and st.beside == "" and len(asked) == 1


@pytest.mark.parametrize("whole", [
    status(kind=words.REPRODUCED),
    status(kind=words.SOURCE_IN_DOUBT, block=cs.DOUBTED),
    status(kind=words.NOT_TESTABLE, block=cs.NOT_HERE),
    status(block=cs.LAB_THROUGHPUT),
])
def test_no_duet_is_weighed_for_a_claim_answered_or_no_rerun_answers(monkeypatch, whole):
    asked = canned(monkeypatch, whole, status(600))
    assert cs.status(claim(), HERE).design is None and len(asked) == 1


def test_without_a_duet_class_known_here_no_duet_is_weighed(monkeypatch):
    asked = canned(monkeypatch, status(3600), status(600))
    assert cs.status(claim(), dataclasses.replace(HERE, duet_machine=None)).design is None
    assert len(asked) == 1


def test_the_recipe_that_opts_out_says_why():
    e = load("flush-log-at-trx-commit", variant="log-writer-threads").experiment("full")
    assert "needs the whole machine" in duet_obstacle(e)


# --- the new result's estimate and noise per design -------------------------------------------

@pytest.mark.parametrize("design, df, paired", [
    ("switchback", 5, True), ("duet", 10, True), ("restart", 10, False)])
def test_a_new_result_pools_as_its_design_gives(design, df, paired):
    e = cr.new_estimate(0.1, 0.06, 6, design, "me")
    assert (e.df, e.paired, e.sitting) == (df, paired, "me")
    assert e.se == pytest.approx(0.06 / math.sqrt(6))


def test_a_duets_round_is_a_repeat_of_two_halves():
    """The noise figures give a half's sd; a duet's round (a repeat) averages its two halves,
    one in each place, as a result's estimate does (pooling.placed_estimate)."""
    c = claim()
    e = load("doublewrite").experiment("full")
    duet, restart = planner.build(e, design="duet"), planner.build(e, design="restart")
    here = dataclasses.replace(HERE, noise_sd=lambda plan: 0.1)
    none = claim_verdicts.Verdict(words.NOT_MEASURED, words.NOT_MEASURED, None, None)
    assert cs.round_sd(c, none, duet, here)[0] == pytest.approx(0.1 / math.sqrt(2))
    assert cs.round_sd(c, none, restart, here)[0] == pytest.approx(0.1)


# --- the runs, the campaign and the words ------------------------------------------------------

def test_a_recipes_claims_run_once_per_design():
    found = [status(600, id="a"), status(900, id="b", design="duet"),
             status(1200, id="c", design="duet")]
    jobs = cj.jobs(found)
    assert [(j.label, j.design, len(j.statuses)) for j in jobs] == [
        ("doublewrite", None, 1), ("doublewrite", "duet", 2)]


def test_the_campaign_runs_a_duet_job_as_a_duet(monkeypatch, tmp_path):
    ran = []
    monkeypatch.setattr(campaign.runner, "run_all",
                        lambda name, opts, variant, say: ran.append((name, opts.design)))
    job = cj.Job("doublewrite", "", (status(600, design="duet"),), "duet")
    campaign._one(job, 600, HERE, tmp_path, "full", lambda _: None)
    assert ran == [("doublewrite", "duet")]
    line = campaign.job_line(1, job, 900, tmp_path, "full")
    assert line.startswith("  1. doublewrite as a duet (each server on half the machine): "
                           "1 claim, 4 rounds")


def test_a_duet_job_resumes_its_own_interrupted_run(tmp_path):
    duet = cj.Job("doublewrite", "", (status(600, design="duet"),), "duet")
    whole = cj.Job("doublewrite", "", (status(900),))
    progress = campaign._progress(tmp_path, duet, "full")
    assert progress.name == "doublewrite-full-duet.json"
    assert campaign._progress(tmp_path, whole, "full").name == "doublewrite-full.json"
    progress.parent.mkdir()
    progress.write_text("{}")
    assert campaign.ordered([whole, duet], tmp_path, "full") == [duet, whole]


def test_recipe_budget_aims_at_the_evidence_its_design_adds_to(monkeypatch):
    seen = []
    monkeypatch.setattr(cs, "status", lambda c, here: seen.append(here) or status(600))
    monkeypatch.setattr(cs, "chosen", lambda: [claim()])
    campaign.recipe_aims("doublewrite", HERE, "duet")
    campaign.recipe_aims("doublewrite", HERE)
    assert [(h.design, h.machine, h.duet_machine) for h in seen] == [
        ("duet", DUET, None), (None, WHOLE, None)]


def test_the_status_report_names_the_duet_class_it_weighs(monkeypatch):
    monkeypatch.setattr(cs, "statuses", lambda *a: [status(600, design="duet")])
    head = claims_text.status_report(here=HERE, claims=[claim()]).splitlines()[0]
    assert ("the evidence a result from this host would join (mariadb 10.11, a machine; a "
            "duet's, where one is weighed: mariadb 10.11, duet, 1 of 2 CPUs a server on a "
            "machine)") in head


def test_the_status_line_says_a_duet_and_what_the_whole_machine_would_take():
    st = dataclasses.replace(status(600, design="duet"), basis="this host's lab.noise figures",
                             beside="the whole machine: 4 rounds, about 1h00m")
    assert claims_text.here_text(st) == (
        "here as a duet (each server on half the machine): 4 rounds, about 10m00s (to ±9.0% "
        "pooled; noise from this host's lab.noise figures); instead: the whole machine: 4 "
        "rounds, about 1h00m")
    doubted = dataclasses.replace(
        status(kind=words.SOURCE_IN_DOUBT, block=cs.DOUBTED, design="duet"),
        why="its caveat puts the source's ratio in doubt", beside="the whole machine: out")
    assert claims_text.here_text(doubted) == (
        "on a duet's class (each server on half the machine): its caveat puts the source's "
        "ratio in doubt; instead: the whole machine: out")
    answered = status(kind=words.REPRODUCED, design="duet")
    assert claims_text.here_text(answered) == \
        "answered on a duet's class (each server on half the machine)"


def test_the_campaigns_first_line_names_the_duet_class_its_duets_add_to(monkeypatch, tmp_path):
    monkeypatch.setattr(campaign, "here", lambda *a, **k: HERE)
    monkeypatch.setattr(cs, "statuses", lambda *a: [status(600, design="duet")])
    said = []
    campaign.rerun(budget="1h", dry_run=True, workdir=tmp_path, say=said.append)
    assert said[0].startswith("Campaign (profile full, budget 1h00m, host ffffffff, adding to "
                              "mariadb 10.11, a machine; its duets to mariadb 10.11, duet, 1 of "
                              "2 CPUs a server on a machine): 1 run for the open claims")
    assert said[1].startswith("  1. doublewrite as a duet (each server on half the machine): ")
