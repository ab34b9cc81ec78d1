"""Sweep x repeats -> a design, an interleaved, seeded run order, a time estimate and a dry-run
listing.

Each repeat (a round) visits every point once, in an order drawn at random (randomized multiple
interleaved trials, Abedi & Brecht, ICPE 2017) and balanced over each group of rounds
(round_orders): drift during a sitting then hits every point alike, and no fixed order can turn
it into an effect.

Three designs (model.DESIGNS). Restart: each run is a fresh copy of the template on a fresh
server. Switchback: one server, warmed up once, the workload running throughout, the settings
switched at run time between blocks; a round is then one block of each point, and a repeat's
"duration" the seconds measured in a block after its settle seconds. Duet: the two points at
once on twin fresh servers (engine/run/duet.py); a round is a half, its order the points'
places (the first takes the first CPUs), and a repeat two halves, the places swapped.
"""

import dataclasses
import random
import re
from dataclasses import dataclass

from tuninglab.errors import UserError
from tuninglab.recipes import scan_size
from tuninglab.recipes.duets import duet_obstacle, unpaired_load
from tuninglab.units import human_seconds

# Per-run cost besides warm-up and measurement: copy the template datadir, start, stop
# (measured here: about 1.5 s for the disk-bound shape).
RUN_OVERHEAD_S = 2.0
# One-off costs: building a template datadir (measured: 1.6M rows in 9 s) and fio.
TEMPLATE_BASE_S = 5.0
TEMPLATE_PER_ROW_S = 6e-6
# The TPC-C-like dataset (measured: 10 warehouses loaded in 47 s), and per run the copy of its
# datadir and the consistency check after it.
TEMPLATE_PER_WAREHOUSE_S = 5.0
RUN_PER_WAREHOUSE_S = 0.5
BASELINE_S = 8.0
SANDBOX_S = 2.0   # sparse file, loop device, mkfs, mount, and the datadir copy onto it
SCAN_ROW_S = 2e-6  # a cold full scan of the disk-bound shape: 1.6M rows in about 3 s
# A run in the lab VM besides its workload: job disk, boot, array, copy, server start and stop
# (measured under TCG: 22 s for 8 tables of 50k rows).
LAB_VM_S = 22.0
# A plan's bounds, checked before its runs are built: more runs, or more time, is a typo in the
# repeats, the duration or the sweep (99999999 repeats would fill the memory first).
MAX_RUNS = 10_000
MAX_PLAN_DAYS = 7
# The storage settings a switchback can change on a mounted sandbox: the block device's
# queue, in sysfs (the filesystem and its mount options need a sandbox of their own).
QUEUE_KNOBS = ("scheduler", "read_ahead_kb")
QUEUE_SETTINGS = tuple(f"storage.{k}" for k in QUEUE_KNOBS)


@dataclass(frozen=True)
class Point:
    id: str
    value: str
    settings: dict
    storage: dict | None = None   # the sandbox of this point, if the recipe has [storage]
    raid: dict | None = None      # the md array under it, if the recipe has [raid]
    lab: dict | None = None       # the lab VM's kernel and mitigations, for runs in the VM
    zfs: dict | None = None       # the ZFS pool of this point, if the recipe has [zfs]
    workload: object = None       # the model.Workload of this point (a workload.* sweep)
    allocator: str = "glibc"      # the server's malloc (a server.allocator sweep)
    cpus: int = 0                 # the CPUs the server is held to, 0: all (server.cpus)


@dataclass(frozen=True)
class Run:
    index: int        # position in the run order, 0-based
    point: Point
    repeat: int       # 1-based

    @property
    def key(self) -> str:
        return f"{self.point.id}#{self.repeat}"


@dataclass(frozen=True)
class Plan:
    experiment: object
    points: tuple[Point, ...]
    runs: tuple[Run, ...]
    seed: int
    design: str = "restart"   # "restart", "switchback" or "duet" (design_for)

    @property
    def skipped(self) -> tuple:
        """(value, why) of each of the recipe's points the server cannot express."""
        return self.experiment.sweep.skipped

    @property
    def baseline(self) -> Point:
        return next(p for p in self.points if p.value == self.experiment.sweep.baseline)

    @property
    def switchback(self) -> bool:
        return self.design == "switchback"

    @property
    def duet(self) -> bool:
        return self.design == "duet"

    @property
    def rounds(self) -> int:
        """A restart's repeats, a switchback's rounds, a duet's halves (two a repeat)."""
        return self.experiment.measure.repeats * (2 if self.duet else 1)

    def block_seconds(self) -> float:
        """One switchback block: the seconds dropped after the switch and those measured."""
        m = self.experiment.measure
        return m.settle + m.duration

    def run_seconds(self, at_most=False) -> float:
        """A run's seconds: with the recipe's warm-up, or (at_most) with a steady-state
        warm-up that runs to its bound."""
        m, d = self.experiment.measure, self.experiment.dataset
        if self.switchback:
            return self.block_seconds()
        if not self.experiment.workload.timed:
            return SCAN_ROW_S * d.tables * d.table_size + RUN_OVERHEAD_S
        warmup = m.warmup_bound if at_most else m.warmup
        return warmup + m.duration + RUN_OVERHEAD_S + RUN_PER_WAREHOUSE_S * (d.warehouses or 0)

    def estimate(self, pending=None, template_cached=False, baseline_done=False,
                 at_most=False) -> float:
        runs = len(self.runs if pending is None else pending)
        m = self.experiment.measure
        total = runs * self.run_seconds(at_most)
        if self.duet:  # both runs of a half at once
            total = (runs + 1) // 2 * self.run_seconds(at_most)
        if self.switchback and runs:  # one server: a copy, a start, a warm-up, a stop
            total += (m.warmup_bound if at_most else m.warmup) + RUN_OVERHEAD_S
        if not template_cached:
            d = self.experiment.dataset
            total += TEMPLATE_BASE_S + (TEMPLATE_PER_WAREHOUSE_S * d.warehouses if d.warehouses
                                        else TEMPLATE_PER_ROW_S * d.tables * d.table_size)
        if self.experiment.recipe.in_lab_vm:  # a VM boot per run
            total += runs * LAB_VM_S
        elif self.experiment.recipe.storage and self.switchback and runs:  # one sandbox
            total += SANDBOX_S + BASELINE_S
        elif self.experiment.recipe.storage:  # a sandbox per run, fio per storage configuration
            total += runs * SANDBOX_S + len(self.points) * BASELINE_S
        return total + (0 if baseline_done else BASELINE_S)


def point_id(setting: str, value: str) -> str:
    """A stable, file-name-safe id for a point, e.g. innodb_doublewrite=OFF."""
    return f"{setting}={re.sub(r'[^A-Za-z0-9_.-]', '_', value)}"


def build(experiment, seed: int = 1, design: str | None = None) -> Plan:
    """The plan of an experiment; design: "restart" or "switchback" to decide it (the engine
    falls back to restart when a server cannot change a swept setting at run time), None for
    the recipe's (design_for)."""
    sweep = experiment.sweep
    points = tuple(Point(point_id(sweep.setting, v), v, experiment.settings_for(v),
                         experiment.storage_for(v), experiment.raid_for(v),
                         experiment.lab_for(v), experiment.zfs_for(v),
                         experiment.workload_for(v), experiment.allocator_for(v),
                         experiment.cpus_for(v))
                   for v in sweep.values)
    design = design or design_for(experiment)
    unbuilt = Plan(experiment, points, (), seed, design)
    check_size(unbuilt, unbuilt.rounds)
    runs = []
    for repeat, order in enumerate(round_orders(points, unbuilt.rounds, seed), 1):
        for point in order:
            runs.append(Run(len(runs), point, repeat))
    return Plan(experiment, points, tuple(runs), seed, design)


def without(experiment, skipped: dict):
    """The experiment without the sweep's points at these values ({value: why}: those a server
    cannot express, engine/run/preflight.py), which it keeps with why; every plan of it draws
    its own order over what is left."""
    sweep = experiment.sweep
    kept = tuple(v for v in sweep.values if v not in skipped)
    return dataclasses.replace(experiment, sweep=dataclasses.replace(
        sweep, values=kept, skipped=sweep.skipped + tuple(skipped.items())))


def round_orders(points, rounds: int, seed: int) -> list[list]:
    """The order of the points in each round: drawn at random (RMIT), yet balanced, so that a
    drift in time favours no point. Each group of len(points) rounds takes the rotations of a
    freshly shuffled order (A B C, B C A, C A B), in a shuffled order of their own: in a whole
    group each point holds each place once, and with two points a group is AB BA or BA AB."""
    rng = random.Random(seed)
    orders = []
    while len(orders) < rounds:
        order = list(points)
        rng.shuffle(order)
        group = [order[shift:] + order[:shift] for shift in range(len(order))]
        rng.shuffle(group)
        orders.extend(group)
    return orders[:rounds]


def design_for(experiment) -> str:
    """The design a recipe asks for: "auto" is switchback wherever nothing but server
    settings change between points (whether the server can change them at run time is asked
    when it starts); "switchback" where that is not so is refused, saying why."""
    wanted = experiment.measure.design
    if wanted == "restart":
        return "restart"
    if wanted == "duet":
        obstacle = duet_obstacle(experiment)
        if obstacle:
            raise UserError(f"{_design_key(experiment)}: \"duet\" runs the two points at "
                            f"once on twin servers, but {obstacle}; expected design = "
                            '"restart", "switchback" or "auto"')
        return "duet"
    obstacle = switchback_obstacle(experiment)
    if obstacle is None:
        return "switchback"
    if wanted == "switchback":
        raise switchback_refusal(experiment, obstacle)
    return "restart"


def switchback_refusal(experiment, why: str) -> UserError:
    """The error for a recipe that asks for a switchback it cannot have, saying why."""
    return UserError(f'{_design_key(experiment)}: "switchback" changes settings on the running '
                     f'server, but {why}; expected design = "restart" or "auto"')


def _design_key(experiment) -> str:
    r = experiment.recipe
    return f"{r.path}: measure.design" + (f" (variant {r.variant})" if r.variant else "")


def switchback_obstacle(experiment) -> str | None:
    """Why this experiment cannot switch between its points on one running server, or None."""
    r, sweep, w = experiment.recipe, experiment.sweep, experiment.workload
    if sweep.table == "storage" and sweep.setting not in QUEUE_SETTINGS:
        return (f"the sweep changes {sweep.setting}: each point needs a storage sandbox of "
                "its own")
    if not (sweep.server_option or sweep.setting in QUEUE_SETTINGS):
        return f"the sweep changes {sweep.setting}, not a server setting"
    if r.in_lab_vm:
        return "the recipe runs in the lab VM, which boots once per run"
    if r.storage and experiment.storage_for(sweep.baseline).get("logs") == "separate":
        return "the redo log has a sandbox of its own per run (storage.logs = separate)"
    return unpaired_load(w)


def queue_settings(plan: Plan) -> dict:
    """{queue setting: {point id: its value}} for the storage's block queue settings (IO
    scheduler, read-ahead) that differ between the points: a switchback writes them to sysfs
    at run time."""
    out = {}
    for knob in QUEUE_KNOBS:
        values = {p.id: (p.storage or {}).get(knob) for p in plan.points}
        if len(set(values.values())) > 1:
            out[knob] = values
    return out


def check_size(unbuilt: Plan, repeats: int) -> None:
    """Refuse a plan of more than MAX_RUNS runs or MAX_PLAN_DAYS days, given its points."""
    runs = len(unbuilt.points) * repeats
    seconds = unbuilt.estimate(range(runs))  # counts only, no run built yet
    if runs > MAX_RUNS:
        why = f"a plan may have at most {MAX_RUNS} runs"
    elif seconds > MAX_PLAN_DAYS * 86400:
        why = f"longer than the {MAX_PLAN_DAYS} days a plan may take"
    else:
        return
    e = unbuilt.experiment
    raise UserError(f"recipe {e.recipe.label} ({e.profile} profile): {len(unbuilt.points)} "
                    f"points x {repeats} repeats = {runs} runs, about {human_seconds(seconds)}:"
                    f" {why}; give fewer --repeats, a shorter --duration or fewer sweep values")


def profile_estimates(variants, template_cached: bool = True) -> dict[str, float]:
    """Estimated seconds of each profile of a recipe (all its variants), the quick one first."""
    profiles = sorted(variants[0].profiles, key=lambda p: p != "quick")
    return {p: sum(build(v.experiment(p)).estimate(template_cached=template_cached)
                   for v in variants) for p in profiles}


def describe(plan: Plan, server_label: str, pending=None, template_cached=False,
             baseline_done=False) -> str:
    """The dry-run listing: what will run, in which order, and how long it should take."""
    e = plan.experiment
    m, d, w = e.measure, e.dataset, e.workload
    pending = plan.runs if pending is None else pending
    if w.timed:
        fixed = [f" --{k}={v}" for k, v in w.options  # a swept option is in the points
                 if not (e.sweep.table == "workload" and k == e.sweep.key)]
        threads = ("the sweep's client threads" if e.sweep.setting == "workload.threads"
                   else f"{w.threads} threads")
        workload = (f"the TPC-C-like workload ({_active_text(w, d)}), {threads}"
                    if w.is_tpcc else f"sysbench {w.script}{''.join(fixed)}, {threads}")
        warm = (f"at least {human_seconds(m.warmup)}, longer while its throughput still "
                f"trends (at most {human_seconds(m.warmup_bound)})" if m.steady_window
                else human_seconds(m.warmup))
        each = f"{warm} warm-up (discarded) + {human_seconds(m.duration)} measured"
        if plan.switchback:
            each = (f"one server, warmed up for {warm}, the workload running "
                    f"throughout; per block the settings switched at run time, "
                    f"{human_seconds(m.settle)} dropped, {human_seconds(m.duration)} measured")
    else:
        workload = "a full scan of every table, one query at a time"
        each = "cold page cache and buffer pool, one scan timed"
    lines = [
        f"recipe {e.recipe.label} ({e.profile} profile): {e.recipe.question}",
        f"server {server_label}; {workload}",
        f"data shape {d.shape}: {_dataset_text(d)}, buffer pool {d.buffer_pool_size}",
        _design_line(plan),
        f"each run: {each}; {m.repeats} repeats per point; seed {plan.seed}",
        *_pin_lines(plan),
        "points:",
    ]
    for p in plan.points:
        mark = " (baseline)" if p == plan.baseline else ""
        lines.append(f"  {p.id}{mark}")
    done = len(plan.runs) - len(pending)
    lines.append(f"run order ({len(plan.runs)} runs" + (f", {done} already done" if done else "")
                 + "):")
    for repeat in range(1, plan.rounds + 1):
        row = [r.point.value + ("" if r in pending else " (done)")
               for r in plan.runs if r.repeat == repeat]
        lines.append(f"  half {repeat}: " + " beside ".join(row) if plan.duet
                     else f"  repeat {repeat}: " + ", ".join(row))
    estimate = plan.estimate(pending, template_cached, baseline_done)
    longest = plan.estimate(pending, template_cached, baseline_done, at_most=True)
    lines.append(f"estimated time: {human_seconds(estimate)}"
                 + ("" if template_cached else " (includes building the template datadir)")
                 + (f"; at most {human_seconds(longest)} if every warm-up runs to its bound"
                    if longest > estimate else ""))
    return "\n".join(lines)


def _pin_lines(plan: Plan) -> list[str]:
    if not plan.experiment.measure.pin:
        return []
    return ["CPUs: the server and the load generator pinned to CPUs of their own (measure.pin; "
            "not on a host with one CPU)"]


def _design_line(plan: Plan) -> str:
    e = plan.experiment
    if plan.duet:
        return ("design: duet (both points at once on twin fresh servers, each on half the "
                "CPUs, their loads started together; every other half swaps their places; "
                "compared second by second)")
    if plan.switchback:
        names = ", ".join(sorted(swept_settings(plan)))
        head = ("design: switchback (blocks in a random order each round, compared pairwise "
                "within a round)")
        if not names:  # only the device's queue: sysfs takes any value at run time
            return head + "; the device's queue settings written to sysfs at each switch"
        return (f"{head}; if the server cannot change {names} at run time "
                + ("the run stops, saying why" if e.measure.design == "switchback" else
                   "when it starts, the run falls back to restart"))
    obstacle = switchback_obstacle(e)
    why = ("the recipe asks for it" if e.measure.design == "restart" else
           obstacle or "the server cannot change the swept settings at run time")
    return f"design: restart (a fresh copy and server per run: {why})"


def swept_settings(plan: Plan) -> dict:
    """{server setting: {point id: its value}} for each setting whose value differs between
    the points: what a switchback changes at run time."""
    names = {k for p in plan.points for k in p.settings}
    out = {}
    for name in names:
        values = {p.id: p.settings.get(name) for p in plan.points}
        if len(set(values.values())) > 1:
            out[name] = values
    return out


def _dataset_text(d) -> str:
    if d.warehouses:
        return f"{d.warehouses} TPC-C-like warehouses"
    return f"{d.tables} tables x {d.table_size} rows{scan_size.text(d)}"


def _active_text(w, d) -> str:
    active = int(dict(w.options).get("active_warehouses", 0))
    if active == 0:
        return f"transactions on all {d.warehouses} warehouses"
    return f"transactions on warehouses 1 to {active} of {d.warehouses}"
