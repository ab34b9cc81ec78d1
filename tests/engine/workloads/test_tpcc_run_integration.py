"""A TPC-C-like recipe through the whole engine on the real server: the template of warehouses,
the measured runs, the result file; and the refusals before any measurement."""

import json

import pytest

from helpers import fixture_recipe, run_options, run_recipe, servers_under
from tuninglab.engine.run import runner
from tuninglab.engine.workloads import tpcc
from tuninglab.errors import UserError

pytestmark = pytest.mark.integration




def test_a_tpcc_recipe_writes_a_valid_consistent_result(recipes_dir, shared_workdir, tmp_path):
    fixture_recipe(recipes_dir, "tiny-tpcc")
    lines = []
    _, doc = run_recipe("tiny-tpcc", recipes_dir, shared_workdir, tmp_path / "data", lines.append)
    assert "invalid" not in doc
    assert doc["dataset"] == {"shape": "cpu-bound", "warehouses": 1, "buffer_pool_size": "128M"}
    for point in doc["points"]:
        run = point["runs"][0]
        summary = run["summary"]
        assert summary["new_order_tpm"] > 0 and summary["tpcc"]["consistency"]["ok"]
        counts = {k: v["count"] for k, v in summary["tpcc"]["transactions"].items()}
        assert sum(counts.values()) == summary["transactions"]
        assert len(run["series"]["new_order_tpm"]) == len(run["series"]["t"])
        assert point["stats"]["new_order_tpm"]["median"] == summary["new_order_tpm"]
    assert any("new-order TPM" in line and "consistent" in line for line in lines)
    metas = [json.loads(p.read_text()) for p in (shared_workdir / "templates").glob("*/meta.json")]
    assert {"warehouses": 1, "workload": "tpcc", "schema_version": tpcc.SCHEMA_VERSION}.items() \
        <= next(m for m in metas if m.get("workload") == "tpcc").items()
    assert servers_under(shared_workdir) == []


def test_more_threads_than_connections_is_refused_before_measuring(recipes_dir, shared_workdir,
                                                                     tmp_path):
    # MariaDB's smallest max_connections is 10
    fixture_recipe(recipes_dir, "tiny-tpcc", "tpcc-few-connections", replace={
        "threads = 2": "threads = 9",
        "[measure]": "[server.settings]\nmax_connections = 10\n\n[measure]"})
    with pytest.raises(UserError, match=r"9 threads need 11 connections .* max_connections = 10"):
        runner.run("tpcc-few-connections",
                   run_options(recipes_dir, shared_workdir, tmp_path / "data"))
    assert servers_under(shared_workdir) == []
    assert not (tmp_path / "data").exists()

