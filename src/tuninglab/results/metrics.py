"""The metrics a result file holds, in one table: for each key (as stored in a run's summary,
its per-second series or a point's stats) its label, unit, which way is better, the short label
of a terminal table, the scale from the stored value to the shown one, and a chart's axis
title (axis_title).

The site's charts (site/charts.py) draw every metric here that has a per-second series, in this
order; the terminal tables (report.py) and the site's tables (site/result_tables.py) head a
column with the short label. COST names the per-transaction costs a run's summary may carry.
"""

import math
from dataclasses import dataclass

HIGHER, LOWER, NONE = "higher", "lower", "none"


@dataclass(frozen=True)
class Metric:
    key: str
    label: str
    unit: str  # as shown, i.e. after scale
    # Which way is better: HIGHER, LOWER, or NONE for a series that describes what happened
    # (how full the redo log got, how many pages are dirty) rather than scoring it.
    direction: str
    short: str | None = None  # a terminal table's column label; None: not in one
    scale: float = 1  # stored * scale = shown (bytes stored, KiB or MiB shown)
    # A chart's axis title where "label (unit)" is longer than AXIS_CHARS: plotly does not wrap
    # an axis title, and a longer one runs off a chart on a phone.
    axis: str | None = None


# The longest y axis title that fits beside a chart's plot area (420 px tall, less its title
# and legend) with room to spare: a 49-character one ran 33 px off the top.
AXIS_CHARS = 36


def is_amount(key: str) -> bool:
    """Whether a metric's comparison is of an amount (more or less: a cost, a latency, any
    key this table does not know) rather than of a rate (faster or slower)."""
    return key not in METRICS or METRICS[key].direction != HIGHER


def axis_title(key: str) -> str:
    """A metric's axis title with its unit: "throughput (transactions/s)"."""
    m = METRICS[key]
    return m.axis or f"{m.label} ({m.unit})"


METRICS = {m.key: m for m in (
    Metric("tps", "throughput", "transactions/s", HIGHER, short="tps"),
    Metric("new_order_tpm", "new-order throughput", "new-order transactions/min", HIGHER,
           short="new-order TPM", axis="new-order transactions/min"),
    Metric("mib_per_s", "scan rate (InnoDB reads)", "MiB/s", HIGHER, short="MiB/s"),
    Metric("runtime_s", "scan runtime", "s", LOWER),
    Metric("disk_read_bytes", "disk reads", "MiB/s", NONE, scale=1 / 2**20),
    Metric("write_bytes_per_trx", "bytes written per transaction", "KiB", LOWER,
           short="KiB written/trx", scale=1 / 1024),
    Metric("read_bytes_per_trx", "bytes read per transaction", "KiB", LOWER, scale=1 / 1024),
    Metric("latency_p95_ms", "p95 latency", "ms", LOWER),
    Metric("checkpoint_age_bytes", "checkpoint age", "MiB", NONE, scale=1 / 2**20),
    Metric("history_list_length", "history list length", "undo log records", LOWER,
           axis="history list length (undo records)"),
    Metric("dirty_pages", "dirty pages", "pages", NONE),
    Metric("disk_write_bytes", "disk writes", "MiB/s", NONE, scale=1 / 2**20),
    Metric("resync_pct", "RAID rebuild progress", "%", NONE),
    Metric("swap_out_per_s", "pages swapped out", "pages/s", NONE),
    Metric("swap_in_per_s", "pages swapped in", "pages/s", NONE),
    Metric("pages_flushed", "pages flushed", "pages/s", NONE),
    Metric("checkpoint_fill_pct", "checkpoint age / redo capacity", "%", NONE),
    Metric("tpcc_retries", "transactions retried (deadlock, lock wait timeout)", "per second",
           LOWER, axis="transactions retried per second"),
    # What a transaction cost (a run's summary["cost"]; document.point_stats compares them to
    # the baseline's): the mechanism behind a throughput, which holds on any hardware. The
    # short labels head the rows of report.cost_tables, titled "cost per transaction": no
    # "/trx".
    # CPU is stored in µs and shown in ms: 0.850 to 12.0 fits a terminal column, 850 to 12,000
    # less so.
    Metric("server_cpu_us_per_trx", "server CPU per transaction", "ms", LOWER,
           short="server CPU ms", scale=1 / 1000),
    Metric("host_cpu_us_per_trx", "host CPU per transaction (every process)", "ms", LOWER,
           short="host CPU ms", scale=1 / 1000, axis="host CPU per transaction (ms)"),
    Metric("server_read_bytes_per_trx", "bytes the server read per transaction", "KiB", LOWER,
           short="server read KiB", scale=1 / 1024, axis="server reads per transaction (KiB)"),
    Metric("server_write_bytes_per_trx", "bytes the server wrote per transaction", "KiB", LOWER,
           short="server write KiB", scale=1 / 1024, axis="server writes per transaction (KiB)"),
    # Innodb_data_fsyncs counts every fsync InnoDB makes, the redo log's included.
    Metric("fsyncs_per_trx", "InnoDB fsyncs per transaction (all files)", "fsyncs", LOWER,
           short="fsyncs", axis="InnoDB fsyncs per transaction"),
    Metric("log_fsyncs_per_trx", "redo log fsyncs per transaction", "fsyncs", LOWER,
           short="log fsyncs", axis="redo log fsyncs per transaction"),
    Metric("redo_bytes_per_trx", "redo log written per transaction", "KiB", LOWER,
           short="redo KiB", scale=1 / 1024, axis="redo log per transaction (KiB)"),
    # The device's own bytes (/proc/diskstats of the storage under test, the run's summary io),
    # beside the server's: what a filesystem or array reads or writes for the server's IO
    # (ZFS's records, read-modify-write), which the server's /proc/<pid>/io does not see.
    Metric("device_read_bytes_per_trx", "bytes the device read per transaction", "KiB", LOWER,
           short="device read KiB", scale=1 / 1024, axis="device reads per transaction (KiB)"),
    Metric("device_write_bytes_per_trx", "bytes the device wrote per transaction", "KiB",
           LOWER, short="device write KiB", scale=1 / 1024,
           axis="device writes per transaction (KiB)"),
    # IO requests per transaction at the device (a run's summary io: a RAID's members summed):
    # how a level or chunk size turns a page write into disk IOs, which carries over from the
    # lab VM to real disks where its throughput does not.
    Metric("writes_per_trx", "write requests to the disks per transaction", "requests", LOWER,
           axis="disk writes per transaction"),
    Metric("reads_per_trx", "read requests to the disks per transaction", "requests", LOWER,
           axis="disk reads per transaction"),
    # What the lab VM's guest saw of its machine (a run's "lab" record): one number per run,
    # for regime checks that a point ran on the machine its question names.
    Metric("guest_threads_per_core", "hardware threads per core the guest saw", "threads",
           NONE, axis="guest's threads per core"),
    Metric("guest_write_cache", "volatile write cache the guest saw (1 write back, 0 write "
           "through)", "", NONE, axis="guest's write cache (1: on)"),
    Metric("guest_fsyncs_per_s", "fsyncs per second fio made on the guest's disk",
           "fsyncs/s", NONE, axis="guest's fio fsyncs/s"),
    Metric("guest_pti", "page-table isolation in the guest's kernel (1 on, 0 off)", "", NONE,
           axis="guest's page-table isolation (1: on)"),
    # What a run's storage and scan record (results/regime.fact_value reads them): one number
    # per run, for regime checks that the IO went where the question says.
    # A primary metric over a window of a held read view's run (results/read_view.py), for a
    # claim about what happens while purge catches up rather than over the whole run.
    Metric("tps_draining", "throughput while purge drained the backlog", "transactions/s",
           HIGHER, axis="throughput while draining (tps)"),
    Metric("scan_device_read_pct", "bytes the device read during the scan, as a share of "
           "InnoDB's", "%", NONE, axis="device reads / InnoDB's reads (%)"),
    Metric("scan_seconds", "how long the scan read its table", "s", NONE,
           axis="scan time (s)"),
    Metric("logs_shared_disk", "redo log on the data's physical disk (1 shared, 0 not)", "",
           NONE, axis="log on the data's disk (1: yes)"),
)}

# The keys of a run's summary["cost"], in the order tables show them: each optional (absent
# when the server or kernel lacks its source), each per transaction, lower being cheaper.
COST = ("server_cpu_us_per_trx", "host_cpu_us_per_trx", "server_read_bytes_per_trx",
        "server_write_bytes_per_trx", "fsyncs_per_trx", "log_fsyncs_per_trx",
        "redo_bytes_per_trx", "device_read_bytes_per_trx", "device_write_bytes_per_trx")

# A primary metric averaged over one window of a held read view's run (read_view.WINDOWS):
# {key: (the per-second series, the window)}. A claim may name one as its metric.
WINDOWED = {"tps_draining": ("tps", "draining")}

# What a recipe's regime checks ([[regime]] metric) may name: the per-second series the engine
# records (and the redo log's fill, computed from two of them), and the costs per transaction.
REGIME_SERIES = ("tps", "new_order_tpm", "latency_p95_ms", "history_list_length",
                 "checkpoint_age_bytes", "checkpoint_fill_pct", "dirty_pages", "pages_flushed",
                 "disk_read_bytes", "disk_write_bytes", "swap_out_per_s", "swap_in_per_s")
# The lab VM's facts a regime check may name (results/regime.guest_value reads them).
GUEST = ("guest_threads_per_core", "guest_write_cache", "guest_fsyncs_per_s", "guest_pti")
# A run's storage and scan facts a regime check may name (results/regime.fact_value reads them).
RUN_FACTS = ("scan_device_read_pct", "scan_seconds", "logs_shared_disk")
REGIME_METRICS = REGIME_SERIES + COST + GUEST + RUN_FACTS

# The workload kinds ([workload] tool), defined here for every package (recipes/model.py
# re-exports them): a sysbench script (its own or the project's), one full scan of every table,
# the project's TPC-C-like workload. Each has its primary metric, what a recipe's points are
# compared by.
SYSBENCH, SCAN, TPCC = "sysbench", "scan", "tpcc"
TOOLS = (SYSBENCH, SCAN, TPCC)
PRIMARY = {SYSBENCH: "tps", SCAN: "mib_per_s", TPCC: "new_order_tpm"}


def decimals(shown: float) -> int:
    """How many decimals show a value to about 3 significant digits (0.812 ms, 12.3 KiB,
    0.0450 fsyncs, 23,438 KiB), at most 4: costs run from tens of milliseconds to hundredths
    of an fsync, where one fixed number of decimals hides the small ones or pads the large."""
    if shown == 0 or not math.isfinite(shown):
        return 1
    return min(4, max(0, 2 - math.floor(math.log10(abs(shown)))))


def ratio_decimals(ratio: float | None, near_one: int) -> int:
    """The decimals of a cost's ratio to the baseline: near_one between 0.1 and 10, as the
    throughput's ratios are shown (0.976), but a cost can fall to a fortieth (0.0250, the
    fsyncs of batched commits) or grow 40 times (40.0): there about 3 significant digits."""
    return near_one if ratio is None or 0.1 <= ratio < 10 else decimals(ratio)


def run_value(summary: dict, name: str, required: bool = False):
    """A run summary's value of a metric: its own, its IO per transaction's (requests at the
    device, a RAID's members summed) or its cost's, the first that holds one. Missing or null:
    None, or KeyError when required (the run did not measure it)."""
    cost = summary.get("cost") or {}
    if not isinstance(cost, dict):  # a hand-edited file: said as the run's fault, not a crash
        raise TypeError(f"a run's summary/cost is {type(cost).__name__}, not an object")
    for place in (summary, summary.get("io") or {}, cost):
        if place.get(name) is not None:
            return place[name]
    if required:
        raise KeyError(name)
    return None
