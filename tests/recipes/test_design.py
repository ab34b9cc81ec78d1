"""A recipe's design ([measure] design, settle): parsed, checked, and planned."""

import pytest

from helpers import fixture_recipe
from tuninglab.errors import UserError
from tuninglab.recipes import plan as planner
from tuninglab.recipes.load import load


def experiment(tmp_path, fixture="tiny-switchback", replace=None, profile="full"):
    fixture_recipe(tmp_path, fixture, replace=replace)
    return load(fixture, recipes_dir=tmp_path).experiment(profile)


def test_the_design_and_settle_are_read(tmp_path):
    m = experiment(tmp_path).measure
    assert (m.design, m.settle, m.warmup, m.duration, m.repeats) == ("switchback", 1, 2, 2, 4)


def test_the_default_design_is_auto_with_a_settle_of_two_seconds(tmp_path):
    m = experiment(tmp_path, "tiny").measure
    assert (m.design, m.settle) == ("auto", 2)


@pytest.mark.parametrize("value", ['"sometimes"', '"Switchback"', "1"])
def test_an_unknown_design_is_refused(tmp_path, value):
    with pytest.raises(UserError) as err:
        experiment(tmp_path, replace={'design = "switchback"': f"design = {value}"})
    assert "measure.design" in str(err.value)


def test_a_profile_sets_its_own_design(tmp_path):
    e = experiment(tmp_path, replace={"repeats = 4": 'repeats = 4\n\n[profiles.quick]\n'
                                                     'design = "restart"\nsettle = "3s"'},
                   profile="quick")
    assert (e.measure.design, e.measure.settle) == ("restart", 3)
    assert planner.build(e).design == "restart"


def test_auto_plans_a_switchback_where_only_server_settings_change(tmp_path):
    e = experiment(tmp_path, replace={'design = "switchback"': 'design = "auto"'})
    assert planner.build(e).design == "switchback"


@pytest.mark.parametrize("fixture,why", [
    ("tiny-storage", "not a server setting"),
    ("tiny-scan", "not a server setting"),
    ("tiny-tpcc", "counts its new-order transactions over a whole run"),
])
def test_auto_plans_restarts_where_a_switch_cannot_be_made(tmp_path, fixture, why):
    e = experiment(tmp_path, fixture)
    assert planner.switchback_obstacle(e).find(why) >= 0
    assert planner.build(e).design == "restart"


def test_switchback_asked_for_where_it_cannot_be_made_is_refused_saying_why(tmp_path):
    fixture_recipe(tmp_path, "tiny-storage")
    text = (tmp_path / "tiny-storage" / "recipe.toml").read_text()
    (tmp_path / "tiny-storage" / "recipe.toml").write_text(
        text.replace("[measure]\n", '[measure]\ndesign = "switchback"\n'))
    e = load("tiny-storage", recipes_dir=tmp_path).experiment()
    with pytest.raises(UserError) as err:
        planner.build(e)
    assert "measure.design" in str(err.value) and "not a server setting" in str(err.value)


def test_a_switchback_estimate_counts_one_warm_up_and_the_blocks(tmp_path):
    p = planner.build(experiment(tmp_path))
    m = p.experiment.measure
    assert p.run_seconds() == m.settle + m.duration
    assert p.estimate(template_cached=True, baseline_done=True) == pytest.approx(
        8 * (m.settle + m.duration) + m.warmup + planner.RUN_OVERHEAD_S)


def test_the_dry_run_says_which_design_and_why(tmp_path):
    p = planner.build(experiment(tmp_path))
    text = planner.describe(p, "MariaDB 10.11.19")
    assert "design: switchback" in text and "innodb_flush_log_at_trx_commit" in text
    assert "1s dropped, 2s measured" in text
    restart = planner.build(experiment(tmp_path / "s", "tiny-storage"))
    assert "design: restart (a fresh copy and server per run: the sweep changes" in \
        planner.describe(restart, "MariaDB 10.11.19")
