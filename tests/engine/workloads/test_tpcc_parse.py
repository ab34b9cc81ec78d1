"""Unit tests for the TPC-C-like workload's parsers and command builders, on captured output of
lua/tpcc.lua (2 warehouses, 4 threads, 6 s; a test held warehouse 1's row for a while with
innodb_lock_wait_timeout=1, so some payments were retried)."""

import shutil
import subprocess
from pathlib import Path

import pytest

from helpers import FIXTURES
from tuninglab.engine.workloads import sysbench, tpcc
from tuninglab.engine.workloads.tpcc import Metrics, TypeStats

RUN = (FIXTURES / "tpcc_run.txt").read_text()
PREPARE = (FIXTURES / "tpcc_prepare.txt").read_text()


def test_interval_line():
    line = ("[ 1s ] tpcc: new_order 491 10.35ms payment 455 6.72ms order_status 46 1.58ms "
            "delivery 43 17.92ms stock_level 53 5.75ms rollbacks 5 retries 0\n")
    m = tpcc.parse_interval(line)
    assert m.t == 1.0
    assert m.types["new_order"] == TypeStats(491, 10.35)
    assert m.types["stock_level"] == TypeStats(53, 5.75)
    assert (m.rollbacks, m.retries, m.new_orders, m.transactions) == (5, 0, 491, 1088)


def test_every_second_of_the_run():
    intervals = tpcc.parse_intervals(RUN)
    assert [m.t for m in intervals] == [1.0, 2.0, 3.0, 4.0, 5.0, 6.0]
    assert all(set(m.types) == set(tpcc.TRANSACTIONS) for m in intervals)
    # The second when warehouse 1 was locked: payments waited out a 1 s lock timeout.
    held = intervals[3]
    assert held.retries == 4 and held.types["payment"].p95_ms > 1000


def test_total_line_agrees_with_sysbench_and_the_seconds():
    total = tpcc.parse_total(RUN)
    assert total.t is None
    assert total.types["new_order"] == TypeStats(1925, 11.64)
    assert (total.rollbacks, total.retries) == (20, 4)
    summary = sysbench.parse_summary(RUN)
    # Every event is one transaction; each retry was one error sysbench let through.
    assert total.transactions == summary["transactions"] == 4368
    assert total.retries == summary["ignored_errors"]
    intervals = tpcc.parse_intervals(RUN)
    # The seconds miss at most the few transactions that end after the last report.
    for name in tpcc.TRANSACTIONS:
        seconds = sum(m.types[name].count for m in intervals)
        assert total.types[name].count - 4 <= seconds <= total.types[name].count


def test_sysbench_report_is_unchanged():
    # The script replaces sysbench's per-second hook; its lines must still parse as before.
    report = sysbench.parse_report(RUN)
    assert [i.t for i in report.intervals] == [1.0, 2.0, 3.0, 4.0, 5.0, 6.0]
    assert report.intervals[3].errors_per_s == 4.0
    assert report.summary["total_time_s"] == pytest.approx(6.0069)


def test_mix_and_rollbacks_in_the_run():
    total = tpcc.parse_total(RUN)
    share = {name: s.count / total.transactions for name, s in total.types.items()}
    assert share["new_order"] == pytest.approx(0.45, abs=0.03)
    assert share["payment"] == pytest.approx(0.43, abs=0.03)
    for name in ("order_status", "delivery", "stock_level"):
        assert share[name] == pytest.approx(0.04, abs=0.015)
    assert 0 < total.rollbacks < 0.03 * total.new_orders


@pytest.mark.parametrize("line", [
    "",
    "Threads started!",
    # sysbench's own line and the total are not per-second tpcc lines
    "[ 1s ] thds: 4 tps: 1063.99 qps: 26210.19 (r/w/o: 13983.80/10094.45/2131.94) "
    "lat (ms,95%): 10.09 err/s: 0.00 reconn/s: 0.00",
    "tpcc total: new_order 1925 11.64ms payment 1846 5.11ms order_status 203 1.77ms "
    "delivery 195 26.53ms stock_level 199 5.31ms rollbacks 20 retries 4",
    # a type missing, a unit missing, cut short
    "[ 1s ] tpcc: new_order 491 10.35ms payment 455 6.72ms order_status 46 1.58ms "
    "stock_level 53 5.75ms rollbacks 5 retries 0",
    "[ 1s ] tpcc: new_order 491 10.35 payment 455 6.72 order_status 46 1.58 "
    "delivery 43 17.92 stock_level 53 5.75 rollbacks 5 retries 0",
    "[ 1s ] tpcc: new_order 491 10.35ms payment 455 6.72ms order_status 46 1.58ms "
    "delivery 43 17.92ms stock_level 53 5.75ms rollbacks 5",
])
def test_lines_that_do_not_parse(line):
    assert tpcc.parse_interval(line) is None


def test_no_total_line_raises():
    with pytest.raises(ValueError, match="no 'tpcc total:' line"):
        tpcc.parse_total(PREPARE)
    assert tpcc.parse_intervals(PREPARE) == []


def test_tpm():
    assert tpcc.tpm(1925, 6.0) == pytest.approx(19250.0)
    assert tpcc.tpm(0, 30) == 0.0
    with pytest.raises(ValueError, match="positive duration"):
        tpcc.tpm(10, 0)


def test_metrics_are_plain_data():
    m = Metrics(2.0, {n: TypeStats(1, 1.0) for n in tpcc.TRANSACTIONS}, 0, 0)
    assert m.transactions == 5 and m.new_orders == 1


# --- command lines ------------------------------------------------------------------------------

def test_script_and_schema_version_match():
    script = Path(sysbench.script_path(tpcc.SCRIPT))
    assert script.is_file() and script.name == "tpcc.lua"
    assert f"SCHEMA_VERSION = {tpcc.SCHEMA_VERSION}\n" in script.read_text()


def test_load_commands():
    sock = "/w/run/mysqld.sock"
    create = tpcc.create_command(sock, 10)
    prepare = tpcc.prepare_command(sock, 10, 2)
    cleanup = tpcc.cleanup_command(sock)
    assert [create[-1], prepare[-1], cleanup[-1]] == ["create", "prepare", "cleanup"]
    for cmd in (create, prepare, cleanup):
        assert cmd[0] == sysbench.executable()
        assert cmd[1] == sysbench.script_path("tpcc")
        assert f"--mysql-socket={sock}" in cmd and "--mysql-db=tpcc" in cmd
    assert "--threads=1" in create and "--warehouses=10" in create
    assert "--threads=2" in prepare and "--warehouses=10" in prepare


@pytest.mark.parametrize("seconds,expected", [(30, "--time=30"), (29.6, "--time=30"),
                                              (1.0, "--time=1")])
def test_run_command(seconds, expected):
    cmd = tpcc.run_command("/s.sock", 10, 4, seconds, active_warehouses=1)
    assert cmd[-1] == "run"
    for arg in (expected, "--warehouses=10", "--active-warehouses=1", "--threads=4",
                "--report-interval=1", "--percentile=95", "--events=0",
                "--mysql-ignore-errors=1213,1205,1020"):
        assert arg in cmd


def test_short_run_never_becomes_time_zero():
    with pytest.raises(ValueError, match="at least 1 second"):
        tpcc.run_command("/s.sock", 1, 1, 0.4)


needs_sysbench = pytest.mark.skipif(shutil.which("sysbench") is None,
                                    reason="sysbench is not installed")


@pytest.mark.integration  # runs sysbench
@needs_sysbench
@pytest.mark.parametrize("args,message", [
    (["--warehouses=0"], "--warehouses=0: expected a whole number >= 1 (the number of warehouses)"),
    (["--warehouses=-3"], "--warehouses=-3: expected a whole number >= 1"),
    (["--warehouses=1.5"], "--warehouses=1.5: expected a whole number >= 1"),
    (["--warehouses=2", "--active-warehouses=3"], "--active-warehouses=3: more than --warehouses=2"),
    (["--active-warehouses=-1"], "--active-warehouses=-1: expected a whole number >= 0"),
])
def test_bad_options_stop_before_connecting(tmp_path, args, message):
    # init() refuses them before it connects (the socket leads nowhere).
    cmd = tpcc.run_command(tmp_path / "none.sock", 1, 1, 1)
    cmd = [a for a in cmd if not a.startswith(("--warehouses=", "--active-warehouses="))]
    out = subprocess.run(cmd[:-1] + args + ["run"], capture_output=True, text=True, timeout=30)
    assert out.returncode != 0
    assert message in out.stdout + out.stderr


@pytest.mark.integration  # runs sysbench
@needs_sysbench
@pytest.mark.parametrize("command", ["create", "prepare"])
def test_load_commands_check_the_scale_first(tmp_path, command):
    cmd = tpcc.common_args(tmp_path / "none.sock", 0) + [command]
    out = subprocess.run(cmd, capture_output=True, text=True, timeout=30)
    assert out.returncode != 0
    assert "--warehouses=0: expected a whole number >= 1" in out.stdout + out.stderr


def test_deadlocks_are_read_when_printed_and_none_in_older_output():
    line = ("[ 2s ] tpcc: new_order 10 1.00ms payment 9 1.00ms order_status 1 1.00ms "
            "delivery 1 1.00ms stock_level 1 1.00ms rollbacks 0 retries 3 deadlocks 2")
    assert tpcc.parse_interval(line).deadlocks == 2
    assert tpcc.parse_interval(line.rsplit(" deadlocks", 1)[0]).deadlocks is None
    assert tpcc.parse_interval(line + " 7") is None
    older = tpcc.summary(RUN, 6.0)["tpcc"]  # captured before deadlocks were counted apart
    assert "deadlocks" not in older and older["retries"] == 4


def test_series_hold_every_second_of_each_type_padded_to_the_sampler():
    intervals = tpcc.parse_intervals(RUN)
    out = tpcc.series(RUN, len(intervals) + 2)
    assert out["payment_per_s"][:len(intervals)] == [m.types["payment"].count for m in intervals]
    assert out["delivery_p95_ms"][0] == intervals[0].types["delivery"].p95_ms
    assert out["tpcc_retries"][-2:] == [None, None]
    assert sum(out["tpcc_rollbacks"][:len(intervals)]) == sum(m.rollbacks for m in intervals)
    assert "tpcc_deadlocks" not in out  # captured before deadlocks were counted apart
    assert all(len(v) == len(intervals) + 2 for v in out.values())
