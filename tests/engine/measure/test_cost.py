"""The server's cost per transaction without a server: the /proc parsers on captured text, the
status counters on the captured SHOW GLOBAL STATUS, the sampler's readings over a phase, the
run summary's cost, and the schema and data.check on it."""

import copy
import os
from contextlib import contextmanager
from types import SimpleNamespace

import pytest

from helpers import FIXTURES, FakeConnection, make_doc
from tuninglab.contrib import values
from tuninglab.engine.measure import cost, phase as measure, sampler
from tuninglab.engine.workloads import sysbench
from tuninglab.recipes.model import Dataset, Measure, Workload
from tuninglab.results import document

# Captured on Linux 6.18 (cat /proc/self/stat and /proc/self/io of a python3 that computed for
# a while and wrote and fsynced 1 MiB on ext4): utime 22 and stime 2 ticks.
PROC_STAT = (
    "10509 (python3) R 10507 10507 9245 0 -1 4194304 3102 6527 3 0 22 2 4 3 20 0 1 0 1474788 "
    "16965632 3384 18446744073709551615 93925892415488 93925892415829 140722941083120 0 0 0 0 "
    "16781312 2 0 0 0 17 1 0 0 0 0 0 93925892427184 93925892427800 93926496501760 "
    "140722941089787 140722941090061 140722941090061 140722941091791 0\n")
PROC_IO = ("rchar: 1686150\nwchar: 1050586\nsyscr: 669\nsyscw: 32\nread_bytes: 356352\n"
           "write_bytes: 1077248\ncancelled_write_bytes: 0\n")
KEYS = {"server_cpu_us_per_trx", "host_cpu_us_per_trx", "server_read_bytes_per_trx",
        "server_write_bytes_per_trx", "fsyncs_per_trx", "log_fsyncs_per_trx",
        "redo_bytes_per_trx"}


@pytest.fixture(scope="module")
def mariadb_status():
    lines = (FIXTURES / "mariadb_10.11_global_status.tsv").read_text().splitlines()
    assert lines[0] == "Variable_name\tValue"
    return dict(line.split("\t", 1) for line in lines[1:] if line)


# --- /proc/<pid>/stat and /proc/<pid>/io --------------------------------------------------

def test_process_cpu_is_utime_plus_stime():
    assert cost.parse_process_cpu(PROC_STAT) == 22 + 2


def test_a_command_name_with_spaces_and_parentheses_does_not_shift_the_fields():
    odd = PROC_STAT.replace("(python3)", "(my ) (odd) name)")
    assert cost.parse_process_cpu(odd) == 24


def test_process_io_is_the_bytes_sent_to_and_read_from_storage():
    assert cost.parse_process_io(PROC_IO) == {"server_read_bytes": 356352,
                                              "server_write_bytes": 1077248}


def test_a_kernel_without_a_field_leaves_it_out():
    assert cost.parse_process_io("rchar: 5\nwrite_bytes: 4096\n") == {"server_write_bytes": 4096}


def test_process_counters_in_microseconds_and_bytes(monkeypatch):
    texts = {"/proc/42/stat": PROC_STAT, "/proc/42/io": PROC_IO}
    monkeypatch.setattr(cost, "_read", texts.__getitem__)
    assert cost.process_counters(42, tick=100) == {
        "server_cpu_us": 240000.0, "server_read_bytes": 356352, "server_write_bytes": 1077248}


def test_an_unreadable_io_file_leaves_only_the_cpu(monkeypatch):
    def read(path):
        if path.endswith("/io"):
            raise PermissionError(path)   # another user's process, or no IO accounting
        return PROC_STAT
    monkeypatch.setattr(cost, "_read", read)
    assert cost.process_counters(42, tick=100) == {"server_cpu_us": 240000.0}


def test_no_process_or_a_gone_one_gives_nothing(tmp_path):
    assert cost.process_counters(None) == {}
    pid = max(int(p) for p in os.listdir("/proc") if p.isdigit()) + 10**6  # beyond pid_max
    assert cost.process_counters(pid) == {}


def test_this_process_reads_back():
    # Reading /proc of the test process itself: the real files parse on this kernel.
    got = cost.process_counters(os.getpid())
    assert got["server_cpu_us"] > 0
    assert all(got[k] >= 0 for k in got)


def test_host_cpu_from_busy_jiffies():
    assert cost.host_counters(250, tick=100) == {"host_cpu_us": 2_500_000.0}
    assert cost.host_counters(None) == {}
    busy, _ = sampler.cpu_times("cpu  10237 0 9135 97635 2389 0 539 32 0 0\n")
    assert cost.host_counters(busy, tick=100)["host_cpu_us"] == busy * 10_000


# --- SHOW GLOBAL STATUS --------------------------------------------------------------------

def test_mariadb_10_11_has_fsyncs_and_redo_bytes_but_no_log_fsyncs(mariadb_status):
    # MariaDB 10.8 removed Innodb_os_log_fsyncs: absent, not zero.
    assert cost.status_counters(mariadb_status) == {"fsyncs": 13494, "redo_bytes": 21693253}


def test_mysql_names_its_log_fsyncs():
    # No SHOW GLOBAL STATUS of MySQL is captured (the MySQL fixture is INNODB_METRICS); these
    # are the names its manual's list of server status variables gives.
    status = {"Innodb_data_fsyncs": "700", "Innodb_os_log_fsyncs": "300",
              "Innodb_os_log_written": 123456}
    assert cost.status_counters(status) == {"fsyncs": 700, "log_fsyncs": 300,
                                            "redo_bytes": 123456}


def test_a_non_numeric_counter_is_left_out():
    assert cost.status_counters({"Innodb_data_fsyncs": "n/a", "Innodb_os_log_written": None}) \
        == {}


# --- over the phase, per transaction ----------------------------------------------------------

def test_growth_leaves_out_what_is_missing_or_went_backwards():
    before = {"server_cpu_us": 100.0, "fsyncs": 10, "redo_bytes": 500, "log_fsyncs": 3}
    after = {"server_cpu_us": 350.0, "fsyncs": 4, "redo_bytes": 900, "host_cpu_us": 9.0}
    assert cost.delta(before, after) == {"server_cpu_us": 250.0, "redo_bytes": 400}


def test_per_transaction_keys_and_significant_digits():
    growth = {"server_cpu_us": 1234567.0, "host_cpu_us": 2e6, "server_read_bytes": 0,
              "server_write_bytes": 40960000, "fsyncs": 7, "log_fsyncs": 3,
              "redo_bytes": 12345678}
    got = cost.per_transaction(growth, 3000)
    assert set(got) == KEYS
    assert got["server_cpu_us_per_trx"] == 411.5          # 411.522...
    assert got["fsyncs_per_trx"] == 0.002333             # thousandths keep their digits
    assert got["log_fsyncs_per_trx"] == 0.001
    assert got["server_read_bytes_per_trx"] == 0.0
    assert got["redo_bytes_per_trx"] == 4115.0           # 4115.226
    assert all(isinstance(v, float) for v in got.values())


def test_no_transactions_or_no_counter_gives_no_cost():
    assert cost.per_transaction({"fsyncs": 5}, 0) is None
    assert cost.per_transaction({}, 100) is None
    assert cost.per_transaction(None, 100) is None


def test_only_the_counters_read_become_keys():
    assert cost.per_transaction({"fsyncs": 10, "redo_bytes": 2048}, 4) == {
        "fsyncs_per_trx": 2.5, "redo_bytes_per_trx": 512.0}


# --- the sampler's readings at the phase's ends -----------------------------------------------

def status_connection(status) -> FakeConnection:
    """Answers SHOW GLOBAL STATUS with the captured MariaDB rows, its fsyncs and redo bytes
    grown by 100 and 1 MB each reading; no rows to anything else."""
    reads = iter(range(10**6))

    def rows(sql):
        if sql != "SHOW GLOBAL STATUS":
            return ()
        n, grown = next(reads), dict(status)
        grown["Innodb_data_fsyncs"] = str(int(grown["Innodb_data_fsyncs"]) + 100 * n)
        grown["Innodb_os_log_written"] = str(int(grown["Innodb_os_log_written"]) + 10**6 * n)
        return tuple(grown.items())
    return FakeConnection(rows)


def sampled_cost(monkeypatch, status, pid):
    processes = iter([{"server_cpu_us": 1000.0, "server_write_bytes": 4096},
                      {"server_cpu_us": 51000.0, "server_write_bytes": 4096 + 81920}])
    monkeypatch.setattr(cost, "process_counters", lambda p: next(processes) if p else {})
    busy = iter([(1000, 5000), (1300, 5600)])
    monkeypatch.setattr(sampler, "cpu_times", lambda: next(busy))
    server = SimpleNamespace(binary=SimpleNamespace(flavor="mariadb"),
                             connect=lambda: status_connection(status))
    s = sampler.Sampler(server, devices=[], interval=3600, pid=pid)  # start and stop read only
    s.start()
    s.stop()
    return s.cost


def test_the_sampler_counts_the_phase_between_its_first_and_last_reading(monkeypatch,
                                                                         mariadb_status):
    tick = cost.clock_tick()
    assert sampled_cost(monkeypatch, mariadb_status, pid=42) == {
        "server_cpu_us": 50000.0, "host_cpu_us": 300 * 1e6 / tick,
        "server_write_bytes": 81920, "fsyncs": 100, "redo_bytes": 10**6}


def test_a_sampler_without_the_servers_pid_counts_only_the_server_status(monkeypatch,
                                                                        mariadb_status):
    assert set(sampled_cost(monkeypatch, mariadb_status, pid=None)) == {
        "host_cpu_us", "fsyncs", "redo_bytes"}


# --- the run summary ----------------------------------------------------------------------

def summary_of(monkeypatch, transactions, growth):
    def fake_run(command, on_interval=None, timeout=None):
        return sysbench.Report([], {"transactions": transactions, "tps": transactions / 2.0,
                                    "latency_p95_ms": 1.0})

    @contextmanager
    def fake_sampling(*args, **kwargs):
        yield SimpleNamespace(totals={}, samples=[], cost=growth)

    monkeypatch.setattr(sysbench, "run", fake_run)
    monkeypatch.setattr(measure, "sampling", fake_sampling)
    server = SimpleNamespace(socket="/s.sock", variables=lambda names: {"max_connections": "151"})
    workload = Workload("sysbench", "oltp_write_only", 2)
    clock = SimpleNamespace(phase=lambda *a: None, tick=None)
    summary, _, _ = measure.oltp(server, [], workload, Measure(0.0, 2.0, 1),
                                 Dataset("cpu-bound", 2, 1000, "32M"), clock)
    return summary


def test_the_summary_holds_the_cost_beside_the_device_wide_io(monkeypatch):
    summary = summary_of(monkeypatch, 400, {"server_cpu_us": 200000.0, "fsyncs": 800,
                                            "server_write_bytes": 1638400})
    assert summary["cost"] == {"server_cpu_us_per_trx": 500.0, "server_write_bytes_per_trx":
                               4096.0, "fsyncs_per_trx": 2.0}
    assert "write_bytes_per_trx" in summary["io"]


@pytest.mark.parametrize("transactions, growth", [(0, {"fsyncs": 800}), (400, {})])
def test_no_transactions_or_no_reading_leaves_the_cost_out(monkeypatch, transactions, growth):
    assert "cost" not in summary_of(monkeypatch, transactions, growth)


# --- the schema and data.check ------------------------------------------------------------

FULL_COST = {"server_cpu_us_per_trx": 512.3, "host_cpu_us_per_trx": 998.0,
             "server_read_bytes_per_trx": 0.0, "server_write_bytes_per_trx": 9216.0,
             "fsyncs_per_trx": 1.02, "log_fsyncs_per_trx": 0.51, "redo_bytes_per_trx": 2210.0}


def doc_with_cost(cost_value):
    doc = make_doc()
    for point in doc["points"]:
        for run in point["runs"]:
            run["summary"]["cost"] = copy.deepcopy(cost_value)
    return doc


def test_a_result_with_the_cost_validates_and_one_without_still_does():
    assert document.validate(doc_with_cost(FULL_COST)) == []
    assert document.validate(doc_with_cost({"fsyncs_per_trx": 1.0})) == []  # keys optional
    assert document.validate(make_doc()) == []


@pytest.mark.parametrize("bad, says", [
    ({"cpu_per_trx": 1.0}, "Additional properties"),
    ({"fsyncs_per_trx": -1.0}, "minimum"),
    ({"fsyncs_per_trx": None}, "not of type"),
])
def test_the_schema_refuses_other_keys_negative_or_null_figures(bad, says):
    problems = document.validate(doc_with_cost(bad))
    assert problems and all("summary/cost" in p for p in problems)
    assert any(says in p for p in problems)


@pytest.mark.parametrize("key, bound", [
    ("server_cpu_us_per_trx", 1e14), ("host_cpu_us_per_trx", 1e14),
    ("server_read_bytes_per_trx", 1e17), ("server_write_bytes_per_trx", 1e17),
    ("redo_bytes_per_trx", 1e17), ("fsyncs_per_trx", 1e15), ("log_fsyncs_per_trx", 1e15)])
def test_data_check_bounds_each_cost(key, bound):
    assert values.bound_of(("points", 0, "runs", 0, "summary", "cost", key))[0] == bound
    doc = doc_with_cost({key: bound * 10})
    assert any(key in p and "beyond what a machine measures" in p
               for p in values.check_magnitudes(doc))
    assert values.check_magnitudes(doc_with_cost(FULL_COST)) == []
