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


# --- a duet's rounds: a repeat of two halves (issue 62) ---------------------------------------

def duet_plan(tmp_path, **cli):
    fixture_recipe(tmp_path, "tiny")
    e = load("tiny", recipes_dir=tmp_path).experiment(**cli)
    return stop_rule.planner.build(e, design="duet")


def test_a_duets_round_is_a_repeat_of_two_halves(tmp_path):
    from helpers import duet_doc
    from tuninglab.results import document
    plan = duet_plan(tmp_path, precision="0.1%", budget="1h", repeats=2)
    doc = document.finish(duet_doc(effect=1.1, halves=4))
    doc["started"] = START.isoformat()
    assert stop_rule.rounds_done(doc) == 2   # 4 halves
    assert stop_rule.round_seconds(plan) == 2 * plan.run_seconds()
    bigger, why = stop_rule.next_round(plan, doc, now=START)
    assert bigger.experiment.measure.repeats == 3 and why.endswith(": round 3")
    added = stop_rule.new_runs(bigger)
    assert sorted(r.repeat for r in added) == [5, 5, 6, 6]
    # each point once in each place: the new halves swap the order
    assert {tuple(r.point.id for r in added if r.repeat == h) for h in (5, 6)} == {
        tuple(p.id for p in plan.points), tuple(p.id for p in reversed(plan.points))}
    doc["points"][0]["runs"].pop()   # an interrupted half: its repeat counts as begun
    assert stop_rule.rounds_done(doc) == 2


def test_a_duets_aim_is_its_halves_with_their_places_cancelled(tmp_path):
    from helpers import duet_doc
    from tuninglab.results import document
    plan = duet_plan(tmp_path, repeats=2)
    doc = document.finish(duet_doc(effect=1.1, placement=1.2, halves=4))
    aim = stop_rule.Aim(point=doc["points"][1]["value"], metric="", pct=50.0, claim="c")
    width = stop_rule.aim_pct(doc, plan, aim)
    assert width is not None and width < 10   # the +-20% place is not its error
