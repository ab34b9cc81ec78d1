"""The duet design (issue 62) from the plan to the result file, without a server: its halves
(two points at once, places swapped every other half), what it refuses and why, its dry-run
words, a result's ratio from the halves' per-second series, and data.check's rules on it.
tests/engine/run/test_duet_integration.py runs one for real."""

import copy
import dataclasses

import pytest

from helpers import duet_doc, fixture_recipe
from tuninglab.contrib import design as design_rules
from tuninglab.contrib import values
from tuninglab.errors import UserError
from tuninglab.recipes import plan as planner
from tuninglab.recipes.load import load
from tuninglab.results import document
from tuninglab.results.duet import DUET_METHOD


def experiment(tmp_path, fixture="tiny-switchback", replace=None, **over):
    fixture_recipe(tmp_path, fixture, "demo", replace)
    e = load("demo", tmp_path).experiment("full")
    return dataclasses.replace(e, measure=dataclasses.replace(e.measure, design="duet", **over))


def test_a_duet_plan_is_halves_of_both_points_their_places_swapped(tmp_path):
    plan = planner.build(experiment(tmp_path, repeats=3), seed=7)
    assert plan.duet and plan.rounds == 6 and len(plan.runs) == 12
    firsts = []
    for half in range(1, 7):
        runs = sorted((r for r in plan.runs if r.repeat == half), key=lambda r: r.index)
        assert {r.point.value for r in runs} == {"1", "2"}
        firsts.append(runs[0].point.value)
    for k in range(0, 6, 2):   # each pair of halves: each point first once
        assert firsts[k] != firsts[k + 1]


def test_a_duets_estimate_counts_both_runs_of_a_half_once(tmp_path):
    # a duet's repeat is two halves of two runs at once: twice a restart's runs in its time
    e = experiment(tmp_path, repeats=2)
    duet, restart = planner.build(e), planner.build(e, design="restart")
    assert duet.estimate(template_cached=True) == restart.estimate(template_cached=True)
    assert len(duet.runs) == 2 * len(restart.runs)


@pytest.mark.parametrize("replace, why", [
    ({"values = [1, 2]": "values = [1, 2, 0]"}, "the sweep has 3 points; a duet compares two"),
    ({'setting = "innodb_flush_log_at_trx_commit"\nvalues = [1, 2]\nbaseline = 1':
      'setting = "workload.threads"\nvalues = [1, 2]\nbaseline = 1'},
     "the sweep changes workload.threads, a question about the whole machine"),
])
def test_a_duet_the_experiment_cannot_have_is_refused_saying_why(tmp_path, replace, why):
    with pytest.raises(UserError, match=rf'measure.design: "duet" runs the two points at once '
                                        rf'on twin servers, but {why}'):
        planner.build(experiment(tmp_path, replace=replace))


def test_a_recipe_whose_claim_needs_the_whole_machine_refuses_a_duet_saying_why(tmp_path):
    why = "its threads compete with the load for the CPUs"
    e = experiment(tmp_path, replace={'design = "switchback"':
                                      f'design = "switchback"\nwhole_machine = "{why}"'})
    assert e.measure.whole_machine == why
    with pytest.raises(UserError, match=f"needs the whole machine: {why}"):
        planner.build(e)


def test_an_empty_whole_machine_reason_is_refused_naming_the_key(tmp_path):
    fixture_recipe(tmp_path, "tiny-switchback", "demo",
                   {'design = "switchback"': 'design = "switchback"\nwhole_machine = " "'})
    with pytest.raises(UserError, match=r"recipe.toml: measure.whole_machine: expected why the "
                                        "recipe's claim needs the whole machine"):
        load("demo", tmp_path)


def test_the_dry_run_names_the_design_and_each_half(tmp_path):
    text = planner.describe(planner.build(experiment(tmp_path, repeats=1), seed=1), "MariaDB")
    assert "design: duet (both points at once on twin fresh servers" in text
    assert "  half 1: 1 beside 2" in text or "  half 1: 2 beside 1" in text


# --- a duet result ----------------------------------------------------------------------

def test_a_duet_results_ratio_comes_from_its_halves_seconds():
    doc = document.finish(duet_doc(halves=4))
    ratio = doc["points"][1]["stats"]["ratio"]
    assert ratio["ci_low"] < 1.2 < ratio["ci_high"] and ratio["verdict_kind"] == "faster"
    assert ratio["placement"] == pytest.approx(1.1, rel=0.02)
    assert ratio["batch_seconds"] == 8
    assert doc["methods"]["ratio"] == DUET_METHOD
    assert document.validate(doc) == []
    assert document.design_text(doc).startswith("duet: 2 repeats of two halves")


def test_a_duet_of_one_repeat_has_a_ratio_and_no_interval():
    ratio = document.finish(duet_doc())["points"][1]["stats"]["ratio"]
    assert ratio["ratio"] == pytest.approx(1.2, rel=0.03)
    assert ratio["ci_low"] is None and ratio["verdict_kind"] == "too few repeats"


def test_data_check_counts_a_duets_halves_and_wants_the_places_balanced():
    doc = document.finish(duet_doc(halves=4))
    assert values.check_repeats(doc) == [] and design_rules.check_halves(doc) == []
    lopsided = copy.deepcopy(doc)
    for run in lopsided["points"][1]["runs"]:   # OFF first in every half
        run["order"] = 2 * (run["repeat"] - 1)
    for run in lopsided["points"][0]["runs"]:
        run["order"] = 2 * (run["repeat"] - 1) + 1
    assert "expected each point as often" in design_rules.check_halves(lopsided)[0]
    short = copy.deepcopy(doc)
    short["points"][0]["runs"].pop()
    assert "half 4 has 1 runs; expected one of each of the 2 points" in \
        design_rules.check_halves(short)[0]
    assert "repeats 1, 2, 3, missing 4; expected 1 to 4 once each (a duet's halves" in \
        values.check_repeats(short)[0]
