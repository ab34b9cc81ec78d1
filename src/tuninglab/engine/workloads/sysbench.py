"""sysbench (1.0.x) OLTP driver: command lines, and parsers for the per-second report and the
final summary. sysbench 1.0.20 has no --warmup-time, so warm-up is a separate, discarded run."""

import re
import shutil
import subprocess
from dataclasses import dataclass, field
from pathlib import Path

from tuninglab.errors import UserError

INSTALL_HINT = "install it with `apt-get install sysbench`"
# The project's own scripts, found from the package (the lab VM gets a copy of the package,
# not of the repository).
LUA_DIR = Path(__file__).resolve().parent / "lua"
_INTERVAL = re.compile(
    r"^\[ *(?P<t>\d+(?:\.\d+)?)s \] thds: (?P<threads>\d+) tps: (?P<tps>[\d.]+) "
    r"qps: (?P<qps>[\d.]+) \(r/w/o: (?P<r>[\d.]+)/(?P<w>[\d.]+)/(?P<o>[\d.]+)\) "
    r"lat \(ms,(?P<pct>\d+)%\): (?P<lat>[\d.]+) err/s: (?P<err>[\d.]+) reconn/s: (?P<reconn>[\d.]+)")
_SUMMARY = {
    "transactions": r"transactions:\s+(\d+)",
    "tps": r"transactions:\s+\d+\s+\(([\d.]+) per sec",
    "queries": r"queries:\s+(\d+)",
    "qps": r"queries:\s+\d+\s+\(([\d.]+) per sec",
    "ignored_errors": r"ignored errors:\s+(\d+)",
    "reconnects": r"reconnects:\s+(\d+)",
    "total_time_s": r"total time:\s+([\d.]+)s",
    "latency_min_ms": r"min:\s+([\d.]+)",
    "latency_avg_ms": r"avg:\s+([\d.]+)",
    "latency_max_ms": r"max:\s+([\d.]+)",
    "latency_p95_ms": r"95th percentile:\s+([\d.]+)",
}


@dataclass(frozen=True)
class Interval:
    t: float
    threads: int
    tps: float
    qps: float
    latency_p95_ms: float
    errors_per_s: float
    reconnects_per_s: float


@dataclass
class Report:
    intervals: list = field(default_factory=list)
    summary: dict = field(default_factory=dict)
    text: str = ""   # the whole output, for a script's own lines (tpcc)


def parse_interval(line: str) -> Interval | None:
    m = _INTERVAL.match(line.strip())
    if not m:
        return None
    return Interval(float(m["t"]), int(m["threads"]), float(m["tps"]), float(m["qps"]),
                    float(m["lat"]), float(m["err"]), float(m["reconn"]))


def parse_summary(text: str) -> dict:
    out = {}
    for key, pattern in _SUMMARY.items():
        m = re.search(pattern, text)
        if m:
            value = m.group(1)
            out[key] = float(value) if "." in value or key.endswith(("_s", "_ms", "ps")) \
                else int(value)
    if "transactions" not in out:
        raise ValueError("no sysbench summary (no 'transactions:' line) in the output")
    return out


def parse_report(text: str) -> Report:
    intervals = [i for i in map(parse_interval, text.splitlines()) if i]
    return Report(intervals, parse_summary(text), text)


def executable() -> str:
    path = shutil.which("sysbench")
    if not path:
        raise UserError(f"sysbench not found: {INSTALL_HINT}")
    return path


def common_args(socket, script, tables, table_size, threads) -> list[str]:
    return [executable(), script, f"--mysql-socket={socket}", "--mysql-user=root",
            "--mysql-password=", "--mysql-db=sbtest", f"--tables={tables}",
            f"--table-size={table_size}", f"--threads={threads}"]


def prepare_command(socket, script, tables, table_size, threads) -> list[str]:
    return common_args(socket, script, tables, table_size, threads) + ["prepare"]


def run_command(socket, script, tables, table_size, threads, seconds, options=()) -> list[str]:
    """A run of a sysbench script, or of a project script with its (key, value) options."""
    return common_args(socket, script_path(script), tables, table_size, threads) + [
        f"--{key}={value}" for key, value in options] + [
        f"--time={_whole_seconds(seconds)}", "--report-interval=1", "--percentile=95",
        "--events=0", "--rand-type=uniform", "run"]


def script_path(script: str) -> str:
    """sysbench finds its own scripts by name; a project script by the path of its file."""
    path = LUA_DIR / f"{script}.lua"
    return str(path) if path.is_file() else script


def _whole_seconds(seconds) -> int:
    # --time=0 with --events=0 would make sysbench run forever.
    if seconds < 1:
        raise ValueError(f"a sysbench run needs at least 1 second, got {seconds}")
    return int(round(seconds))


class Enough(Exception):
    """Raised by an on_interval callback that has all the seconds it needs: sysbench is
    stopped before its time is up, and run() returns None."""


def run(command: list[str], on_interval=None, timeout: float | None = None) -> Report | None:
    """Run sysbench, calling on_interval(Interval) as each per-second line arrives."""
    lines = []
    proc = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                            bufsize=1)
    try:
        for line in proc.stdout:
            lines.append(line)
            interval = parse_interval(line)
            if interval and on_interval:
                on_interval(interval)
        code = proc.wait(timeout)
    except Enough:
        return None
    finally:
        # Interrupted (Ctrl-C, SIGTERM): do not wait for sysbench to run out its time.
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        proc.stdout.close()
    text = "".join(lines)
    if code != 0:
        fatal = [l.strip() for l in lines if "FATAL" in l or "error" in l.lower()]
        detail = "\n".join(fatal[-6:]) or "".join(lines[-10:])
        raise UserError(f"sysbench {command[1]} failed (exit {code}):\n{detail}")
    return parse_report(text)


def prepare(command: list[str]) -> None:
    out = subprocess.run(command, capture_output=True, text=True)
    if out.returncode != 0:
        raise UserError(f"sysbench {command[-1]} failed (exit {out.returncode}):\n"
                        f"{(out.stdout + out.stderr).strip()[-1500:]}")
