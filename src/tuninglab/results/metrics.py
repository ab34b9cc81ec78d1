"""The metrics a result file holds, in one table: for each key (as stored in a run's summary,
its per-second series or a point's stats) its label, unit, which way is better, the short label
of a terminal table and the scale from the stored value to the shown one.

The site's charts (site/charts.py) draw every metric here, in this order; the terminal tables
(report.py) and the site's tables (site/result_tables.py) head a column with the short label.
"""

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


METRICS = {m.key: m for m in (
    Metric("tps", "throughput", "transactions/s", HIGHER, short="tps"),
    Metric("new_order_tpm", "new-order throughput", "new-order transactions/min", HIGHER,
           short="new-order TPM"),
    Metric("mib_per_s", "scan rate (InnoDB reads)", "MiB/s", HIGHER, short="MiB/s"),
    Metric("runtime_s", "scan runtime", "s", LOWER),
    Metric("disk_read_bytes", "disk reads", "MiB/s", NONE, scale=1 / 2**20),
    Metric("write_bytes_per_trx", "bytes written per transaction", "KiB", LOWER,
           short="KiB written/trx", scale=1 / 1024),
    Metric("read_bytes_per_trx", "bytes read per transaction", "KiB", LOWER, scale=1 / 1024),
    Metric("latency_p95_ms", "p95 latency", "ms", LOWER),
    Metric("checkpoint_age_bytes", "checkpoint age", "MiB", NONE, scale=1 / 2**20),
    Metric("history_list_length", "history list length", "undo log records", LOWER),
    Metric("dirty_pages", "dirty pages", "pages", NONE),
    Metric("disk_write_bytes", "disk writes", "MiB/s", NONE, scale=1 / 2**20),
    Metric("resync_pct", "RAID rebuild progress", "%", NONE),
    Metric("pages_flushed", "pages flushed", "pages/s", NONE),
    Metric("checkpoint_fill_pct", "checkpoint age / redo capacity", "%", NONE),
    Metric("tpcc_retries", "transactions retried (deadlock, lock wait timeout)", "per second",
           LOWER),
)}

# The primary metric of each workload tool: what a recipe's points are compared by.
PRIMARY = {"sysbench": "tps", "scan": "mib_per_s", "tpcc": "new_order_tpm"}
