"""The server's cost per transaction on the real server: every run of the tiny recipe records
it, and its figures are of the size a small write-only sysbench run gives."""

import pytest

from helpers import fixture_recipe, run_recipe

pytestmark = pytest.mark.integration

# The tiny recipe: oltp_write_only (4 writes and a commit per transaction), 2 tables of 2000
# rows in a 32M buffer pool, 2 threads for 2 s. The bounds are loose on purpose: far beyond
# any real run's, far short of a wrong unit (ticks for µs, a device's bytes for the server's).
CPU_US_PER_TRX = (1.0, 1e6)          # a write transaction: microseconds to milliseconds
FSYNCS_PER_TRX = (0.01, 100.0)       # about one per commit with innodb_flush_log_at_trx_commit=1
BYTES_PER_TRX = 1e8                  # no transaction here writes 100 MB
REDO_BYTES_PER_TRX = (10.0, 1e6)     # four small row changes


def test_every_run_records_what_its_transactions_cost_the_server(recipes_dir, shared_workdir,
                                                                 tmp_path):
    fixture_recipe(recipes_dir, "tiny")
    _, doc = run_recipe("tiny", recipes_dir, shared_workdir, tmp_path / "data")
    runs = [run for point in doc["points"] for run in point["runs"]]
    assert len(runs) == 4
    for run in runs:
        summary = run["summary"]
        assert summary["transactions"] > 0
        c = summary["cost"]
        assert c["server_cpu_us_per_trx"] > 0
        assert c["fsyncs_per_trx"] > 0
        assert c["server_write_bytes_per_trx"] >= 0
        assert CPU_US_PER_TRX[0] <= c["server_cpu_us_per_trx"] <= CPU_US_PER_TRX[1]
        # The host's busy CPU includes the server's (and sysbench's): never much less.
        assert c["host_cpu_us_per_trx"] >= 0.5 * c["server_cpu_us_per_trx"]
        assert FSYNCS_PER_TRX[0] <= c["fsyncs_per_trx"] <= FSYNCS_PER_TRX[1]
        assert c["server_write_bytes_per_trx"] <= BYTES_PER_TRX
        assert c["server_read_bytes_per_trx"] <= BYTES_PER_TRX
        assert REDO_BYTES_PER_TRX[0] <= c["redo_bytes_per_trx"] <= REDO_BYTES_PER_TRX[1]
        if without_log_fsyncs(doc["server"]):
            assert "log_fsyncs_per_trx" not in c   # absent, not 0
        else:
            assert c["log_fsyncs_per_trx"] > 0


def without_log_fsyncs(server: dict) -> bool:
    """MariaDB 10.8 removed Innodb_os_log_fsyncs; MySQL and Percona have it."""
    if server["flavor"] != "mariadb":
        return False
    major, minor = (int(x) for x in server["version"].split(".")[:2])
    return (major, minor) >= (10, 8)
