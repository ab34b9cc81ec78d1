"""The measured phase of one run, given a started server: a timed sysbench workload or a scan,
with the sampler running over it. Stdlib and the engine only: the lab VM's guest runs it too."""

from contextlib import contextmanager

from tuninglab.engine.measure import cost, read_view, steady

from tuninglab.engine.server import pinning
from tuninglab.engine.measure.sampler import Sampler, merge_series
from tuninglab.engine.workloads import scan, sysbench, tpcc
from tuninglab.errors import UserError

IO_FIELDS = ("reads", "writes", "read_bytes", "write_bytes")


def io_per_transaction(totals: dict, transactions: int) -> dict:
    """Disk IO over the measured phase divided by the transactions in it."""
    if not totals or not transactions:
        return {f"{f}_per_trx": None for f in IO_FIELDS}
    return {f"{f}_per_trx": round(sum(t[f] for t in totals.values()) / transactions, 3)
            for f in IO_FIELDS}


def device_cost(io: dict) -> dict:
    """The device's bytes per transaction as costs (metrics.COST): the storage under test's
    /proc/diskstats over the measured phase (io_per_transaction), beside the server's own
    bytes. What a filesystem or array makes of the server's IO (a ZFS record read for a 16 KiB
    page) shows only here. None (no disk sampled, no transactions) is left out, never guessed."""
    return {f"device_{f}_per_trx": io[f"{f}_per_trx"] for f in ("read_bytes", "write_bytes")
            if io.get(f"{f}_per_trx") is not None}


def io_totals(totals: dict) -> dict:
    """Disk IO over the measured phase, summed over the devices (a scan has no transactions)."""
    return {f: sum(t[f] for t in totals.values()) if totals else None for f in IO_FIELDS}


def oltp(server, disks, workload, measure, dataset, clock, aside=(), extra=None, sync=None):
    """Warm-up (discarded), then the measured run with the sampler: a sysbench script, or the
    TPC-C-like workload, whose dataset is checked before and whose consistency after. Returns
    the summary, the per-second series and the IO totals of each disk (and of those aside,
    which are left out of the summary and series). sync: called before the warm-up and again
    before the measured run (a duet's barrier: its two servers' loads start together)."""
    sync = sync or (lambda: None)
    check_connections(server, workload.threads, OWN_CONNECTIONS + bool(workload.hold_read_view))
    if workload.is_tpcc:
        check_tpcc_dataset(server, dataset)

    def command(seconds):
        return run_command(server.socket, workload, dataset, seconds)

    cpus = pinning.cpus_for(measure)
    warm_up = None
    sync()
    if measure.warmup > 0:
        with pinning.pinned(server, cpus):
            warm_up = warm(command, measure, clock)
    clock.phase("measure", measure.duration)
    sync()
    with sampling(server, disks, aside, extra) as sampler, \
            pinning.pinned(server, cpus), held_view(server, workload) as holder:
        measured = sysbench.run(command(measure.duration), holder.ticking(clock.tick))
    summary = {k: measured.summary[k] for k in ("transactions", "tps", "latency_p95_ms")}
    if workload.hold_read_view:
        summary["read_view"] = holder.record()
    summary["latency_avg_ms"] = measured.summary.get("latency_avg_ms")
    summary["errors"] = measured.summary.get("ignored_errors", 0)
    if measured.intervals:  # the clients sysbench ran, as it reported them each second
        summary["clients"] = max(i.threads for i in measured.intervals)
    summary["io"] = io_per_transaction({d: sampler.totals[d] for d in disks},
                                       summary["transactions"])
    # The device-wide io above stays as a cross-check: it also counts other processes' IO.
    per_trx = {**(cost.per_transaction(sampler.cost, summary["transactions"]) or {}),
               **device_cost(summary["io"])}
    if per_trx:
        summary["cost"] = per_trx
    if warm_up:
        summary["warm_up"] = warm_up
    series = merge_series(measured.intervals, sampler.samples)
    if workload.is_tpcc:
        summary.update(tpcc.summary(measured.text, measured.summary.get("total_time_s")
                                    or measure.duration))
        series.update(tpcc.series(measured.text, len(series["t"])))
        summary["tpcc"]["consistency"] = tpcc.consistency(server.query)
    return summary, series, sampler.totals


def warm(command, measure, clock) -> dict | None:
    """The warm-up, discarded: the recipe's seconds, and then ([measure] steady, the default)
    while the load still trends, up to its bound. The latter's outcome, for the run's summary:
    how long it took, and whether the load had stopped trending by then."""
    if not measure.steady_window:
        clock.phase("warm-up", measure.warmup)
        sysbench.run(command(measure.warmup), clock.tick)
        return None
    clock.phase("warm-up (until steady)", measure.warmup_bound)
    tps = []

    def on_interval(interval):
        clock.tick(interval)
        tps.append(interval.tps)
        if steady.ready(tps, measure):
            raise sysbench.Enough

    sysbench.run(command(measure.warmup_bound), on_interval)
    return steady.outcome(tps, measure)


def run_command(socket, workload, dataset, seconds) -> list[str]:
    """The timed workload's command line: a sysbench script, or the TPC-C-like workload."""
    if workload.is_tpcc:
        return tpcc.run_command(socket, dataset.warehouses, workload.threads, seconds,
                                dict(workload.options).get("active_warehouses", 0))
    return sysbench.run_command(socket, workload.script, dataset.tables, dataset.table_size,
                                workload.threads, seconds, workload.options)


# Connections beside the workload's threads: the sampler's and the engine's own queries (and
# a held read view's, one more).
OWN_CONNECTIONS = 2


def check_connections(server, threads: int, own: int = OWN_CONNECTIONS) -> None:
    allowed = int(server.variables(["max_connections"])["max_connections"])
    if threads + own > allowed:
        raise UserError(f"{threads} threads need {threads + own} connections with "
                        f"the engine's own, but the server allows max_connections = {allowed}: "
                        "use fewer threads, or set max_connections in [server.settings]")


def check_tpcc_dataset(server, dataset) -> None:
    """The run's copy holds the dataset the recipe asks for (the template key promises it; a
    tampered or half-copied datadir would otherwise mix versions or scales)."""
    state = tpcc.dataset_state(server.query)
    wanted = (tpcc.SCHEMA_VERSION, dataset.warehouses)
    if state != wanted:
        raise UserError(f"the datadir's TPC-C-like dataset is {_state_text(state)}, the recipe "
                        f"needs {_state_text(wanted)}: remove the work directory's templates/ "
                        "to load it again")


def _state_text(state) -> str:
    if state is None:
        return "missing or not fully loaded"
    return f"schema version {state[0]} with {state[1]} warehouses"


def full_scan(server, disks, dataset, clock):
    with sampling(server, disks) as sampler:
        summary = scan.run(server, dataset.tables, clock.scanned)
    summary["io"] = io_totals(sampler.totals)
    return summary, merge_series([], sampler.samples), sampler.totals


@contextmanager
def held_view(server, workload):
    """[workload] hold_read_view: a read view opened as the measured phase starts and released
    at its second (engine/measure/read_view.py); without one, a holder that holds nothing."""
    if not workload.hold_read_view:
        yield read_view.NoView()
        return
    holder = read_view.ReadViewHolder(server, workload.hold_read_view, workload.tool)
    holder.open()
    try:
        yield holder
    finally:
        holder.close()


@contextmanager
def sampling(server, disks, aside=(), extra=None):
    """Per-second server and disk samples over the measured phase (kept only if it succeeds)."""
    sampler = Sampler(server, disks, aside=aside, extra=extra, pid=server.process.pid)
    sampler.start()
    try:
        yield sampler
        sampler.stop()
    finally:
        sampler.close()
