"""The measured phase of one run, given a started server: a timed sysbench workload or a scan,
with the sampler running over it. Stdlib and the engine only: the lab VM's guest runs it too."""

from contextlib import contextmanager

from .sampler import Sampler, merge_series
from .workloads import scan, sysbench

IO_FIELDS = ("reads", "writes", "read_bytes", "write_bytes")


def io_per_transaction(totals: dict, transactions: int) -> dict:
    """Disk IO over the measured phase divided by the transactions in it."""
    if not totals or not transactions:
        return {f"{f}_per_trx": None for f in IO_FIELDS}
    return {f"{f}_per_trx": round(sum(t[f] for t in totals.values()) / transactions, 3)
            for f in IO_FIELDS}


def io_totals(totals: dict) -> dict:
    """Disk IO over the measured phase, summed over the devices (a scan has no transactions)."""
    return {f: sum(t[f] for t in totals.values()) if totals else None for f in IO_FIELDS}


def oltp(server, disks, workload, measure, dataset, clock, aside=(), extra=None):
    """Warm-up (discarded), then the measured sysbench run with the sampler. Returns the
    summary, the per-second series and the IO totals of each disk (and of those aside, which
    are left out of the summary and series)."""
    def command(seconds):
        return sysbench.run_command(server.socket, workload.script, dataset.tables,
                                    dataset.table_size, workload.threads, seconds,
                                    workload.options)

    if measure.warmup > 0:
        clock.phase("warm-up", measure.warmup)
        sysbench.run(command(measure.warmup), clock.tick)
    clock.phase("measure", measure.duration)
    with sampling(server, disks, aside, extra) as sampler:
        measured = sysbench.run(command(measure.duration), clock.tick)
    summary = {k: measured.summary[k] for k in ("transactions", "tps", "latency_p95_ms")}
    summary["latency_avg_ms"] = measured.summary.get("latency_avg_ms")
    summary["errors"] = measured.summary.get("ignored_errors", 0)
    summary["io"] = io_per_transaction({d: sampler.totals[d] for d in disks},
                                       summary["transactions"])
    return summary, merge_series(measured.intervals, sampler.samples), sampler.totals


def full_scan(server, disks, dataset, clock):
    with sampling(server, disks) as sampler:
        summary = scan.run(server, dataset.tables, clock.scanned)
    summary["io"] = io_totals(sampler.totals)
    return summary, merge_series([], sampler.samples), sampler.totals


@contextmanager
def sampling(server, disks, aside=(), extra=None):
    """Per-second server and disk samples over the measured phase (kept only if it succeeds)."""
    sampler = Sampler(server, disks, aside=aside, extra=extra)
    sampler.start()
    try:
        yield sampler
        sampler.stop()
    finally:
        sampler.close()
