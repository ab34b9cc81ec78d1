"""The TPC-C-like workload in the engine, without a server: recipes with tool = "tpcc", the
template's identity, the measured phase on captured output, the connection limit and the
dataset checks before a run."""

import copy
import json
from contextlib import contextmanager
from types import SimpleNamespace

import pytest

from helpers import FIXTURES, load_error, recipe_text
from tuninglab.engine.measure import phase as measure
from tuninglab.engine.server import datadir
from tuninglab.engine.workloads import sysbench, tpcc
from tuninglab.errors import UserError
from tuninglab.recipes.model import Dataset, Measure, Workload
from tuninglab.results import document
from tuninglab.site import result_tables

RUN = (FIXTURES / "tpcc_run.txt").read_text()
DATASET = '[dataset]\nshape = "disk-bound"\n'
TPCC = '[workload]\ntool = "tpcc"\nthreads = 4\n[workload.options]\nactive_warehouses = 1\n'


def fake_server(state=(tpcc.SCHEMA_VERSION, 2), broken=(), max_connections=151):
    """Answers the dataset and consistency queries as a server holding `state` would."""
    def query(sql):
        if "information_schema" in sql:
            return [(0 if state is None else 1,)]
        if "tpcc_meta" in sql:
            return [] if state is None else [(state[0], state[1], state[1] + 1)]
        if "W_YTD" in sql or "w.w_ytd" in sql:
            return [(1, "300000.00", "299990.00")] if 1 in broken else []
        return []
    return SimpleNamespace(socket="/s.sock", query=query,
                           variables=lambda names: {"max_connections": str(max_connections)})


def run_oltp(monkeypatch, server, threads=4, options=(("active_warehouses", "1"),)):
    commands = []

    def fake_run(command, on_interval=None, timeout=None):
        commands.append(command)
        return sysbench.parse_report(RUN)

    @contextmanager
    def fake_sampling(*args, **kwargs):
        yield SimpleNamespace(totals={}, samples=[], cost={})

    monkeypatch.setattr(sysbench, "run", fake_run)
    monkeypatch.setattr(measure, "sampling", fake_sampling)
    workload = Workload("tpcc", "tpcc", threads, dict(options))
    dataset = Dataset("cpu-bound", 4, 1000, "256M", warehouses=2)
    clock = SimpleNamespace(phase=lambda *a: None, tick=None)
    summary, series, _ = measure.oltp(server, [], workload, Measure(1.0, 6.0, 1), dataset, clock)
    return summary, series, commands


def test_a_measured_run_reports_new_order_tpm_per_type_figures_and_consistency(monkeypatch):
    summary, series, commands = run_oltp(monkeypatch, fake_server())
    assert [c[-1] for c in commands] == ["run", "run"]
    assert all("--warehouses=2" in c and "--active-warehouses=1" in c and "--threads=4" in c
               for c in commands)
    # 1925 new-orders in sysbench's 6.0069 s
    assert summary["new_order_tpm"] == round(1925 * 60 / 6.0069, 1)
    assert summary["transactions"] == 4368
    t = summary["tpcc"]
    assert t["transactions"]["delivery"] == {"count": 195, "latency_p95_ms": 26.53}
    assert (t["rollbacks"], t["retries"]) == (20, 4)
    assert t["consistency"]["ok"] and len(t["consistency"]["conditions"]) == 4
    assert len(series["new_order_tpm"]) == len(series["t"]) == 6
    assert series["new_order_tpm"][0] == tpcc.parse_intervals(RUN)[0].new_orders * 60


def test_a_broken_condition_after_the_run_is_kept_not_hidden(monkeypatch):
    summary, _, _ = run_oltp(monkeypatch, fake_server(broken={1}))
    c = summary["tpcc"]["consistency"]
    assert not c["ok"]
    assert [x["ok"] for x in c["conditions"]] == [False, True, True, True]
    assert c["conditions"][0]["example"] == ["1", "300000.00", "299990.00"]


@pytest.mark.parametrize("state, says", [
    (None, "missing or not fully loaded"),
    ((tpcc.SCHEMA_VERSION - 1 if tpcc.SCHEMA_VERSION > 1 else 0, 2), "schema version"),
    ((tpcc.SCHEMA_VERSION, 5), "with 5 warehouses"),
])
def test_a_dataset_of_another_version_or_scale_is_refused_before_the_run(monkeypatch, state,
                                                                          says):
    with pytest.raises(UserError, match=says):
        run_oltp(monkeypatch, fake_server(state=state))


def test_more_threads_than_the_server_allows_connections_is_refused(monkeypatch):
    with pytest.raises(UserError, match=r"150 threads need 152 connections .* max_connections "
                                        r"= 151"):
        run_oltp(monkeypatch, fake_server(), threads=150)


# Recipes

def test_a_tpcc_recipe_needs_its_scale_and_no_other_workload_has_one(tmp_path):
    assert "dataset.warehouses: a tpcc workload needs its scale" in \
        load_error(tmp_path, recipe_text(workload=TPCC))
    for bad, says in (("0", "expected a whole number >= 1, got 0"),
                      ("-3", "expected a whole number >= 1, got -3")):
        message = load_error(tmp_path, recipe_text(workload=TPCC,
                                                   dataset=DATASET + f"warehouses = {bad}\n"))
        assert "dataset.warehouses" in message and says in message
    message = load_error(tmp_path, recipe_text(dataset=DATASET + "warehouses = 2\n"))
    assert "only a tpcc workload loads warehouses" in message


def test_active_warehouses_cannot_exceed_the_dataset(tmp_path):
    message = load_error(tmp_path, recipe_text(workload=TPCC.replace("= 1\n", "= 3\n"),
                                               dataset=DATASET + "warehouses = 2\n"))
    assert "active_warehouses: 3 is more than the 2 warehouses loaded" in message


def test_template_identity_follows_the_workload_and_the_schema_version():
    binary = SimpleNamespace(version_text="mariadbd 10.11")
    sysbench_data = Dataset("cpu-bound", 4, 1000, "256M")
    tpcc_data = Dataset("cpu-bound", 4, 1000, "256M", warehouses=2)
    assert datadir.identity(tpcc_data) == {"warehouses": 2, "workload": "tpcc",
                                            "schema_version": tpcc.SCHEMA_VERSION}
    assert datadir.key(binary, sysbench_data) != datadir.key(binary, tpcc_data)
    # tables and table_size do not matter to a TPC-C-like template
    assert datadir.key(binary, tpcc_data) == datadir.key(
        binary, Dataset("disk-bound", 8, 5, "64M", warehouses=2))


def test_a_template_of_another_schema_version_is_not_reused(monkeypatch):
    binary = SimpleNamespace(version_text="mariadbd 10.11")
    dataset = Dataset("cpu-bound", 4, 1000, "256M", warehouses=2)
    now = datadir.key(binary, dataset)
    monkeypatch.setattr(tpcc, "SCHEMA_VERSION", tpcc.SCHEMA_VERSION + 1)
    assert datadir.key(binary, dataset) != now  # another directory: loaded again, never mixed


# On the page

@pytest.fixture
def tpcc_doc(committed_data):
    """The latest committed TPC-C-like result of doublewrite (never one a user's run added)."""
    real = sorted((committed_data / "doublewrite").glob("*-tpcc.json"))
    if not real:
        pytest.skip("no TPC-C-like result of doublewrite in data/ yet")
    return json.loads(real[-1].read_text())


def test_the_mix_table_shows_each_types_share_and_p95_and_the_consistency(tpcc_doc):
    out = result_tables.tpcc(tpcc_doc)
    runs = len(tpcc_doc["points"][0]["runs"])
    assert out.count("<th>") == len(tpcc_doc["points"]) + 1  # a column per point
    assert f"{runs} of {runs}</td>" in out  # every run consistent
    assert "new-order: share" in out and "% · " in out


def test_a_broken_run_shows_in_the_mix_table_and_marks_the_result_invalid(tpcc_doc):
    doc = copy.deepcopy(tpcc_doc)
    run = doc["points"][1]["runs"][0]
    run["summary"]["tpcc"]["consistency"]["ok"] = False
    run["summary"]["tpcc"]["consistency"]["conditions"][2]["ok"] = False
    assert document.inconsistent_runs(doc) == [
        f"{doc['points'][1]['id']} repeat {run['repeat']}: TPC-C consistency condition(s) 3 "
        "broken after the run"]
    n = len(doc["points"][1]["runs"])
    assert f"{n - 1} of {n}</td>" in result_tables.tpcc(doc)
    finished = document.finish(doc)
    assert finished["invalid"] and document.validate(finished) == []


def test_a_tpcc_result_is_valid_and_carries_its_scale_not_sysbench_tables(tpcc_doc):
    assert document.validate(tpcc_doc) == []
    assert tpcc_doc["dataset"]["warehouses"] >= 1 and "tables" not in tpcc_doc["dataset"]
    assert tpcc_doc["workload"]["metric"] == "new_order_tpm"
    assert "tpcc.lua" in tpcc_doc["workload"]["command"][1]
