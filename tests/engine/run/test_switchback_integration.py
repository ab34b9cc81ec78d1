"""Switchback runs on the real server: one server, the settings switched with SET GLOBAL
between blocks; a setting the server reads only at startup is refused or falls back to
restarts; an interrupted switchback resumes at its next round."""

import json
import os

import pytest

from helpers import NOTHING, fixture_recipe, leftovers, run_options, run_recipe, servers_under
from tuninglab.contrib import forgery, values
from tuninglab.engine.run import runner
from tuninglab.engine.server import dynamic
from tuninglab.engine.run.resume import Saved
from tuninglab.errors import Interrupted, UserError
from tuninglab.results import document

pytestmark = pytest.mark.integration


def test_a_switchback_run_switches_at_run_time_and_pairs_its_blocks(recipes_dir, shared_workdir,
                                                                     tmp_path):
    fixture_recipe(recipes_dir, "tiny-switchback")
    lines = []
    path, doc = run_recipe("tiny-switchback", recipes_dir, shared_workdir, tmp_path / "data",
                           lines.append)
    assert doc["schema_version"] == 2
    assert doc["plan"]["design"] == "switchback" and doc["plan"]["settle_s"] == 1
    tps = doc["switchback"]["tps"]
    assert len(tps) >= 2 + 8 * 3  # the warm-up, then 8 blocks of 1 s settle + 2 s measured
    blocks = []
    for point in doc["points"]:
        assert sorted(r["repeat"] for r in point["runs"]) == [1, 2, 3, 4]
        for run in point["runs"]:
            assert run["effective"]["innodb_flush_log_at_trx_commit"] == point["value"]
            b = run["block"]
            assert b["first_s"] == b["switched_s"] + 2 and b["last_s"] == b["first_s"] + 1
            assert run["summary"]["tps"] == pytest.approx(
                sum(tps[b["first_s"] - 1:b["last_s"]]) / 2, abs=0.01)
            assert len(run["series"]["tps"]) == 2 and len(run["series"]["cpu_busy_pct"]) == 2
            assert run["summary"]["cost"]["fsyncs_per_trx"] >= 0
            blocks.append((b["switched_s"], point["value"], run["repeat"]))
    # in the plan's order, one block after the other, each round one block of each value
    order = [f"innodb_flush_log_at_trx_commit={v}#{r}" for _, v, r in sorted(blocks)]
    assert order == doc["plan"]["order"]
    ratio = doc["points"][1]["stats"]["ratio"]
    assert ratio["verdict_kind"] in ("faster", "slower", "equivalent", "too noisy to tell")
    assert doc["methods"]["ratio"].startswith("switchback: ")
    # flush_log_at_trx_commit=2 syncs the log about once a second, not at every commit
    fsyncs = doc["points"][1]["stats"]["cost"]["fsyncs_per_trx"]["ratio"]
    assert fsyncs["verdict_kind"] == "less" and fsyncs["ratio"] < 0.1
    assert forgery.check_statistics(doc) == [] and values.check_numbers(doc) == []
    assert any(line.startswith("design: switchback: one server") for line in lines)
    assert any(line.startswith("switchback: 4 rounds of 2 blocks") for line in lines)
    assert servers_under(shared_workdir) == []
    assert not (shared_workdir / "runs" / "switchback").exists()


def test_switchback_on_a_setting_read_at_startup_is_refused_naming_it(recipes_dir,
                                                                      shared_workdir, tmp_path):
    fixture_recipe(recipes_dir, "tiny-switchback", "fixed", replace={
        "innodb_flush_log_at_trx_commit": "innodb_doublewrite",
        "values = [1, 2]": 'values = ["ON", "OFF"]', "baseline = 1": 'baseline = "ON"'})
    with pytest.raises(UserError) as err:
        runner.run("fixed", run_options(recipes_dir, shared_workdir, tmp_path / "data"))
    assert "measure.design" in str(err.value)
    assert "reads innodb_doublewrite only at startup" in str(err.value)
    assert not (tmp_path / "data").exists()
    assert servers_under(shared_workdir) == []
    binary_answers = json.loads((shared_workdir / dynamic.ANSWERS).read_text())
    assert any(a.get("innodb_doublewrite") is False for a in binary_answers.values())


def test_auto_falls_back_to_restarts_and_says_so(recipes_dir, tmp_path):
    fixture_recipe(recipes_dir, "tiny-switchback", "auto-fixed", replace={
        "innodb_flush_log_at_trx_commit": "innodb_doublewrite", 'design = "switchback"': "",
        "values = [1, 2]": 'values = ["ON", "OFF"]', "baseline = 1": 'baseline = "ON"',
        "repeats = 4": "repeats = 2"})
    wd, lines = tmp_path / "wd", []
    path, doc = run_recipe("auto-fixed", recipes_dir, wd, tmp_path / "data", lines.append)
    assert doc["plan"]["design"] == "restart"
    assert doc["plan"]["fallback"]["from"] == "switchback"   # data.check requires it
    assert doc["plan"]["fallback"]["startup_only"] == ["innodb_doublewrite"]
    assert "reads innodb_doublewrite only at startup" in doc["plan"]["fallback"]["reason"]
    assert any("reads innodb_doublewrite only at startup: measuring with a fresh server per "
               "run instead (design: restart)" in line for line in lines)
    dry = []
    runner.run("auto-fixed", run_options(recipes_dir, wd, tmp_path / "data", dry_run=True),
               say=dry.append)  # the answer is remembered: no server to ask
    assert "\ndesign: restart (a fresh copy and server per run: the server cannot change" in \
        "\n".join(dry)


def test_an_interrupted_switchback_resumes_at_its_next_round(recipes_dir, shared_workdir,
                                                             tmp_path, monkeypatch):
    fixture_recipe(recipes_dir, "tiny-switchback", "resumed")
    saves = []
    original = Saved.save

    def save_then_stop(self, doc):
        original(self, doc)
        saves.append(len(document.done_keys(doc)))
        if len(saves) == 3:  # the new document, round 1, round 2: then Ctrl-C
            raise KeyboardInterrupt

    monkeypatch.setattr(Saved, "save", save_then_stop)
    opts = run_options(recipes_dir, shared_workdir, tmp_path / "data")
    with pytest.raises(Interrupted):
        runner.run("resumed", opts)
    assert saves == [0, 2, 4]
    assert servers_under(shared_workdir) == []
    monkeypatch.setattr(Saved, "save", original)
    lines = []
    path, doc = run_recipe("resumed", recipes_dir, shared_workdir, tmp_path / "data",
                           lines.append)
    assert any("resuming: 4 finished runs kept" in line for line in lines)
    assert any(line.startswith("switchback: 2 rounds of 2 blocks") for line in lines)
    seconds = [r["block"]["switched_s"] for p in doc["points"] for r in p["runs"]]
    assert len(set(seconds)) == 8 and max(seconds) < len(doc["switchback"]["tps"])
    later = [r for p in doc["points"] for r in p["runs"] if r["repeat"] > 2]
    assert min(r["block"]["switched_s"] for r in later) > max(
        r["block"]["last_s"] for p in doc["points"] for r in p["runs"] if r["repeat"] <= 2)


def test_the_stop_rule_adds_switchback_rounds_until_its_budget(recipes_dir, shared_workdir,
                                                               tmp_path):
    fixture_recipe(recipes_dir, "tiny-switchback", "ruled", replace={"repeats = 4": "repeats = 2"})
    lines = []
    path, doc = run_recipe("ruled", recipes_dir, shared_workdir, tmp_path / "data",
                           lines.append, precision="0.01%", budget="45s")
    rounds = doc["plan"]["repeats"]
    assert rounds > 2  # rounds were added after the 2 planned ...
    assert "would overrun the budget" in doc["plan"]["stopped"]  # ... until the budget
    assert doc["plan"]["precision_pct"] == 0.01 and doc["plan"]["budget_s"] == 45
    assert len(doc["plan"]["order"]) == 2 * rounds
    for point in doc["points"]:
        assert sorted(r["repeat"] for r in point["runs"]) == list(range(1, rounds + 1))
    assert any(line.endswith(": round 3") for line in lines)
    # the added rounds start the load again after a settle, not a whole warm-up
    blocks = sorted(r["block"]["switched_s"] for p in doc["points"] for r in p["runs"])
    assert max(blocks) < len(doc["switchback"]["tps"])
    assert servers_under(shared_workdir) == []


def test_a_switchback_on_one_sandbox_switches_the_io_scheduler_in_sysfs(recipes_dir,
                                                                        shared_workdir, tmp_path):
    if os.geteuid() != 0:
        pytest.skip("needs root: a loop-device sandbox")
    fixture_recipe(recipes_dir, "tiny-storage", "queue-switch", replace={
        '[measure]\nduration = "30s"\nrepeats = 1': '[measure]\nwarmup = "2s"\nsettle = "1s"\n'
                                                   'duration = "2s"\nrepeats = 2'})
    lines = []
    path, doc = run_recipe("queue-switch", recipes_dir, shared_workdir, tmp_path / "data",
                           lines.append)
    assert doc["plan"]["design"] == "switchback"
    devices = set()
    for point in doc["points"]:
        assert sorted(r["repeat"] for r in point["runs"]) == [1, 2]
        for run in point["runs"]:
            # the kernel's scheduler for the block, read back after the switch
            assert run["storage"]["scheduler"] == point["value"]
            assert run["storage"]["sandbox"] is True
            devices.add(run["storage"]["device"])
            assert ("device_baseline" in run) == (run["repeat"] == 1)
            assert run["summary"]["io"]["write_bytes_per_trx"] > 0
    assert len(devices) == 1  # one sandbox for the whole session
    assert any(line.startswith("switchback: 2 rounds of 2 blocks") for line in lines)
    assert forgery.check_statistics(doc) == []
    assert servers_under(shared_workdir) == []
    assert leftovers(shared_workdir) == NOTHING
    assert not (shared_workdir / "sandboxes" / "switchback").exists()


def test_a_steady_state_warm_up_starts_the_blocks_once_the_load_stops_trending(
        recipes_dir, shared_workdir, tmp_path):
    fixture_recipe(recipes_dir, "tiny-switchback", "steady", replace={
        "repeats = 4": "repeats = 2", 'warmup = "2s"': 'warmup = "5s"'})
    lines = []
    path, doc = run_recipe("steady", recipes_dir, shared_workdir, tmp_path / "data",
                           lines.append)
    warm = doc["switchback"]["warm_up"]
    assert warm["bound_s"] == 15   # 5 s, two 5 s windows more at most
    # the recipe's seconds at least, the bound at most
    assert 5 <= warm["seconds"] <= warm["bound_s"]
    first = min(r["block"]["switched_s"] for p in doc["points"] for r in p["runs"])
    last = max(r["block"]["last_s"] for p in doc["points"] for r in p["runs"])
    assert first == warm["seconds"]
    # sysbench stopped after the last block, not at the end of the longest warm-up
    assert last <= len(doc["switchback"]["tps"]) <= last + 1
    assert any(line.startswith("    warm-up: ") for line in lines)
    assert "warmed up until its throughput stopped trending" in document.design_text(doc) or \
        "its bound" in document.design_text(doc)
    assert forgery.check_statistics(doc) == []
    assert servers_under(shared_workdir) == []
