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


@pytest.mark.parametrize("fixture,replace,why", [
    ("tiny-storage", {"storage.scheduler": "storage.filesystem",
                      '["none", "mq-deadline"]': '["ext4", "xfs"]'},
     "each point needs a storage sandbox of its own"),
    ("tiny-logs", None, "each point needs a storage sandbox of its own"),
    ("lab-batch", None, "not a server setting"),
    ("tiny-storage", {'"storage.scheduler"': '"innodb_flush_log_at_trx_commit"',
                      '["none", "mq-deadline"]': "[1, 2]",
                      'size = "1G"': 'size = "1G"\nlogs = "separate"'},
     "the redo log has a sandbox of its own per run"),
    ("tiny-scan", None, "a scan is timed once per run"),
    ("tiny-tpcc", None, "counts its new-order transactions over a whole run"),
])
def test_auto_plans_restarts_where_a_switch_cannot_be_made(tmp_path, fixture, replace, why):
    e = experiment(tmp_path, fixture, replace=replace)
    assert why in planner.switchback_obstacle(e)
    assert planner.build(e).design == "restart"


def test_a_device_queue_sweep_on_one_sandbox_is_a_switchback(tmp_path):
    """The IO scheduler and read-ahead are written to sysfs at run time: one sandbox serves
    every point, and the plan says the switch is the device's, not the server's."""
    p = planner.build(experiment(tmp_path, "tiny-storage"))
    assert p.design == "switchback"
    assert planner.queue_settings(p) == {"scheduler": {"storage.scheduler=none": "none",
                                                       "storage.scheduler=mq-deadline":
                                                       "mq-deadline"}}
    assert planner.swept_settings(p) == {}
    text = planner.describe(p, "MariaDB 10.11.19")
    assert "the device's queue settings written to sysfs at each switch" in text
    # one sandbox and one fio baseline, not one per run
    assert p.estimate(template_cached=True, baseline_done=True) == pytest.approx(
        len(p.runs) * p.run_seconds() + p.experiment.measure.warmup + planner.RUN_OVERHEAD_S
        + planner.SANDBOX_S + planner.BASELINE_S)


def test_a_server_setting_swept_on_a_sandbox_is_a_switchback(tmp_path):
    e = experiment(tmp_path, "tiny-storage", replace={
        '"storage.scheduler"': '"innodb_flush_log_at_trx_commit"',
        '["none", "mq-deadline"]': "[1, 2]"})
    p = planner.build(e)
    assert p.design == "switchback" and planner.queue_settings(p) == {}


def test_switchback_asked_for_where_it_cannot_be_made_is_refused_saying_why(tmp_path):
    fixture_recipe(tmp_path, "tiny-scan")
    text = (tmp_path / "tiny-scan" / "recipe.toml").read_text()
    (tmp_path / "tiny-scan" / "recipe.toml").write_text(
        text.replace("[measure]\n", '[measure]\ndesign = "switchback"\n'))
    e = load("tiny-scan", recipes_dir=tmp_path).experiment()
    with pytest.raises(UserError) as err:
        planner.build(e)
    assert "measure.design" in str(err.value) and "a scan is timed once" in str(err.value)


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
    restart = planner.build(experiment(tmp_path / "s", "tiny-logs"))
    assert "design: restart (a fresh copy and server per run: the sweep changes" in \
        planner.describe(restart, "MariaDB 10.11.19")
