"""Which design a claim's rerun here uses (evidence/claim_status.py): always the recipe's on the
whole machine, since a duet's results (each server on half the machine) never answer a claim;
the new result's estimate per design (claim_reach.py), and `invoke recipe --budget`'s aims on
the evidence its design adds to."""

import dataclasses
import math

import pytest

from tuninglab import campaign
from tuninglab.evidence import claim_reach as cr
from tuninglab.evidence import claim_status as cs
from tuninglab.evidence import claim_verdicts
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


def status(seconds=None, kind=words.TOO_NOISY, block="", **changes) -> cs.Status:
    v = claim_verdicts.Verdict(kind, kind, None, None)
    reach = cr.Reach(4, seconds, 8.0, 9.0) if seconds else None
    return cs.Status(claim(**changes), v, precision_need.Need(10.0, ""), None,
                     bool(reach) or block == cs.UNKNOWN, reach, block=block)


def test_a_claim_is_planned_on_the_whole_machine_even_where_a_duet_could_run(monkeypatch):
    """A duet's result would answer for half the machine, never the source's claim."""
    asked = []

    def fake(c, here, v=None):
        asked.append(here)
        return dataclasses.replace(status(3600), claim=c)
    monkeypatch.setattr(cs, "_status", fake)
    assert cs.status(claim(), HERE).reach.seconds == 3600
    assert [(h.design, h.machine) for h in asked] == [(None, WHOLE)]


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


# --- `invoke recipe --budget` --------------------------------------------------------------

def test_recipe_budget_aims_at_the_evidence_its_design_adds_to(monkeypatch):
    seen = []
    monkeypatch.setattr(cs, "status", lambda c, here: seen.append(here) or status(600))
    monkeypatch.setattr(cs, "chosen", lambda: [claim()])
    campaign.recipe_aims("doublewrite", HERE, "duet")
    campaign.recipe_aims("doublewrite", HERE)
    assert [(h.design, h.machine, h.duet_machine) for h in seen] == [
        ("duet", DUET, None), (None, WHOLE, None)]
