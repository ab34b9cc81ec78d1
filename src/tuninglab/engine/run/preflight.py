"""Everything a run checks before anything starts: the recipe and its variant, the host's
abilities, --device, the server binary, sysbench and every server option the recipe sets, with
every value of every point put to the server binary (which serves nothing to answer)."""

import dataclasses
import os
from pathlib import Path
from typing import NamedTuple

from tuninglab import files, units
from tuninglab.engine.host import hostinfo
from tuninglab.engine.run import duet, sizing, stop_rule
from tuninglab.engine.server import allocators, pinning
from tuninglab.engine.server import mysqld as srv
from tuninglab.engine.measure.phase import OWN_CONNECTIONS
from tuninglab.engine.server.option_names import (
    check_known,
    describe_problem,
    option_choices,
)
from tuninglab.engine.storage import guard, sandbox
from tuninglab.engine.workloads import sysbench
from tuninglab.errors import NotOnThisServer, UserError
from tuninglab.recipes import defaults_sets
from tuninglab.recipes import plan as planner
from tuninglab.recipes.duets import duet_obstacle
from tuninglab.recipes.load import load
from tuninglab.recipes.model import Recipe
from tuninglab.recipes.server_list import most_threads
from tuninglab.recipes.server_names import value_of_others


class Prepared(NamedTuple):
    """A checked experiment, ready to run: its plan, the server binary and the real block
    devices named for it (resolved and accepted), if any."""
    plan: object
    binary: object
    devices: tuple = ()


def prepare_named(name: str, opts) -> Prepared:
    """prepare() for the recipe's main experiment or opts.variant, loaded from its file."""
    return prepare(load(name, opts.recipes_dir, opts.variant), opts)


def prepare(recipe: Recipe, opts) -> Prepared:
    """Everything that can fail on bad input, checked before anything runs."""
    experiment = recipe.experiment(opts.profile, opts.repeats, opts.duration, opts.warmup,
                                   opts.precision, opts.budget)
    if opts.design:   # --design, instead of the recipe's
        obstacle = (duet_obstacle if opts.design == "duet" else
                    planner.switchback_obstacle if opts.design == "switchback" else None)
        why = obstacle and obstacle(experiment)
        if why:
            raise UserError(f"--design {opts.design}: {recipe.label} cannot run as a "
                            f"{opts.design}: {why}")
        experiment = dataclasses.replace(experiment, measure=dataclasses.replace(
            experiment.measure, design=opts.design))
    check_needs(recipe)
    plan = planner.build(experiment, opts.seed)
    stop_rule.check(plan)
    if plan.duet:
        check_duet(recipe, plan, opts.devices)
    devices = check_devices(recipe, opts, plan.points)
    if not recipe.in_lab_vm:   # the lab VM's kernel has its own
        check_schedulers(recipe, plan.points,
                         sandbox.offered_schedulers(devices[0] if devices else None))
    if devices and experiment.dataset.read_seconds:  # a scan sized to the named disk
        wd = Path(opts.workdir or files.default_workdir()).resolve()
        experiment = sizing.sized(experiment, devices[0], wd)
        plan = planner.build(experiment, opts.seed)
    binary = srv.find(opts.mysqld, opts.server, opts.workdir)
    sysbench.executable()
    plan = expressible(recipe, plan, binary)   # every point's options checked
    check_allocators(recipe, plan.points, binary)
    check_cpus(recipe, experiment, plan.points)
    check_lab_memory(recipe, plan.points)
    return Prepared(plan, binary, devices)


def check_duet(recipe, plan, devices=()) -> None:
    """What a duet needs of this host and run besides what the planner checks: two CPUs (one
    set per server) and loop-device sandboxes (one for each server at once)."""
    duet.slot_cpus()
    if devices:
        raise UserError(f"recipe {recipe.label}: a duet builds a sandbox for each of its two "
                        "servers at once, on loop devices; --device names one disk for one "
                        "server: expected no --device, or another design")


def check_schedulers(recipe, points, offered: list[str] | None) -> None:
    """Every storage.scheduler a point sets is one this kernel offers, before any run: a
    kernel built without one (bfq is a module some kernels lack) would stop the run at its
    first such point."""
    wanted = [p.storage["scheduler"] for p in points if (p.storage or {}).get("scheduler")]
    missing = [s for s in dict.fromkeys(wanted) if offered is not None and s not in offered]
    if missing:
        raise UserError(f"{recipe.path}: storage.scheduler {', '.join(map(repr, missing))} is "
                        f"not offered by this kernel (its devices offer {', '.join(offered)}): "
                        "expected one of those, or load the scheduler's module "
                        f"(`modprobe {missing[0]}`) where the kernel has it")


def check_lab_memory(recipe, points, meminfo: str | None = None) -> None:
    """The lab VM's memory (the largest point's) must fit in what this host has free, with
    room for qemu itself: a guest larger than that would push the host into swap."""
    wanted = max((units.size_bytes(p.lab["memory"]) for p in points if p.lab), default=0)
    if not wanted:
        return
    if meminfo is None:
        meminfo = Path("/proc/meminfo").read_text()
    free = hostinfo.parse_meminfo(meminfo, "MemAvailable")
    if free is not None and wanted + LAB_VM_OVERHEAD > free:
        raise UserError(f"{recipe.path}: the lab VM is to have {wanted >> 20} MiB of memory, "
                        f"but this host has {free >> 20} MiB available (and qemu needs about "
                        f"{LAB_VM_OVERHEAD >> 20} MiB more): expected a smaller lab.memory")


LAB_VM_OVERHEAD = 512 << 20


def check_cpus(recipe, experiment, points) -> None:
    """A server held to N CPUs needs N of them here, and the recipe's CPU pinning would
    place its threads elsewhere."""
    placements = [p.cpus for p in points if isinstance(p.cpus, str)]
    if placements and not hostinfo.smt_cores():
        raise UserError(f"{recipe.path}: server.cpus = {placements[-1]} needs SMT, and this "
                        "host has none (every core runs one hardware thread); the lab VM "
                        "boots its vCPUs as one core's two threads: `invoke recipe smt-lab`")
    for placement in set(placements):   # "cores" needs two SMT cores, "siblings" one
        pinning.placed(placement)
    wanted = max((2 if isinstance(p.cpus, str) else p.cpus for p in points), default=0)
    if not wanted:
        return
    have = len(pinning.available())
    if wanted > have:
        raise UserError(f"{recipe.path}: the server is to run on {wanted} CPUs, but this host "
                        f"gives the runner {have}; expected server.cpus from 1 to {have}")
    if experiment.measure.pin:
        raise UserError(f"{recipe.path}: measure.pin and server.cpus both place the server's "
                        "threads: expected one of them")


def check_allocators(recipe, points, binary=None) -> None:
    """Every allocator a point preloads is installed, before any run; a server in a root
    (roots.py) has glibc's only, the host's libraries being outside it."""
    for name in dict.fromkeys(p.allocator for p in points):
        if binary is not None and binary.root and name != "glibc":
            raise UserError(f"{recipe.path}: allocator {name!r} is preloaded from this host, "
                            f"and {binary.label} runs in its own Debian root: expected the "
                            "host's server (no --server) for an allocator other than glibc")
        try:
            allocators.library(name)
        except UserError as exc:
            raise UserError(f"{recipe.path}: {exc}") from None


def check_needs(recipe) -> None:
    if "root" in recipe.needs and os.geteuid() != 0:
        raise UserError(f"recipe {recipe.name} needs root (it changes storage settings); "
                        "run it with sudo")
    if recipe.measure.drop_caches and os.geteuid() != 0:
        raise UserError(f"{recipe.path}: measure.drop_caches needs root (it writes "
                        "/proc/sys/vm/drop_caches); run it with sudo, or set it to false")
    missing = [n for n in recipe.needs if n != "root"]
    if missing:
        raise UserError(f"recipe {recipe.name} needs {', '.join(missing)}, which this version "
                        "of the engine cannot provide yet")


def check_devices(recipe, opts, points) -> tuple:
    """--device: one device for a recipe with [storage], one per member (and spare) in the
    lab VM; never a device in use. Returns the resolved device paths."""
    if not opts.devices:
        return ()
    if not recipe.in_lab_vm:
        if not recipe.storage:
            raise UserError(f"recipe {recipe.label} runs in the work directory and takes no "
                            "--device")
        separate = any(p.storage.get("logs") == "separate" for p in points)
        if len(opts.devices) != 1 + separate:
            what = "two devices, for the data and for the redo log," if separate else \
                "one device,"
            raise UserError(f"recipe {recipe.label} tests {what} got {len(opts.devices)}: "
                            f"{', '.join(opts.devices)}")
    resolved = tuple(guard.check_device(d, opts.destroy_data) for d in opts.devices)
    # Resolved: /dev/disk/by-id/... and /dev/sdb are one device.
    if len(set(resolved)) != len(resolved):
        raise UserError(f"recipe {recipe.label}: a device is named twice in --device "
                        f"({', '.join(opts.devices)})")
    if recipe.in_lab_vm:
        from tuninglab.engine.lab import members  # noqa: PLC0415
        members.check(resolved, points, recipe.label)
    return resolved


def expressible(recipe, plan, binary):
    """Every point's options put to the server (check_options: a bad value is a UserError), and
    the plan without the points this server cannot express (an option it lacks, a value only
    other servers take), each kept in plan.skipped with why. When that is the baseline, leaves
    fewer than two points, or leaves none of the values only some servers take where the sweep
    has some (such a sweep is about them: MySQL's and MariaDB's doublewrite modes), the
    experiment cannot run here: NotOnThisServer, which skips a variant when the whole recipe
    runs and refuses one asked for by name."""
    refused = _other_servers_sets(recipe, plan, binary)
    for point in plan.points:
        try:
            if point.value not in refused:
                check_options(recipe, plan.experiment, binary, (point,))
        except NotOnThisServer as exc:
            refused[point.value] = exc
    if not refused:
        return plan
    sweep = plan.experiment.sweep
    about = [p.value for p in plan.points if value_of_others(sweep.setting, p.value)]
    if sweep.baseline in refused:
        raise refused[sweep.baseline]
    if about and all(v in refused for v in about):
        whose = "; ".join(f"{v} is a value of {value_of_others(sweep.setting, v)}"
                          for v in about)
        raise NotOnThisServer(f"{_where(recipe, 'sweep.values')}: {binary.label} takes none of "
                              f"the values of {sweep.setting} this sweep is about ({whose})")
    sets = defaults_sets.about(sweep)
    if sets and all(s.name in refused for s in sets):
        whose = "; ".join(f"{s.name} is for {s.server}" for s in sets)
        raise NotOnThisServer(f"{_where(recipe, 'sweep.values')}: {binary.label} runs none of "
                              f"the sets of earlier defaults this sweep compares its own "
                              f"with ({whose})")
    if len(plan.points) - len(refused) < 2:
        raise next(iter(refused.values()))
    return planner.build(planner.without(plan.experiment, {v: str(e) for v, e in
                                                           refused.items()}), plan.seed)


def _other_servers_sets(recipe, plan, binary) -> dict:
    """{value: NotOnThisServer} for a server.defaults sweep's sets of another server's (or an
    earlier version's) defaults."""
    out = {}
    for point in plan.points if plan.experiment.sweep.sets else ():
        why = defaults_sets.refusal(plan.experiment.sweep, point.value, binary.flavor,
                                    binary.version)
        if why:
            out[point.value] = NotOnThisServer(f"{_where(recipe, 'sweep.values')}: "
                                               f"{binary.label}: {why}")
    return out


def check_options(recipe, experiment, binary, points=()) -> None:
    """Every option the recipe sets exists in this server, and every point's values are ones
    it takes as they are: a refused value would fail only after the template build, a changed
    one would be recorded as a value that never ran."""
    known = binary.variables
    check_known(binary.map(dict(recipe.server_settings)), known, binary.label,
                _where(recipe, "server.settings"))
    if experiment.sweep.server_option:
        check_known(binary.map({experiment.sweep.setting: experiment.sweep.baseline}), known,
                    binary.label, _where(recipe, "sweep.setting"))
    for point in points:
        checked = srv.check_settings(binary, point.settings)
        for problem in checked.problems:
            key = _setting_key(recipe, experiment, _origin(binary, point.settings, problem.name))
            choices = option_choices(checked.help_text, problem.name)
            others = value_of_others(problem.name, problem.value)
            error = NotOnThisServer if problem.unknown or others else UserError
            only = f" ({problem.value} is a value of {others} only)" if others else ""
            raise error(f"{_where(recipe, key)}: "
                        f"{describe_problem(problem, binary.label, choices)}{only}")
        check_connections(recipe, experiment, checked.values, binary.label)


def check_connections(recipe, experiment, values: dict, label: str) -> None:
    """The workload's threads and the engine's own connections fit in max_connections (as
    the settings and the server's default make it), before any template is built."""
    threads = most_threads(experiment)
    allowed = values.get("max_connections", "")
    if allowed.isdigit() and threads + OWN_CONNECTIONS > int(allowed):
        key = _profile_key(recipe, experiment, "threads", "workload.threads")
        raise UserError(f"{_where(recipe, key)}: {threads} threads need "
                        f"{threads + OWN_CONNECTIONS} connections with the engine's own, but "
                        f"{label} allows max_connections = {allowed}; expected fewer threads, "
                        "or max_connections in [server.settings]")


def _origin(binary, settings: dict, name: str) -> str:
    """The recipe's name of a server option (MySQL 8.0.30+ calls the recipe's
    innodb_log_file_size innodb_redo_log_capacity)."""
    return next((key for key, value in settings.items() if name in binary.map({key: value})),
                name)


def _setting_key(recipe, experiment, setting: str) -> str:
    """The recipe's key that set a server option of a point."""
    if experiment.sweep.server_option and setting == experiment.sweep.setting:
        return "sweep.values"
    if setting in dict(recipe.server_settings):
        return f"server.settings.{setting}"
    if setting == "innodb_buffer_pool_size":  # the data shape's, or the profile's
        return _profile_key(recipe, experiment, "buffer_pool_size", "dataset.buffer_pool_size")
    return f"the engine's own {setting}" if setting else "the server settings"


def _profile_key(recipe, experiment, key: str, otherwise: str) -> str:
    """profiles.<profile>.<key> if the experiment's profile sets it, else otherwise."""
    if key in recipe.profiles.get(experiment.profile, {}):
        return f"profiles.{experiment.profile}.{key}"
    return otherwise


def _where(recipe, key: str) -> str:
    return f"{recipe.path}: {key}" + (f" (variant {recipe.variant})" if recipe.variant else "")
