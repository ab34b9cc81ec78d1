"""The sequential stop rule on made-up results: when it adds a round, when it stops and why,
and what it refuses before anything starts."""

import datetime as dt

import pytest

from helpers import STOP_RULE_START as START, doc_with, fixture_recipe, make_run, tiny_plan
from tuninglab.engine.run import stop_rule
from tuninglab.errors import UserError
from tuninglab.recipes.load import load


def test_a_wide_interval_with_time_left_adds_the_next_round(tmp_path):
    plan = tiny_plan(tmp_path, precision="3%", budget="1h")
    doc = doc_with((1000.0, 1100.0, 900.0), (1500.0, 1300.0, 1700.0))
    bigger, why = stop_rule.next_round(plan, doc, now=START + dt.timedelta(minutes=1))
    assert bigger.experiment.measure.repeats == 4
    assert {r.repeat for r in stop_rule.new_runs(bigger)} == {4}
    assert len(stop_rule.new_runs(bigger)) == 2
    assert why.startswith("stop rule: widest interval ±") and why.endswith(": round 4")


def test_the_rounds_it_adds_continue_the_planned_order(tmp_path):
    plan = tiny_plan(tmp_path, precision="3%", budget="1h", repeats=3)
    doc = doc_with((1000.0, 1100.0, 900.0), (1500.0, 1300.0, 1700.0))
    bigger, _ = stop_rule.next_round(plan, doc, now=START)
    assert [r.key for r in bigger.runs][:len(plan.runs)] == [r.key for r in plan.runs]


def test_an_interval_within_the_target_stops_it(tmp_path):
    plan = tiny_plan(tmp_path, precision="5%")
    doc = doc_with((1000.0, 1001.0, 999.0), (1500.0, 1501.0, 1499.0))
    bigger, why = stop_rule.next_round(plan, doc, now=START)
    assert bigger is None and "within the ±5% asked for" in why


def test_a_round_that_would_overrun_the_budget_is_not_started(tmp_path):
    plan = tiny_plan(tmp_path, precision="1%", budget="2m")
    doc = doc_with((1000.0, 1100.0, 900.0), (1500.0, 1300.0, 1700.0))
    bigger, why = stop_rule.next_round(plan, doc, now=START + dt.timedelta(seconds=119))
    assert bigger is None and "would overrun the budget (1m59s of 2m00s spent)" in why


def test_without_precision_the_target_is_the_smallest_effect_worth_knowing(tmp_path):
    plan = tiny_plan(tmp_path, budget="10m")
    assert stop_rule.target_pct(plan) == 3.0
    assert stop_rule.active(plan.experiment.measure)
    assert not stop_rule.active(tiny_plan(tmp_path / "b").experiment.measure)


def test_without_budget_it_is_three_times_the_planned_time(tmp_path):
    plan = tiny_plan(tmp_path, precision="2%")
    assert stop_rule.budget_s(plan) == pytest.approx(
        3 * plan.estimate(template_cached=True, baseline_done=True))


def test_a_budget_shorter_than_one_round_is_refused(tmp_path):
    plan = tiny_plan(tmp_path, precision="2%", budget="2s")
    with pytest.raises(UserError, match=r"--budget 2s is shorter than one round of tiny"):
        stop_rule.check(plan)


@pytest.mark.parametrize("option,value,expected", [
    ("precision", "0", "--precision: expected a percentage above 0%"),
    ("precision", "3", "--precision: expected a percentage above 0%"),
    ("budget", "0", "--budget: expected at least 1s"),
    ("budget", "soon", "--budget: expected a duration"),
])
def test_bad_rule_options_are_named(tmp_path, option, value, expected):
    with pytest.raises(UserError, match=expected):
        tiny_plan(tmp_path, **{option: value})


def test_the_recipe_and_its_profiles_may_set_the_rule(tmp_path):
    fixture_recipe(tmp_path, "tiny", replace={"repeats = 2": 'repeats = 2\nprecision = "4%"\n'
                                              'budget = "5m"\n\n[profiles.quick]\n'
                                              'precision = "8%"\nbudget = "1m"'})
    full = load("tiny", recipes_dir=tmp_path).experiment().measure
    quick = load("tiny", recipes_dir=tmp_path).experiment("quick").measure
    assert (full.precision_pct, full.budget) == (4.0, 300.0)
    assert (quick.precision_pct, quick.budget) == (8.0, 60.0)


def test_a_resumed_result_with_added_rounds_is_planned_as_run(tmp_path):
    plan = tiny_plan(tmp_path, precision="1%")
    doc = doc_with((1000.0, 1100.0), (1500.0, 1300.0))
    for point, tps in zip(doc["points"], (900.0, 1700.0)):
        point["runs"] += [make_run(3, 4, tps), make_run(4, 6, tps)]
    assert stop_rule.as_run(plan, doc).experiment.measure.repeats == 4
    stop_rule.record(doc, stop_rule.as_run(plan, doc), "stop rule: done")
    assert doc["plan"]["repeats"] == 4 and len(doc["plan"]["order"]) == 8
    assert doc["plan"]["stopped"] == "stop rule: done"
