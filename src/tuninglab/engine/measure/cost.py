"""What each transaction cost the server itself: its process's CPU time and storage IO (from
/proc/<pid>/stat and /proc/<pid>/io), InnoDB's fsyncs and redo bytes (SHOW GLOBAL STATUS), and
beside them the whole host's busy CPU. The device-wide IO of /proc/diskstats also counts other
processes' writes; these count only the server's.

A reading holds each counter in its natural unit under the name its summary key starts with;
a counter this kernel or server lacks is left out of the reading, and so out of the summary
(absent, never guessed). Stdlib only: the lab VM's guest runs it too.
"""

import os

# Summary key (without "_per_trx") -> SHOW GLOBAL STATUS counter; MySQL 8 and MariaDB share the
# names. MariaDB 10.8 removed Innodb_os_log_fsyncs (its status variable reference; the 10.11
# capture in tests/fixtures lacks it): from MariaDB 10.8 on, log_fsyncs is absent.
STATUS_COUNTERS = {
    "fsyncs": "Innodb_data_fsyncs",
    "log_fsyncs": "Innodb_os_log_fsyncs",
    "redo_bytes": "Innodb_os_log_written",
}
KEYS = ("server_cpu_us", "host_cpu_us", "server_read_bytes", "server_write_bytes",
        *STATUS_COUNTERS)
# Per-transaction figures span from thousandths (fsyncs with batched commits) to millions
# (bytes of a bulk insert): significant digits, not decimals, keep each one meaningful.
SIGNIFICANT = 4
# /proc/<pid>/stat: utime and stime are fields 14 and 15 (man 5 proc, from 1); the fields
# split after "pid (comm)" start at field 3.
UTIME, STIME = 14 - 3, 15 - 3


def clock_tick() -> int:
    """Clock ticks a second: the unit of /proc/<pid>/stat's and /proc/stat's CPU times."""
    return os.sysconf("SC_CLK_TCK")


def parse_process_cpu(stat_text: str) -> int:
    """utime + stime in clock ticks from /proc/<pid>/stat (the sum over the process's threads).
    The command name may hold spaces and parentheses: the fields start after the last ')'."""
    fields = stat_text.rsplit(")", 1)[1].split()
    return int(fields[UTIME]) + int(fields[STIME])


def parse_process_io(io_text: str) -> dict:
    """read_bytes and write_bytes of /proc/<pid>/io: what the process caused to be read from or
    sent to storage (not its page cache hits, unlike rchar and wchar)."""
    values = dict(line.split(":", 1) for line in io_text.splitlines() if ":" in line)
    return {f"server_{name}": int(values[name]) for name in ("read_bytes", "write_bytes")
            if name in values}


def status_counters(status: dict) -> dict:
    """The InnoDB counters of SHOW GLOBAL STATUS rows this server has (values as it gives them)."""
    out = {}
    for key, name in STATUS_COUNTERS.items():
        try:
            out[key] = int(status[name])
        except (KeyError, TypeError, ValueError):
            pass
    return out


def process_counters(pid: int | None, tick: int | None = None) -> dict:
    """The process's CPU (µs) and storage IO now; a /proc file that cannot be read (no IO
    accounting in the kernel, another user's process, no pid) leaves its counters out."""
    if pid is None:
        return {}
    tick = tick or clock_tick()
    out = {}
    try:
        out["server_cpu_us"] = parse_process_cpu(_read(f"/proc/{pid}/stat")) * 1e6 / tick
    except (OSError, IndexError, ValueError):
        pass
    try:
        out.update(parse_process_io(_read(f"/proc/{pid}/io")))
    except (OSError, ValueError):
        pass
    return out


def host_counters(busy_jiffies: int | None, tick: int | None = None) -> dict:
    """The host's busy CPU (µs) from /proc/stat's busy jiffies (sampler.cpu_times)."""
    if busy_jiffies is None:
        return {}
    return {"host_cpu_us": busy_jiffies * 1e6 / (tick or clock_tick())}


def counters(status_cost: dict, busy_jiffies: int | None, pid: int | None) -> dict:
    """Every cost counter now: the server's status counters (status_counters), the host's busy
    CPU (sampler.cpu_times) and the server process's CPU and IO, read as this is called."""
    return {**status_cost, **host_counters(busy_jiffies), **process_counters(pid)}


def _read(path: str) -> str:
    with open(path) as f:
        return f.read()


def delta(before: dict, after: dict) -> dict:
    """Each counter's growth between two readings; one missing from either, or gone backwards
    (a counter reset or a restarted process), is left out rather than guessed."""
    return {k: after[k] - before[k] for k in KEYS
            if k in before and k in after and after[k] >= before[k]}


def per_transaction(growth: dict | None, transactions: int) -> dict | None:
    """The summary's cost: each counter's growth over the measured phase divided by its
    transactions; None (no cost at all) without transactions or without a single counter."""
    if not transactions or not growth:
        return None
    return {f"{k}_per_trx": _significant(growth[k] / transactions) for k in KEYS if k in growth}


def _significant(value: float) -> float:
    return float(f"{value:.{SIGNIFICANT}g}")
