"""The switchback design: one server on one copy of the template, warmed up once, the workload
running throughout with a report every second, and the swept settings changed with SET GLOBAL
between blocks. Each block is one run of one point (its repeat is its round); the seconds
right after a switch are dropped, while the server settles on the new setting. Two blocks of a
round share that minute's neighbours and the server's state, which a restart design pays for
in noise (results.stats.compare_paired).

Seconds are sysbench's: its report at second t covers the second before it. A block switched
after second s drops seconds s+1 to s+settle and measures the next `duration` seconds.
Whether the server can change a setting at run time: engine/server/dynamic.py. A recipe with
[storage] gets one sandbox, whose device's queue settings are switched in sysfs.
"""

import shutil
import statistics
from contextlib import ExitStack
from dataclasses import dataclass
from pathlib import Path

from tuninglab.engine.measure import cost, device_baseline, phase as measure, steady
from tuninglab.engine.server import datadir, dynamic, memory, pinning
from tuninglab.engine.server import mysqld as srv
from tuninglab.engine.host.devices import read_diskstats
from tuninglab.engine.run.repeat import drop_caches, sandbox_fields
from tuninglab.engine.server.dynamic import same_value, set_statement
from tuninglab.engine.measure.sampler import cpu_times, disk_delta, merge_series
from tuninglab.engine.storage.sandbox import Sandbox, Spec
from tuninglab.engine.host.workdir import blame_full_disk
from tuninglab.engine.workloads import sysbench
from tuninglab.errors import UserError
from tuninglab.recipes import plan as planner
from tuninglab.recipes.plan import swept_settings
from tuninglab.results import document


@dataclass(frozen=True)
class Block:
    run: object        # the plan's Run: its point, and its repeat (the round)
    switched_s: int    # the switch follows the report of this second (0: before the start)
    first_s: int       # the measured seconds, first and last
    last_s: int


def schedule(runs, warmup: float, settle: float, duration: float) -> list[Block]:
    """The runs' blocks, in order, after the warm-up."""
    blocks, at = [], int(warmup)
    for run in runs:
        blocks.append(Block(run, at, at + int(settle) + 1, at + int(settle + duration)))
        at += int(settle + duration)
    return blocks


class Session:
    """The switchback's server on its copy of the template, started on entry with the
    baseline's settings; entering raises NotSwitchable if the server cannot change a swept
    setting at run time. A recipe with [storage] gets one sandbox for the whole session, whose
    device's queue settings (scheduler, read-ahead) are switched in sysfs. Stopped, and its
    copy and sandbox removed, however the block ends."""

    def __init__(self, plan, binary, template_data: Path, runs_dir: Path, devices=(),
                 baseline_seconds: int = 0):
        self.plan, self.binary, self.template_data = plan, binary, template_data
        self.rundir = runs_dir / "switchback"
        self.devices, self.baseline_seconds = tuple(devices), baseline_seconds
        # {server's name of a swept setting: {point id: value}} (MySQL may name it otherwise)
        self.swept = {dynamic.server_name(binary, name): values
                      for name, values in swept_settings(plan).items()}
        self.queue = planner.queue_settings(plan)  # {scheduler|read_ahead_kb: {point: value}}
        self.server = self.box = None
        self.warm_up = None  # a steady-state check's outcome (run_blocks)
        self.disks = []   # the sandbox's device, to sample (none: the work directory's)
        self.fio = {}     # the sandbox's fio baseline, for the first round's records
        self._stack = ExitStack()

    def __enter__(self):
        shutil.rmtree(self.rundir, ignore_errors=True)
        try:
            data = self._place()
            with blame_full_disk(data.parent if self.box else self.rundir.parent,
                                 "copying the template for the switchback"):
                datadir.clone(self.template_data, data)
            cap = self._stack.enter_context(memory.capped(
                self.plan.experiment.dataset, self.rundir.parent.parent, self.rundir.name,
                memory.extra(self.plan.experiment, self.binary.flavor)))
            if cap:  # what the copy left in the page cache would serve the server's reads
                memory.uncache(data)
            self.server = srv.Server(self.binary, self.rundir, data,
                                     dict(self.plan.baseline.settings),
                                     cgroup=cap.procs if cap else None,
                                     allocator=self.plan.baseline.allocator,
                                     cpus=pinning.first(self.plan.baseline.cpus))
            self._drop_caches()
            with memory.starting(cap, self.plan.experiment.dataset):  # killed for memory: says so
                self.server.start()
            self.server.allocator_record()  # the recipe's allocator is the one running
            self._check_dynamic()
        except BaseException:
            self.__exit__()
            raise
        return self

    def _place(self) -> Path:
        """Where the datadir goes: the run directory, or the session's sandbox."""
        spec = self.plan.baseline.storage
        if spec is None:
            return self.rundir / "data"
        self.box = self._stack.enter_context(Sandbox(
            self.rundir.parent.parent, Spec(**sandbox_fields(spec)), name=self.rundir.name,
            device=self.devices[0] if self.devices else None))
        self.disks = [Path(self.box.device).name]
        if self.baseline_seconds:
            self.fio["device_baseline"] = device_baseline.device_baseline(
                self.box.mountpoint, seconds=self.baseline_seconds)
        return self.box.mountpoint / "data"

    def _check_dynamic(self) -> None:
        if not self.swept:
            return
        fixed = dynamic.not_dynamic(self.server, {n: list(v.values()) for n, v in
                                                  self.swept.items()})
        dynamic.remember(self.rundir.parent.parent, self.binary,
                         {name: name not in fixed for name in self.swept})
        if fixed:
            raise dynamic.NotSwitchable(dynamic.startup_only(self.binary, fixed))

    def switch_storage(self, run) -> dict:
        """Write the run's queue settings to sysfs (the sandbox checks the kernel took them);
        the record's additions: the storage as the kernel has it now, and in the first round
        fio's baseline (fio ran once, before it).

        The page cache is dropped only where the host's holds the device's blocks, a loop
        device attached buffered (the fallback where the kernel refuses direct IO): a second
        cache outside the server's memory, which would serve a block what the blocks before
        it read. A direct-IO loop device (or a named device) has none: the only cache left is
        the server's own, its buffer pool and the page cache charged to its memory cgroup,
        which a block inherits from the one before like the buffer pool, alike for every
        point (the order is balanced). Dropping it made each block climb from cold."""
        if not self.box:
            return {}
        for knob, values in self.queue.items():
            self.box.set_queue(knob, str(values[run.point.id]))
        if self.box.host_cached:
            self._drop_caches()
        return {**(self.fio if run.repeat == 1 else {}), "storage": self.box.state()}

    def _drop_caches(self) -> None:
        """Before the server starts (whatever the device: the copy of the template is in the
        page cache, uncharged to the server where no memory cap uncached it), and before a
        block on a buffered loop device; never with storage.drop_caches = false."""
        if self.box and self.plan.baseline.storage.get("drop_caches", True):
            drop_caches()

    def __exit__(self, *exc):
        if self.server:
            self.server.stop(discard=True)
            self.server = None
        self._stack.close()  # the sandbox: unmounted, detached, its queue settings restored
        self.box = None
        shutil.rmtree(self.rundir, ignore_errors=True)


class _Meter:
    """The engine's own connection beside the workload: it switches the settings, reads them
    back, and reads the cost counters and the disks at a block's ends."""

    def __init__(self, session, disks):
        self.session, self.disks = session, list(disks)
        self.server = session.server
        self.conn = self.server.connect()

    def close(self):
        self.conn.close()

    def _query(self, sql: str) -> list:
        with self.conn.cursor() as cur:
            cur.execute(sql)
            return list(cur.fetchall())

    def switch(self, run) -> tuple[dict, dict]:
        """Set the values of the run's point: its settings read back, and the storage's
        additions to the block's record."""
        point = run.point
        storage = self.session.switch_storage(run)
        for name, values in self.session.swept.items():
            self._query(set_statement(name, values[point.id]))
        effective = self.server.variables(self.session.binary.map(point.settings))
        for name, values in self.session.swept.items():
            if not same_value(values[point.id], effective.get(name, "")):
                raise UserError(f"{self.session.binary.label} took {name} = "
                                f"{effective.get(name)!r} when switched to "
                                f"{values[point.id]!r} for point {point.id}; a switchback "
                                "needs every value to take effect as given (with a restart "
                                "design, the server may choose otherwise at startup)")
        return effective, storage

    def reading(self) -> dict:
        status = dict(self._query("SHOW GLOBAL STATUS"))
        return {"cost": cost.counters(cost.status_counters(status), cpu_times()[0],
                                      self.server.process.pid),
                "disk": read_diskstats(self.disks) if self.disks else {}}


class _Timeline:
    """The blocks' seconds: fixed before the load starts, or (a steady-state check) once the
    warm-up is over."""

    def __init__(self):
        self.blocks = []
        self.at = {"switched_s": {}, "last_s": {}}
        self.settled, self.round_ends = {}, set()

    def fix(self, runs, start: float, m) -> None:
        self.blocks = schedule(runs, start, m.settle, m.duration)
        self.at = {kind: {getattr(b, kind): b for b in self.blocks}
                   for kind in ("switched_s", "last_s")}
        self.settled = {b.first_s - 1: b for b in self.blocks}
        self.round_ends = {b.last_s for b, after in zip(self.blocks, self.blocks[1:] + [None])
                           if after is None or after.run.repeat != b.run.repeat}

    @property
    def end_s(self) -> int:
        return self.blocks[-1].last_s


def run_blocks(session, runs, experiment, disks, clock, on_round, offset: int = 0,
               warmup: float | None = None, steady_check: bool = False) -> list:
    """Warm up, then measure the blocks of runs (whole rounds, in order). on_round(records,
    tps) is called after each round with its records (one per block, as the document's runs)
    and this session's per-second throughput so far; offset: the seconds of earlier sessions
    of the same result, so that every block's seconds index the result's whole tps series.
    warmup: the seconds of load before the first block (default: the recipe's warm-up);
    steady_check: go on warming up while the load still trends, up to the recipe's
    warmup_bound (the outcome in session.warm_up); only after the recipe's own warm-up.
    Returns this session's per-second throughput."""
    m = experiment.measure
    measure.check_connections(session.server, experiment.workload.threads)
    warmup = m.warmup if warmup is None else warmup
    steady_check = steady_check and warmup == m.warmup and m.steady_window > 0
    blocks = _Blocks(session, runs, m, clock, on_round, offset, steady_check)
    if not steady_check:
        blocks.line.fix(runs, warmup, m)
    blocks.notes = session.server.log_notes()
    blocks.meter = _Meter(session, disks)
    try:
        blocks.run(experiment, disks, warmup)
    finally:
        blocks.meter.close()
    return blocks.tps()


class _Blocks:
    """One sysbench load on the session's server, cut into blocks as its seconds come in:
    each second is checked against the timeline (a block ends, a round ends, a setting is
    switched, a block's measured seconds begin)."""

    def __init__(self, session, runs, m, clock, on_round, offset: int, steady_check: bool):
        self.session, self.runs, self.m, self.clock = session, runs, m, clock
        self.on_round, self.offset, self.steady_check = on_round, offset, steady_check
        self.line = _Timeline()
        self.notes, self.meter = {}, None  # the server's log notes, the readings' source
        self.intervals, self.round, self.done = [], [], []
        self.begin, self.effective, self.storage, self.started = None, None, {}, None

    def tps(self) -> list:
        return [i.tps for i in self.intervals]

    def run(self, experiment, disks, warmup: float) -> None:
        m, server = self.m, self.session.server
        blocks_s = len(self.runs) * int(m.settle + m.duration)
        seconds = (m.warmup_bound if self.steady_check else int(warmup)) + blocks_s
        command = measure.run_command(server.socket, experiment.workload, experiment.dataset,
                                      seconds + 1)  # a second more: the last report
        if warmup:
            self.clock.phase("warm-up", warmup)
        # no warm-up: the first block's settings from the start
        if 0 in self.line.at["switched_s"]:
            self.switch(self.line.at["switched_s"][0])
        if 0 in self.line.settled:
            self.begin = self.meter.reading()
        with measure.sampling(server, disks) as sampler, \
                pinning.pinned(server, pinning.cpus_for(m)):
            sysbench.run(command, self.on_interval)
        for record in self.done:  # the sampler's last samples may have come after on_round
            _add_series(record, self.intervals, sampler.samples, self.offset)

    def switch(self, block) -> None:
        self.clock.begin(block.run)
        self.clock.phase(f"{block.run.point.value} block", self.m.settle + self.m.duration,
                         block.switched_s)
        self.effective, self.storage = self.meter.switch(block.run)
        self.started = document.now()

    def warmed(self, t: int) -> None:
        """Fix the blocks' seconds once the warm-up's load stops trending."""
        tps = self.tps()
        if self.line.blocks or not steady.ready(tps, self.m):
            return
        self.line.fix(self.runs, t, self.m)
        self.session.warm_up = {**steady.outcome(tps, self.m), "seconds": t}
        self.clock.say(f"    warm-up: {_warm_up_text(self.session.warm_up)}")

    def on_interval(self, interval) -> None:
        self.intervals.append(interval)
        self.clock.tick(interval)
        t, line = round(interval.t), self.line
        if self.steady_check:
            self.warmed(t)
        if t in line.at["last_s"]:
            self.end_block(line.at["last_s"][t], t)
        if t in line.at["switched_s"]:
            self.switch(line.at["switched_s"][t])
        if t in line.settled:
            self.begin = self.meter.reading()
        if self.steady_check and line.blocks and t == line.end_s:
            raise sysbench.Enough  # the load ran for the longest warm-up it might have needed

    def end_block(self, block, t: int) -> None:
        record = _record(block, self, self.meter.reading(), self.notes, self.offset)
        self.clock.end(record)
        self.round.append(record)
        self.done.append(record)
        if t in self.line.round_ends:
            self.on_round(self.round, self.tps())
            self.round = []


def _warm_up_text(w: dict) -> str:
    if w["steady"]:
        return f"steady after {w['seconds']} s"
    return (f"still trending after {w['seconds']} s, the bound: measuring anyway (the blocks' "
            "order is balanced, so a drift widens the interval without favouring a point)")


def _record(block, blocks, end: dict, notes: dict, offset: int) -> dict:
    """One block as a run of the document: its summary over its measured seconds, its costs
    per transaction between its readings, its settings read back, where it lies."""
    seconds = [i for i in blocks.intervals if block.first_s <= round(i.t) <= block.last_s]
    if not seconds:
        raise UserError(f"sysbench reported none of the seconds {block.first_s} to "
                        f"{block.last_s} of block {block.run.key}")
    transactions = round(sum(i.tps for i in seconds))  # per-second rates over 1 s each
    begin = blocks.begin
    disk = {d: disk_delta(end["disk"][d], begin["disk"][d]) for d in end["disk"]}
    summary = {"transactions": transactions,
               "tps": round(statistics.fmean(i.tps for i in seconds), 2),
               "latency_p95_ms": statistics.median(i.latency_p95_ms for i in seconds),
               "latency_avg_ms": None,  # sysbench reports no average per second
               "errors": round(sum(i.errors_per_s for i in seconds)),
               "io": measure.io_per_transaction(disk, transactions)}
    per_trx = {**(cost.per_transaction(cost.delta(begin["cost"], end["cost"]), transactions)
                  or {}), **measure.device_cost(summary["io"])}
    if per_trx:
        summary["cost"] = per_trx
    return {"repeat": block.run.repeat, "order": block.run.index, "started": blocks.started,
            "finished": document.now(), "effective": blocks.effective, "server_log": notes,
            "summary": summary, "series": merge_series(seconds, []),
            "block": {"switched_s": block.switched_s + offset,
                      "first_s": block.first_s + offset, "last_s": block.last_s + offset},
            **blocks.storage}


def _add_series(record: dict, intervals, samples, offset: int) -> None:
    """The block's per-second series: sysbench's beside the sampler's (sample k covers the
    workload's second k + 1: the sampler starts just before sysbench)."""
    first, last = (record["block"][k] - offset for k in ("first_s", "last_s"))
    seconds = [i for i in intervals if first <= round(i.t) <= last]
    record["series"] = merge_series(seconds, samples[first - 1:last])

