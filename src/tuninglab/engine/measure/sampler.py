"""One sample a second during the measured phase: InnoDB state from the server, IO from
/proc/diskstats for the devices holding the datadir, CPU from /proc/stat; and over the whole
phase, the server's own cost (engine/measure/cost.py).

MariaDB and MySQL name the InnoDB counters differently; a metric a server lacks is recorded as
absent (None), never guessed.
"""

import threading
import time

from tuninglab.engine.measure import cost
from tuninglab.engine.host.devices import read_diskstats

# metric -> (SHOW GLOBAL STATUS name, information_schema.INNODB_METRICS name) per flavour.
STATUS_METRICS = {
    "mariadb": {
        "history_list_length": ("Innodb_history_list_length", None),
        "checkpoint_age_bytes": ("Innodb_checkpoint_age", None),
        "checkpoint_max_age_bytes": ("Innodb_checkpoint_max_age", None),
        "dirty_pages": ("Innodb_buffer_pool_pages_dirty", None),
        "pages_flushed": ("Innodb_buffer_pool_pages_flushed", None),
    },
    "mysql": {
        "history_list_length": (None, "trx_rseg_history_len"),
        "checkpoint_age_bytes": (None, "log_lsn_checkpoint_age"),
        "checkpoint_max_age_bytes": (None, "log_max_modified_age_sync"),
        "dirty_pages": ("Innodb_buffer_pool_pages_dirty", None),
        "pages_flushed": ("Innodb_buffer_pool_pages_flushed", None),
    },
}
STATUS_METRICS["percona"] = STATUS_METRICS["mysql"]
# The INNODB_METRICS counters above that MySQL and Percona leave disabled by default (no
# MONITOR_DEFAULT_ON in storage/innobase/srv/srv0mon.cc); _read() keeps only enabled ones, so
# without this they would always be absent. trx_rseg_history_len is enabled by default.
MYSQL_MONITORS = ("log_lsn_checkpoint_age", "log_max_modified_age_sync")
# Counters only ever grow: the series holds their change per second.
COUNTERS = {"pages_flushed"}
DISK_FIELDS = ("reads", "writes", "read_bytes", "write_bytes")


def innodb_metrics(status: dict, metrics: dict, flavor: str) -> dict:
    """Pick this flavour's counters out of SHOW GLOBAL STATUS and INNODB_METRICS rows."""
    out = {}
    for name, (status_name, metric_name) in STATUS_METRICS[flavor].items():
        raw = status.get(status_name) if status_name else metrics.get(metric_name)
        out[name] = _number(raw)
    return out


def _number(raw):
    try:
        return int(raw)
    except (TypeError, ValueError):
        return None


def cpu_times(text: str | None = None) -> tuple[int, int]:
    """(busy, total) jiffies from the first line of /proc/stat."""
    if text is None:
        with open("/proc/stat") as f:
            text = f.readline()
    # user nice system idle iowait irq softirq steal; guest time is already inside user/nice.
    fields = [int(x) for x in text.split()[1:9]]
    idle = fields[3] + (fields[4] if len(fields) > 4 else 0)  # idle + iowait
    return sum(fields) - idle, sum(fields)


class Sampler:
    """Samples in a background thread between start() and stop(); series() gives the result."""

    def __init__(self, server, devices: list[str], interval: float = 1.0, aside=(), extra=None,
                 pid: int | None = None):
        """devices: summed into the disk series; aside: only their totals are kept (e.g. an
        md array above the member devices, which would count every IO twice); extra: a
        callable whose dict of gauges joins every sample (e.g. a RAID rebuild's progress);
        pid: the server's process, whose CPU and IO the cost counts (None: left out)."""
        self.server, self.devices, self.interval = server, list(devices), interval
        self.aside, self.extra, self.pid = list(aside), extra, pid
        self.samples = []
        self.totals = {}
        self.cost = {}   # each cost counter's growth over the phase (cost.delta)
        self._stop = threading.Event()
        self._thread = None
        self._conn = None
        self.error = None

    def start(self) -> None:
        self._conn = self.server.connect()
        if self.server.binary.flavor != "mariadb":
            for monitor in MYSQL_MONITORS:  # the variable takes one counter (or pattern) at a time
                self._query(f"SET GLOBAL innodb_monitor_enable = '{monitor}'")
        self._begin = self._read()
        self._begin_cost = self._cost(self._begin)
        self._thread = threading.Thread(target=self._loop, daemon=True)
        self._thread.start()

    def stop(self) -> None:
        """End sampling after a complete measurement and record the totals over it."""
        self._halt()
        end = self._read()
        self.totals = {d: disk_delta(end["disk"][d], self._begin["disk"][d])
                       for d in self.devices + self.aside}
        self.cost = cost.delta(self._begin_cost, self._cost(end))
        self.close()

    def close(self) -> None:
        """Safe on every exit path, also after stop()."""
        self._halt()
        if self._conn:
            self._conn.close()
            self._conn = None

    def _halt(self) -> None:
        self._stop.set()
        if self._thread:
            self._thread.join()
            self._thread = None

    def _loop(self) -> None:
        previous, start = self._begin, time.monotonic()
        tick = 1
        while not self._stop.wait(max(0.0, start + tick * self.interval - time.monotonic())):
            try:
                current = self._read()
            except Exception as exc:  # the server may be stopping; keep what we have
                self.error = str(exc)
                return
            self.samples.append(_sample(previous, current, self.devices))
            previous, tick = current, tick + 1

    def _query(self, sql):
        with self._conn.cursor() as cur:
            cur.execute(sql)
            return cur.fetchall()

    def _read(self) -> dict:
        status = dict(self._query("SHOW GLOBAL STATUS"))
        metrics = {}
        if self.server.binary.flavor != "mariadb":
            metrics = dict(self._query("SELECT name, count FROM information_schema.INNODB_METRICS"
                                       " WHERE status = 'enabled'"))
        return {"time": time.monotonic(), "cpu": cpu_times(),
                "innodb": innodb_metrics(status, metrics, self.server.binary.flavor),
                "status_cost": cost.status_counters(status),
                "disk": read_diskstats(self.devices + self.aside) if self.devices else {},
                "extra": self.extra() if self.extra else {}}

    def _cost(self, reading: dict) -> dict:
        """The cost counters at a reading: the server's status counters and host CPU from it,
        the server process's CPU and IO read right after (only at the phase's ends: /proc)."""
        return cost.counters(reading["status_cost"], reading["cpu"][0], self.pid)


def disk_delta(after, before) -> dict:
    delta = after - before
    return {f: getattr(delta, f) for f in DISK_FIELDS}


def _sample(prev: dict, cur: dict, summed=None) -> dict:
    """Rates between two readings; the disk rates sum the devices in summed (default: all)."""
    seconds = max(cur["time"] - prev["time"], 1e-6)
    busy = cur["cpu"][0] - prev["cpu"][0]
    total = cur["cpu"][1] - prev["cpu"][1]
    sample = {"cpu_busy_pct": round(100.0 * busy / total, 1) if total else None}
    for name, value in cur["innodb"].items():
        if name in COUNTERS:
            before = prev["innodb"][name]
            value = None if value is None or before is None else round((value - before) / seconds)
        sample[name] = value
    sample.update(cur.get("extra", {}))
    summed = cur["disk"] if summed is None else summed
    for field in DISK_FIELDS:
        sample[f"disk_{field}"] = round(sum(
            getattr(cur["disk"][d] - prev["disk"][d], field) for d in summed) / seconds) \
            if cur["disk"] else None
    return sample


def merge_series(intervals, samples) -> dict:
    """Per-second series: sysbench's throughput and latency beside the sampler's metrics.

    Both tick once a second from the start of the measured phase; the shorter is padded with
    None so every series has one value per second.
    """
    n = max(len(intervals), len(samples))
    series = {"t": list(range(1, n + 1))}
    if intervals:  # a scan has no sysbench report, only the sampler's series
        pad = [None] * (n - len(intervals))
        series["tps"] = [i.tps for i in intervals] + pad
        series["latency_p95_ms"] = [i.latency_p95_ms for i in intervals] + pad
    names = list(samples[0]) if samples else []
    for name in names:
        series[name] = [s.get(name) for s in samples] + [None] * (n - len(samples))
    return series
