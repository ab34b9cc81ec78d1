"""Unit tests for the sysbench output parsers and command builders (nothing is run)."""

import shutil
import subprocess
from pathlib import Path

import pytest

from helpers import FIXTURES
from tuninglab.engine.workloads import sysbench
from tuninglab.engine.workloads.sysbench import Interval


def fixture(name):
    return (FIXTURES / name).read_text()


# --- per-second lines ---------------------------------------------------------------------------

def test_parse_interval_line():
    line = ("[ 1s ] thds: 2 tps: 2610.80 qps: 15671.80 (r/w/o: 0.00/10448.20/5223.60) "
            "lat (ms,95%): 1.16 err/s: 0.00 reconn/s: 0.00\n")
    assert sysbench.parse_interval(line) == Interval(t=1.0, threads=2, tps=2610.80, qps=15671.80,
                                                     latency_p95_ms=1.16, errors_per_s=0.0,
                                                     reconnects_per_s=0.0)


def test_parse_interval_wide_time_and_errors():
    line = ("[ 120s ] thds: 16 tps: 12.50 qps: 250.00 (r/w/o: 175.00/50.00/25.00) "
            "lat (ms,95%): 1069.86 err/s: 0.50 reconn/s: 1.00")
    i = sysbench.parse_interval(line)
    assert (i.t, i.threads, i.tps, i.latency_p95_ms, i.errors_per_s, i.reconnects_per_s) == \
        (120.0, 16, 12.5, 1069.86, 0.5, 1.0)


@pytest.mark.parametrize("line", [
    "",
    "Threads started!",
    "sysbench 1.0.20 (using system LuaJIT 2.1.0-beta3)",
    "    transactions:                        10408  (2600.43 per sec.)",
    "[ 1s ] thds: 2 tps: 2610.80 qps: 15671.80",
    "FATAL: unable to connect to MySQL server on socket '/tmp/probe/nosock', aborting...",
])
def test_non_report_lines_give_none(line):
    assert sysbench.parse_interval(line) is None


# --- whole reports ------------------------------------------------------------------------------

def test_write_only_report():
    report = sysbench.parse_report(fixture("sysbench_oltp_write_only_run.txt"))
    assert len(report.intervals) == 4
    assert [i.t for i in report.intervals] == [1.0, 2.0, 3.0, 4.0]
    first = report.intervals[0]
    assert (first.tps, first.qps, first.latency_p95_ms, first.threads) == \
        (2610.80, 15671.80, 1.16, 2)
    assert report.intervals[-1].tps == 2508.03
    assert report.summary == {
        "transactions": 10408, "tps": 2600.43, "queries": 62448, "qps": 15602.56,
        "ignored_errors": 0, "reconnects": 0, "total_time_s": 4.0017,
        "latency_min_ms": 0.23, "latency_avg_ms": 0.77, "latency_max_ms": 42.49,
        "latency_p95_ms": 1.12,
    }


def test_read_write_report():
    report = sysbench.parse_report(fixture("sysbench_oltp_read_write_run.txt"))
    assert len(report.intervals) == 3
    first = report.intervals[0]
    assert (first.tps, first.latency_p95_ms) == (889.99, 3.75)
    s = report.summary
    assert (s["transactions"], s["tps"], s["latency_p95_ms"], s["total_time_s"]) == \
        (2939, 978.33, 3.25, 3.0033)
    assert (s["queries"], s["qps"]) == (58780, 19566.53)
    assert (s["latency_min_ms"], s["latency_avg_ms"], s["latency_max_ms"]) == (0.72, 2.04, 21.89)


def test_summary_types():
    s = sysbench.parse_summary(fixture("sysbench_oltp_write_only_run.txt"))
    for key in ("transactions", "queries", "ignored_errors", "reconnects"):
        assert type(s[key]) is int, key
    for key in ("tps", "qps", "total_time_s", "latency_p95_ms", "latency_avg_ms"):
        assert type(s[key]) is float, key


def test_whole_number_rates_are_floats():
    text = ("    transactions:                        100  (50 per sec.)\n"
            "    total time:                          2s\n")
    s = sysbench.parse_summary(text)
    assert s == {"transactions": 100, "tps": 50.0, "total_time_s": 2.0}
    assert type(s["tps"]) is float


@pytest.mark.parametrize("text", [
    fixture("sysbench_error_nosocket.txt"),
    "",
    "[ 1s ] thds: 2 tps: 2610.80 qps: 15671.80 (r/w/o: 0.00/10448.20/5223.60) "
    "lat (ms,95%): 1.16 err/s: 0.00 reconn/s: 0.00\n",
], ids=["fatal-error", "empty", "intervals-only"])
def test_output_without_summary_raises(text):
    with pytest.raises(ValueError, match="no sysbench summary"):
        sysbench.parse_summary(text)
    with pytest.raises(ValueError):
        sysbench.parse_report(text)


# --- command lines ------------------------------------------------------------------------------

def test_prepare_command():
    cmd = sysbench.prepare_command("/w/run/mysqld.sock", "oltp_write_only", 8, 200000, 4)
    assert cmd[0] == sysbench.executable()
    assert cmd[1] == "oltp_write_only"
    assert cmd[-1] == "prepare"
    for arg in ("--mysql-socket=/w/run/mysqld.sock", "--mysql-user=root", "--mysql-db=sbtest",
                "--tables=8", "--table-size=200000", "--threads=4"):
        assert arg in cmd
    assert not [a for a in cmd if a.startswith(("--time", "--mysql-host", "--mysql-port"))]


@pytest.mark.parametrize("seconds,expected", [(30, "--time=30"), (29.6, "--time=30"),
                                              (60.4, "--time=60"), (1.0, "--time=1")])
def test_run_command(seconds, expected):
    cmd = sysbench.run_command("/w/run/mysqld.sock", "oltp_read_write", 4, 50000, 2, seconds)
    assert cmd[0] == sysbench.executable()
    assert cmd[1] == "oltp_read_write"
    assert cmd[-1] == "run"
    assert expected in cmd
    assert len([a for a in cmd if a.startswith("--time=")]) == 1
    for arg in ("--mysql-socket=/w/run/mysqld.sock", "--report-interval=1", "--percentile=95",
                "--tables=4", "--table-size=50000", "--threads=2", "--events=0"):
        assert arg in cmd


def test_short_duration_never_becomes_time_zero():
    # --time=0 with --events=0 would be an endless sysbench run
    with pytest.raises(ValueError, match="at least 1 second"):
        sysbench.run_command("/s.sock", "oltp_write_only", 1, 1000, 1, 0.3)


# --- the project's own scripts ------------------------------------------------------------------

def test_project_script_runs_from_its_file_with_its_options():
    cmd = sysbench.run_command("/s.sock", "insert_batch", 1, 1000, 1, 60,
                               (("commit", "100"), ("key", "primary")))
    script = Path(cmd[1])
    assert script.is_absolute() and script.is_file()
    assert script == Path(sysbench.__file__).resolve().parent / "lua" / "insert_batch.lua"
    assert "--commit=100" in cmd and "--key=primary" in cmd
    for arg in ("--mysql-socket=/s.sock", "--mysql-db=sbtest", "--threads=1", "--time=60"):
        assert arg in cmd
    assert cmd[-1] == "run"


def test_builtin_scripts_are_passed_by_name():
    assert sysbench.run_command("/s.sock", "oltp_insert", 1, 1000, 1, 60)[1] == "oltp_insert"


needs_sysbench = pytest.mark.skipif(shutil.which("sysbench") is None,
                                    reason="sysbench is not installed")
INSERT_BATCH = str(sysbench.LUA_DIR / "insert_batch.lua")


@pytest.mark.integration  # runs sysbench
@needs_sysbench
def test_insert_batch_help_lists_its_options():
    out = subprocess.run(["sysbench", INSERT_BATCH, "help"], capture_output=True, text=True,
                         timeout=30)
    assert out.returncode == 0, out.stdout + out.stderr
    for option in ("--commit=STRING", "[statement]", "--key=STRING", "[unique]", "--tables=N",
                   "--table_size=N"):
        assert option in out.stdout


@pytest.mark.integration  # runs sysbench
@needs_sysbench
@pytest.mark.parametrize("option,message", [
    ("--commit=often", "--commit=often: expected statement, a whole number >= 1 or 1s"),
    ("--commit=0", "--commit=0: expected statement"),
    ("--key=foreign", "--key=foreign: expected unique or primary"),
])
def test_insert_batch_stops_on_a_bad_option(tmp_path, option, message):
    # init() refuses the value before any thread connects (and the socket leads nowhere).
    cmd = sysbench.run_command(tmp_path / "none.sock", "insert_batch", 1, 1000, 1, 1) + [option]
    out = subprocess.run(cmd, capture_output=True, text=True, timeout=30)
    assert out.returncode != 0
    assert message in out.stdout + out.stderr
