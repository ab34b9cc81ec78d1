"""data.check holds a result to the experiment its recipe version plans (contrib/experiment.py,
contrib/readback.py): each rule refuses a committed result changed one way, as a forger or a
careless hand would change it, with a line naming the file, the JSON path and what was
expected; what the engine records of a legitimate difference (the command line's overrides, a
stop rule's rounds, an older format) is accepted."""

import copy
import hashlib
import json
import subprocess
from pathlib import Path

import pytest

from helpers import DATA, REPO, result_problems as problems_of
from tuninglab import units
from tuninglab.contrib import check, readback
from tuninglab.recipes import plan as planner, server_list
from tuninglab.recipes.load import load
from tuninglab.recipes.regime import declared
from tuninglab.results import document

# doublewrite --quick, restart (the recipe's "auto": MariaDB reads innodb_doublewrite only at
# startup), 2 points x 5 repeats, MariaDB 10.11.19
RESTART = DATA / "doublewrite" / "20261124T044854Z-48806fd0-quick-a005932b.json"
# flush-log-at-trx-commit --quick: design = "switchback", 3 points x 12 rounds
SWITCHBACK = DATA / "flush-log-at-trx-commit" / "20261123T124052Z-341b2f15-quick-4831c4f7.json"
FILESYSTEMS = DATA / "filesystems" / "20261123T122125Z-341b2f15-quick-b84b7166.json"
REDO = DATA / "redo-size" / "20261124T043959Z-48806fd0-quick-938e4700.json"  # design "restart"
SCHEDULERS = DATA / "io-schedulers" / "20261123T123630Z-341b2f15-quick-abb702df.json"
OLD_FORMAT = DATA / "doublewrite" / "20261121T233847Z-209a4cf4-quick.json"  # schema 1
# schema 1, a recipe version whose tpcc pool (128M) today's disk-bound memory cap (192M) refuses
UNCAPPED = DATA / "doublewrite" / "20261122T090129Z-209a4cf4-quick-tpcc.json"
# Files of an older version of their recipe: data.check confirms it from the git history.
SHALLOW = subprocess.run(["git", "rev-parse", "--is-shallow-repository"], cwd=REPO,
                         capture_output=True, text=True).stdout.strip() == "true"
needs_history = pytest.mark.skipif(SHALLOW, reason="needs the recipes' git history")
OVERRIDES = "(a command line's --repeats, --duration or --warmup is recorded in plan/overrides)"


def doc_of(path: Path) -> dict:
    return json.loads(path.read_text())




def runs_of(doc):
    return [run for point in doc["points"] for run in point["runs"]]


def test_the_bases_pass(tmp_path):
    for base in (RESTART, SWITCHBACK, REDO, SCHEDULERS):
        assert problems_of(tmp_path, doc_of(base))[1] == [], base.name


@needs_history
def test_the_bases_of_older_recipe_versions_pass(tmp_path):
    for base in (FILESYSTEMS, OLD_FORMAT, UNCAPPED):
        assert problems_of(tmp_path, doc_of(base))[1] == [], base.name


# --- 1. the points ------------------------------------------------------------------------------

def test_values_swapped_with_their_ids_and_settings_kept(tmp_path):
    doc = doc_of(RESTART)
    doc["points"][0]["value"], doc["points"][1]["value"] = "OFF", "ON"
    path, problems = problems_of(tmp_path, doc)
    assert problems == [
        f"{path}: points/0/value: 'OFF'; expected 'ON', value 1 of the recipe's sweep (point "
        "ids, values and runs go together)",
        f"{path}: points/1/value: 'ON'; expected 'OFF', value 2 of the recipe's sweep (point "
        "ids, values and runs go together)"]


def test_a_value_the_recipe_never_sweeps(tmp_path):
    doc = doc_of(RESTART)
    doc["points"][1]["value"] = "MAYBE"
    path, problems = problems_of(tmp_path, doc)
    assert problems == [f"{path}: points/1/value: 'MAYBE' is no value recipe/text sweeps; "
                        "expected one of: 'ON', 'OFF'"]


def test_settings_the_recipe_does_not_give_the_point(tmp_path):
    doc = doc_of(RESTART)
    doc["points"][1]["settings"]["innodb_flush_log_at_trx_commit"] = "2"
    doc["points"][0]["settings"]["innodb_flush_method"] = "O_DIRECT"
    path, problems = problems_of(tmp_path, doc)
    assert problems == [
        f"{path}: points/0/settings/innodb_flush_method: 'O_DIRECT' is no setting the recipe "
        "gives point innodb_doublewrite=ON on MariaDB 10.11.19; expected none",
        f"{path}: points/1/settings/innodb_flush_log_at_trx_commit: '2'; expected '1', the "
        "recipe's setting at point innodb_doublewrite=OFF on MariaDB 10.11.19"]


def test_settings_are_those_the_recorded_server_names(tmp_path):
    """MySQL 8.0.30+ takes the recipe's innodb_log_file_size as innodb_redo_log_capacity: a
    result of such a server records (and reads back) that name."""
    doc = doc_of(REDO)
    doc["server"].update(flavor="mysql", version="8.4.3")
    path, problems = problems_of(tmp_path, doc)
    assert problems[:2] == [
        f"{path}: points/0/settings/innodb_log_file_size: '48M' is no setting the recipe gives "
        "point innodb_log_file_size=48M on MySQL 8.4.3; expected none",
        f"{path}: points/0/settings/innodb_redo_log_capacity: missing; expected '48M', the "
        "recipe's setting at point innodb_log_file_size=48M on MySQL 8.4.3"]
    assert f"{path}: points/0/runs/0/effective/innodb_redo_log_capacity: missing (and in 2 " \
           "more runs of the point); expected '48M', what point innodb_log_file_size=48M ran " \
           "with" in problems


# --- 2. what each run read back -----------------------------------------------------------------

def test_a_run_whose_server_took_another_value(tmp_path):
    doc = doc_of(RESTART)
    doc["points"][1]["runs"][2]["effective"]["innodb_doublewrite"] = "ON"
    path, problems = problems_of(tmp_path, doc)
    assert problems == [f"{path}: points/1/runs/2/effective/innodb_doublewrite: 'ON'; expected "
                        "'OFF', what point innodb_doublewrite=OFF ran with"]


def test_a_swept_setting_not_read_back_is_refused(tmp_path):
    doc = doc_of(RESTART)
    for run in doc["points"][0]["runs"]:
        del run["effective"]["innodb_doublewrite"]
    path, problems = problems_of(tmp_path, doc)
    assert problems == [f"{path}: points/0/runs/0/effective/innodb_doublewrite: missing (and in "
                        "4 more runs of the point); expected 'ON', what point "
                        "innodb_doublewrite=ON ran with"]


def test_a_block_whose_device_had_another_scheduler(tmp_path):
    doc = doc_of(SCHEDULERS)
    doc["points"][1]["runs"][0]["storage"]["scheduler"] = "none"
    path, problems = problems_of(tmp_path, doc)
    assert problems == [f"{path}: points/1/runs/0/storage/scheduler: 'none'; expected "
                        "'mq-deadline', what point storage.scheduler=mq-deadline ran with"]


def test_read_back_values_compare_as_the_server_writes_them():
    assert units.same_value("48M", "50331648") and units.same_value("10", "10.000000")
    assert units.same_value("ON", "on") and units.same_value("1", "ON") and units.same_value(128, "128")
    assert not units.same_value("OFF", "ON") and not units.same_value("2", "ON")
    assert not units.same_value("bfq", "none")


# --- 3. the design ------------------------------------------------------------------------------

def as_switchback(doc: dict) -> dict:
    doc["plan"].update(design="switchback", settle_s=2.0)
    document.recompute(doc)  # the paired statistics: only the design's rule speaks
    return doc


def test_a_restart_recipe_relabelled_switchback(tmp_path):
    path, problems = problems_of(tmp_path, as_switchback(doc_of(REDO)))
    assert problems == [f"{path}: plan/design: 'switchback'; expected 'restart': the recipe's "
                        "[measure] design is \"restart\""]


@needs_history
def test_a_switchback_the_recipe_cannot_have(tmp_path):
    path, problems = problems_of(tmp_path, as_switchback(doc_of(FILESYSTEMS)))
    assert problems == [f"{path}: plan/design: 'switchback'; expected 'restart': the sweep "
                        "changes storage.filesystem: each point needs a storage sandbox of its "
                        "own"]


# The --version line of that server: a file's version must be its line's (contrib/facts.py).
MYSQL_84 = "/usr/sbin/mysqld  Ver 8.4.3 for Linux on x86_64 (MySQL Community Server - GPL)"


def on_mysql(doc: dict) -> dict:
    """doc's server as MySQL 8.4, which changes innodb_doublewrite at run time (8.0.30+), with
    the memory a capped MySQL gets beyond the shape's limit (server_list.EXTRA_MEMORY)."""
    doc["server"].update(flavor="mysql", version="8.4.3", version_text=MYSQL_84)
    extra = server_list.extra_memory("mysql", 4)   # doublewrite's 4 threads
    doc["memory"].update(limit_bytes=doc["memory"]["limit_bytes"] + extra,
                         server_extra_bytes=extra)
    return doc


def test_restart_runs_relabelled_switchback_under_auto(tmp_path):
    """doublewrite's design is "auto": either design may be its result's (on a server that
    switches it), but a switchback is one series cut into blocks, which restart runs are
    not."""
    path, problems = problems_of(tmp_path, as_switchback(on_mysql(doc_of(RESTART))))
    assert problems == [f"{path}: switchback: missing; expected the workload's per-second "
                        "throughput (plan/design is switchback)"]
    doc = as_switchback(on_mysql(doc_of(RESTART)))
    doc["switchback"] = {"tps": [1000.0] * 300}
    path, problems = problems_of(tmp_path, doc)
    assert problems == [f"{path}: points/0/runs/0/block: missing (and 9 more runs); expected "
                        "each run's block (plan/design is switchback)"]


def test_a_switchback_recipe_relabelled_restart(tmp_path):
    doc = doc_of(SWITCHBACK)
    doc["plan"]["design"] = "restart"
    del doc["plan"]["settle_s"], doc["switchback"]
    for run in runs_of(doc):
        del run["block"]
    document.recompute(doc)
    path, problems = problems_of(tmp_path, doc)
    assert problems == [f"{path}: plan/design: 'restart'; expected 'switchback': the recipe asks "
                        "for \"switchback\" (a server that cannot switch stops the run; it never "
                        "falls back to restart)"]


def test_a_block_out_of_its_place_or_not_of_the_series(tmp_path):
    doc = doc_of(SWITCHBACK)
    doc["points"][0]["runs"][1]["block"]["first_s"] += 1
    doc["points"][1]["runs"][0]["series"]["tps"][0] += 100
    path, problems = problems_of(tmp_path, doc)
    assert problems == [
        f"{path}: points/0/runs/1/block: seconds 59 to 62 after a switch at 55; expected 58 to "
        "62 (settle_s dropped, then duration_s measured) within the 272 s of switchback/tps",
        f"{path}: points/1/runs/0/series/tps: not switchback/tps's seconds 30 to 34; expected "
        "the block's seconds of the one series"]


# --- 4. repeats, order, seed --------------------------------------------------------------------

def renumbered(doc: dict, repeats: int, keep) -> dict:
    """doc with `repeats` runs per point, keep(runs) choosing them, numbered and ordered as
    the plan of that many repeats draws them (a careful forger's file)."""
    doc["plan"]["repeats"] = repeats
    experiment = load(doc["recipe"]["name"]).experiment(doc["profile"], repeats=repeats)
    plan = planner.build(experiment, doc["plan"]["seed"], "restart")
    doc["plan"]["order"] = [run.key for run in plan.runs]
    for point in doc["points"]:
        point["runs"] = [copy.deepcopy(run) for run in keep(point["runs"])]
        for repeat, run in enumerate(point["runs"], 1):
            run.update(repeat=repeat, order=next(r.index for r in plan.runs
                                                 if (r.point.id, r.repeat) == (point["id"],
                                                                               repeat)))
    document.recompute(doc)
    return doc


def best_three(runs):
    return sorted(runs, key=lambda run: -run["summary"]["tps"])[:3]


def test_three_best_runs_of_five(tmp_path):
    path, problems = problems_of(tmp_path, renumbered(doc_of(RESTART), 3, best_three))
    assert problems == [f"{path}: plan/repeats: 3; expected 5, what profile quick of recipe/text "
                        f"gives {OVERRIDES}; a run left out or a round added needs a record no "
                        "result has"]


def test_repeats_the_command_line_set_are_recorded_and_accepted(tmp_path):
    doc = renumbered(doc_of(RESTART), 3, lambda runs: runs[:3])
    doc["plan"]["overrides"] = {"repeats": 3}
    assert problems_of(tmp_path, doc)[1] == []


def test_the_stop_rules_rounds_are_accepted_where_recorded(tmp_path):
    def six(runs):
        return runs + runs[:1]
    doc = renumbered(doc_of(RESTART), 6, six)
    path, problems = problems_of(tmp_path, doc)
    assert problems == [f"{path}: plan/repeats: 6; expected 5, what profile quick of recipe/text "
                        f"gives {OVERRIDES}; a run left out or a round added needs a record no "
                        "result has"]
    doc["plan"].update(precision_pct=3.0, budget_s=900.0,
                       stopped="stop rule: widest interval ±2.9%, within the ±3% asked for")
    assert problems_of(tmp_path, doc)[1] == []
    fewer = renumbered(doc_of(RESTART), 4, lambda runs: runs[:4])
    fewer["plan"].update(precision_pct=3.0, budget_s=900.0, stopped="stop rule: ...")
    path, problems = problems_of(tmp_path, fewer)
    assert problems == [f"{path}: plan/repeats: 4; expected at least 5, what profile quick of "
                        f"recipe/text gives {OVERRIDES}, and the stop rule's rounds after them"]


def test_an_order_the_seed_does_not_give(tmp_path):
    doc = doc_of(RESTART)
    order = doc["plan"]["order"]
    order[0], order[1] = order[1], order[0]
    path, problems = problems_of(tmp_path, doc)
    assert problems == [f"{path}: plan/order/0: 'innodb_doublewrite=OFF#1'; expected "
                        "'innodb_doublewrite=ON#1', run 0 of the order recipes/plan.py draws "
                        "with seed 1 for 2 points x 5 repeats",
                        # and the runs, where the plan has them, are not where plan/order says
                        f"{path}: points/0/runs/0/order: 0; expected 1, the place of "
                        "innodb_doublewrite=ON#1 in plan/order",
                        f"{path}: points/1/runs/0/order: 1; expected 0, the place of "
                        "innodb_doublewrite=OFF#1 in plan/order"]


def test_a_seed_whose_order_is_not_the_recorded_one(tmp_path):
    doc = doc_of(RESTART)
    doc["plan"]["seed"] = 2
    path, problems = problems_of(tmp_path, doc)
    assert problems == [f"{path}: plan/order/8: 'innodb_doublewrite=ON#5'; expected "
                        "'innodb_doublewrite=OFF#5', run 8 of the order recipes/plan.py draws "
                        "with seed 2 for 2 points x 5 repeats"]


@needs_history
def test_the_older_formats_order_is_its_own(tmp_path):
    """Schema 1 drew one shuffle and rotated it; its files keep that order, and no other."""
    doc = doc_of(OLD_FORMAT)
    doc["plan"]["seed"] = 5  # its shuffle puts ON first (seed 1's, OFF)
    path, problems = problems_of(tmp_path, doc)
    assert problems == [f"{path}: plan/order/0: 'innodb_doublewrite=OFF#1'; expected "
                        "'innodb_doublewrite=ON#1', run 0 of the order schema 1's engine draws "
                        "with seed 5 for 2 points x 5 repeats"]


def test_a_run_out_of_its_place(tmp_path):
    doc = doc_of(RESTART)
    doc["points"][0]["runs"][1]["order"] = 7
    path, problems = problems_of(tmp_path, doc)
    assert problems == [f"{path}: points/0/runs/1/order: 7; expected 3, the place of "
                        "innodb_doublewrite=ON#2 in plan/order"]


# --- 5. the profile -----------------------------------------------------------------------------

def test_threads_data_shape_and_durations_other_than_the_profiles(tmp_path):
    doc = doc_of(RESTART)
    doc["workload"]["threads"] = 8
    doc["dataset"]["table_size"] = 100000
    doc["plan"]["warmup_s"] = 10.0
    doc["memory"]["limit_bytes"] = 2**30
    path, problems = problems_of(tmp_path, doc)
    assert problems == [
        f"{path}: plan/warmup_s: 10; expected 5, what profile quick of recipe/text gives "
        f"{OVERRIDES}",
        f"{path}: dataset/table_size: 100000; expected 200000, what profile quick of "
        "recipe/text gives",
        f"{path}: workload/threads: 8; expected 4, what profile quick of recipe/text gives",
        f"{path}: memory/limit_bytes: 1073741824; expected 201326592, the memory limit profile "
        "quick of recipe/text gives"]


def test_a_warm_up_the_command_line_set(tmp_path):
    doc = doc_of(RESTART)
    doc["plan"].update(warmup_s=10.0, overrides={"warmup_s": 10.0})
    assert problems_of(tmp_path, doc)[1] == []
    doc["plan"]["overrides"] = {"warmup_s": 30.0}
    path, problems = problems_of(tmp_path, doc)
    assert problems == [f"{path}: plan/warmup_s: 10; expected 30, the command line's, as "
                        "plan/overrides/warmup_s records it"]


@needs_history
def test_an_older_version_read_as_it_ran_only_without_a_memory_cap(tmp_path):
    doc = doc_of(UNCAPPED)
    doc["memory"] = {"limit_bytes": 201326592, "capped": True, "controller": "cgroup v1"}
    path, problems = problems_of(tmp_path, doc)
    assert problems == [
        check.one_line(f"{path}: recipe/text: this version of recipe doublewrite does not load "
                       f"({REPO}/recipes/doublewrite/recipe.toml: variants.tpcc.dataset."
                       "memory_limit: 192M does not hold the buffer pool (buffer_pool_size = "
                       "128M) and the server's own memory (at least 96M): expected at least "
                       "224M, or \"none\"); expected one the lab reads")]


# --- 6. the summary and its series --------------------------------------------------------------

def test_a_summary_halved_while_its_series_is_untouched(tmp_path):
    doc = doc_of(RESTART)
    doc["points"][0]["runs"][0]["summary"]["tps"] /= 2
    document.recompute(doc)  # statistics in line with the forged summary
    path, problems = problems_of(tmp_path, doc)
    assert problems == [f"{path}: points/0/runs/0/summary/tps: 1171.56, 50% off the mean of its "
                        "per-second series (2343.57); expected within 15% of it (the summary is "
                        "the whole run's, the series its seconds)"]


def test_the_tolerance_holds_every_committed_run_with_room():
    """The largest gap over the committed runs is 5.1%; the tolerance is about three times it."""
    assert readback.SERIES_TOLERANCE >= 2.5 * 0.051
    assert readback.check_series(doc_of(UNCAPPED)) == []


def test_a_run_of_few_seconds_has_a_wider_tolerance():
    """One late report of 3 seconds moves their mean by a third: 1/n, never below 15%."""
    def short(total):
        run = {"summary": {"tps": total}, "series": {"t": [1, 2, 3], "tps": [90.0, 100.0, 110.0]}}
        return {"plan": {"design": "restart"}, "sweep": {"setting": "x", "baseline": "x=1"},
                "points": [{"id": "x=1", "value": "1", "settings": {}, "runs": [run]}]}
    assert readback.check_series(short(130.0)) == []  # 23% off: within a third
    assert readback.check_series(short(50.0)) == [
        "points/0/runs/0/summary/tps: 50, 50% off the mean of its per-second series (100.00); "
        "expected within 33% of it (the summary is the whole run's, the series its seconds)"]


# --- 7. the server ------------------------------------------------------------------------------

def as_recipe(doc: dict, name: str) -> dict:
    """doc's runs dressed as recipe name's quick experiment, every other part made to fit
    (the plan, the points and their settings, each run's read-back, the regime, statistics):
    a forger's file that only the server can give away."""
    text = (REPO / "recipes" / name / "recipe.toml").read_text()
    recipe = load(name)
    e = recipe.experiment("quick")
    plan = planner.build(e, 1, "restart")
    doc["recipe"].update(name=name, title=recipe.title, question=recipe.question,
                         topic=recipe.topic, text=text,
                         sha256=hashlib.sha256(text.encode()).hexdigest())
    doc["plan"].update(repeats=e.measure.repeats, warmup_s=e.measure.warmup,
                       duration_s=e.measure.duration, order=[run.key for run in plan.runs])
    d = e.dataset
    doc["dataset"] = {"shape": d.shape, "tables": d.tables, "table_size": d.table_size,
                      "buffer_pool_size": d.buffer_pool_size}
    doc["workload"].update(script=e.workload.script, threads=e.workload.threads)
    doc.pop("memory")  # a cpu-bound shape: no memory limit
    doc["regime"] = declared(text, "")
    doc["sweep"] = {"setting": e.sweep.setting, "baseline": plan.baseline.id}
    source, seconds = runs_of(doc), int(e.measure.duration)
    doc["points"] = [{"id": p.id, "value": p.value, "settings": dict(p.settings), "runs": []}
                     for p in plan.points]
    for run_ in plan.runs:
        run = copy.deepcopy(source[run_.index % len(source)])
        run.update(repeat=run_.repeat, order=run_.index,
                   effective={k: str(v) for k, v in run_.point.settings.items()})
        run["series"] = {k: v[:seconds] for k, v in run["series"].items()}
        doc["points"][plan.points.index(run_.point)]["runs"].append(run)
    document.recompute(doc)
    return doc


def test_a_recipe_on_a_server_it_refuses(tmp_path):
    """buffer-pool-instances refuses MariaDB (no innodb_buffer_pool_instances from 10.6.0):
    doublewrite's runs on MariaDB 10.11 dressed as its result."""
    path, problems = problems_of(tmp_path, as_recipe(doc_of(RESTART), "buffer-pool-instances"))
    assert problems == [f"{path}: server/version: MariaDB 10.11.19 has no option "
                        "innodb_buffer_pool_instances (MariaDB removed it in 10.6.0), which the "
                        "recipe sets; expected a server that has it (on this one the recipe "
                        "stops before its first run)"]
    mysql = as_recipe(doc_of(RESTART), "buffer-pool-instances")
    mysql["server"].update(flavor="mysql", version="8.4.3", version_text=MYSQL_84)
    assert problems_of(tmp_path, mysql)[1] == []  # the same file from a server that has it


def test_another_recipes_name_on_a_result(tmp_path):
    """A result moved under another recipe, text and all: nothing of it is that recipe's."""
    doc = doc_of(RESTART)
    text = (REPO / "recipes" / "buffer-pool-instances" / "recipe.toml").read_text()
    doc["recipe"].update(name="buffer-pool-instances", text=text,
                         sha256=hashlib.sha256(text.encode()).hexdigest())
    path, problems = problems_of(tmp_path, doc)
    assert f"{path}: sweep/setting: 'innodb_doublewrite'; expected " \
           "'innodb_buffer_pool_instances', the setting recipe/text sweeps" in problems
    assert f"{path}: points: 2 points; expected 4, one per value recipe/text sweeps ('1', '2', " \
           "'4', '8')" in problems
    assert f"{path}: dataset/shape: 'disk-bound'; expected 'cpu-bound', what profile quick of " \
           "recipe/text gives" in problems



# --- a point the server could not express (plan/skipped) --------------------------------------

def modes_experiment():
    return load("doublewrite", variant="modes").experiment("quick")


def skipped_doc(value: str, flavor: str = "mysql", version: str = "9.7.4") -> dict:
    return {"plan": {"seed": 1, "repeats": 2, "skipped": [{"value": value, "why": "refused"}]},
            "server": {"flavor": flavor, "version": version}}


def test_a_point_skipped_where_the_server_lacks_its_value_is_accepted():
    from tuninglab.contrib import experiment as ex
    doc = skipped_doc("fast")
    assert ex.check_skipped(doc, modes_experiment(), "mysql", (9, 7, 4)) == []
    doc["schema_version"] = 2
    plan = ex.plan_of(doc, modes_experiment())
    assert [p.value for p in plan.points] == ["ON", "DETECT_ONLY", "OFF"]
    assert len(plan.runs) == 6


@pytest.mark.parametrize("value, flavor, version, words", [
    ("OFF", "mysql", (9, 7, 4), "MySQL 9.7.4 takes this value of innodb_doublewrite"),
    ("fast", "mariadb", (11, 8, 9), "MariaDB 11.8.9 takes this value"),
    ("DETECT_ONLY", "mysql", (8, 0, 30), "takes this value"),
    ("ON", "mysql", (9, 7, 4), "expected a value of the sweep other than its baseline"),
    ("O_DIRECT", "mysql", (9, 7, 4), "expected a value of the sweep other than its baseline")])
def test_a_point_skipped_that_the_server_takes_is_refused(value, flavor, version, words):
    from tuninglab.contrib import experiment as ex
    doc = skipped_doc(value, flavor, ".".join(map(str, version)))
    [problem] = ex.check_skipped(doc, modes_experiment(), flavor, version)
    assert "plan/skipped/0/value" in problem and words in problem
