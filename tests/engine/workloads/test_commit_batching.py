"""The commit-batching recipe and a workload.* sweep through the engine: the recipe, the result
document, the measured phase (native) and the lab VM's job. Nothing is started."""

import json
from contextlib import contextmanager
from dataclasses import asdict
from types import SimpleNamespace

import pytest

from helpers import REPO, fixture_recipe, make_doc
from tuninglab.engine.measure import phase as measure
from tuninglab.engine.run import record
from tuninglab.engine.lab.vm import LabVM
from tuninglab.engine.server.mysqld import ServerBinary
from tuninglab.engine.workloads import sysbench
from tuninglab.engine.workloads.sysbench import Report
from tuninglab.recipes import plan
from tuninglab.recipes.load import load, load_all
from tuninglab.recipes.model import Measure, Sweep, Workload
from tuninglab.results import document


def test_the_recipe_and_its_variants():
    main, pk, buffered = load_all("commit-batching")
    assert (pk.variant, buffered.variant) == ("primary-key", "os-buffered")
    for r, key, trx_commit in ((main, "unique", "1"), (pk, "primary", "1"),
                               (buffered, "unique", "2")):
        assert r.workload == Workload("sysbench", "insert_batch", 1,
                                      {"commit": "statement", "key": key})
        assert r.sweep == Sweep("workload.commit", ("statement", "100", "1s"), "statement")
        assert dict(r.server_settings) == {
            "transaction_isolation": "READ-COMMITTED", "innodb_autoinc_lock_mode": "2",
            "innodb_flush_log_at_trx_commit": trx_commit, "innodb_doublewrite": "OFF",
            "innodb_log_file_size": "256M"}
        assert (r.dataset.tables, r.dataset.table_size) == (1, 1000)
        assert not r.needs and not r.in_lab_vm
    assert main.measure == Measure(10.0, 45.0, 3)
    assert main.experiment("quick").measure == Measure(3.0, 15.0, 3)


@pytest.mark.parametrize("variant", ["", "primary-key"])
def test_each_points_workload_survives_the_lab_vms_json(variant):
    e = load("commit-batching", variant=variant).experiment()
    for point in plan.build(e).points:
        back = Workload(**json.loads(json.dumps(asdict(point.workload), default=list)))
        assert back == point.workload
        assert dict(back.options)["commit"] == point.value


def test_result_document_names_the_options_and_is_valid():
    p = plan.build(load("commit-batching").experiment("quick"))
    binary = ServerBinary("/usr/sbin/mariadbd", "mariadb", (10, 11, 19),
                          "mariadbd  Ver 10.11.19-MariaDB-0+deb12u1")
    hand = make_doc()
    doc = record.new_document(p, binary, {k: hand[k] for k in
                                           ("software", "host", "storage", "device_baseline")})
    assert document.validate(doc) == []
    workload = doc["workload"]
    assert workload["options"] == {"commit": "statement", "key": "unique"}  # the baseline's
    assert workload["command"][1] == "tuninglab/workloads/lua/insert_batch.lua"
    assert "--commit=statement" in workload["command"]
    assert str(REPO) not in json.dumps(workload)   # no checkout path
    assert [pt["id"] for pt in doc["points"]] == ["workload.commit=statement",
                                                  "workload.commit=100", "workload.commit=1s"]


def test_warm_up_and_measured_run_use_the_points_workload(monkeypatch):
    e = load("commit-batching").experiment("quick")
    point = next(pt for pt in plan.build(e).points if pt.value == "1s")
    commands = []

    def fake_run(command, on_interval=None, timeout=None):
        commands.append(command)
        return Report([], {"transactions": 100, "tps": 10.0, "latency_p95_ms": 1.0})

    @contextmanager
    def fake_sampling(*args, **kwargs):
        yield SimpleNamespace(totals={}, samples=[], cost={})

    monkeypatch.setattr(sysbench, "run", fake_run)
    monkeypatch.setattr(measure, "sampling", fake_sampling)
    clock = SimpleNamespace(phase=lambda *a: None, tick=None)
    server = SimpleNamespace(socket="/s.sock", variables=lambda names: {"max_connections": "151"})
    summary, _, _ = measure.oltp(server, [], point.workload, e.measure, e.dataset, clock)
    assert summary["tps"] == 10.0
    assert len(commands) == 2
    assert all(c[1].endswith("insert_batch.lua") and "--commit=1s" in c and "--key=unique" in c
               for c in commands)
    assert ["--time=3" in c for c in commands] == [True, False]   # warm-up, then measured


def test_the_lab_vms_job_carries_the_points_workload(tmp_path, monkeypatch):
    fixture_recipe(tmp_path / "recipes", "lab-batch")
    e = load("lab-batch", recipes_dir=tmp_path / "recipes").experiment()
    run_ = next(r for r in plan.build(e).runs if r.point.value == "1s")
    jobs = []
    monkeypatch.setattr(LabVM, "_job_disk",
                        lambda self, job, spec, template: jobs.append(spec) or job / "job.img")
    job = tmp_path / "job"
    job.mkdir()
    LabVM(tmp_path, {}, {})._disks(job, run_, e, tmp_path / "template")
    [spec] = jobs
    back = Workload(**json.loads(json.dumps(spec, default=list))["workload"])
    assert back == run_.point.workload and dict(back.options)["commit"] == "1s"
