"""What a recipe is once read: the lab's vocabulary (data shapes, tools, scripts, the keys each
TOML table takes and what a sweep may name) and the frozen dataclasses the engine runs: a Recipe,
and the Experiment a profile and command-line overrides make of it (which must keep the rule
between a tpcc workload and its dataset's warehouses, checked here for both).

Standard library only: the lab VM's guest imports Dataset, Measure and Workload from here without
the project's dependencies.
"""

import dataclasses
import re
from dataclasses import dataclass
from pathlib import Path

from tuninglab import units
from tuninglab.errors import UserError
from tuninglab.recipes import held_view
from tuninglab.recipes.lab import LAB_DEFAULTS, LAB_KEYS, image_name
from tuninglab.recipes.raid import array_spec
from tuninglab.recipes.reader import Reader
from tuninglab.recipes.scripts import PROJECT_SCRIPTS
from tuninglab.recipes.warehouses import check_warehouses
from tuninglab.results.metrics import PRIMARY, SCAN, TPCC

# Data shapes: the IO settings only show their effect when the data does not fit in memory.
# A disk-bound shape also caps the server's memory (engine/server/memory.py), page cache included:
# about 400 MB of tables : 192M of memory : a 64M buffer pool, as in the 2004 runs (about 30 GB
# of data, 4 GB of RAM, a 1.8 GB pool) neither the pool nor the OS can hold the data. A
# cpu-bound shape's pool holds every page: nothing to cap.
SHAPES = {
    "cpu-bound": {"tables": 4, "table_size": 50_000, "buffer_pool_size": "256M",
                  "memory_limit": None},
    "disk-bound": {"tables": 8, "table_size": 200_000, "buffer_pool_size": "64M",
                   "memory_limit": "192M"},
}
# What a server needs besides its buffer pool to start and serve a few threads (MariaDB 10.11
# with a 64M pool holds about 70 MiB more): a memory limit below the pool and this is refused.
SERVER_MEMORY = "96M"
NEEDS = {"root", "md", "zfs", "kvm"}
# The workload kinds ([workload] tool: SYSBENCH, SCAN, TPCC) are defined once, beside their
# primary metrics, in results/metrics.py.
SYSBENCH_SCRIPTS = {"oltp_read_only", "oltp_read_write", "oltp_write_only", "oltp_update_index",
                    "oltp_update_non_index", "oltp_insert", "oltp_delete", "oltp_point_select"}


# Options the engine sets itself: a recipe changing them would break the sandbox.
RESERVED_OPTIONS = {
    "datadir", "socket", "pid_file", "port", "skip_networking", "bind_address", "user",
    "log_error", "basedir", "mysqlx", "innodb_buffer_pool_size", "innodb_log_group_home_dir",
}
# The storage under test (needs root): a loop-device sandbox built for every run.
STORAGE_KEYS = {"filesystem", "size", "mount_options", "mkfs_options", "scheduler", "logs",
                "logs_size", "read_ahead_kb", "drop_caches"}
STORAGE_SWEEPABLE = {"filesystem", "mount_options", "scheduler", "read_ahead_kb", "logs"}
# Where the redo log lives: in the datadir, or on a second sandbox of its own (logs_size).
LOGS = ("same", "separate")
# An md RAID array under the filesystem: built natively or in the lab VM (lab/raid.py).
RAID_KEYS = {"level", "chunk", "disks", "member_size", "state", "layout"}
RAID_SWEEPABLE = {"level", "chunk", "disks", "state", "layout"}
# A ZFS pool on one disk in the lab VM (its image gains OpenZFS): the dataset's properties, the
# ARC's size limit and the disk's size.
ZFS_KEYS = {"recordsize", "compression", "atime", "logbias", "primarycache", "arc_max", "size"}
ZFS_SWEEPABLE = {"recordsize", "compression", "logbias", "primarycache"}
# The lab's tables a sweep may name as "<table>.<key>", with the keys each lets it sweep. A
# workload.* sweep sets the client threads or an option of the recipe's project script.
SWEPT_TABLES = {"storage": STORAGE_SWEEPABLE, "raid": RAID_SWEEPABLE, "lab": LAB_KEYS,
                "zfs": ZFS_SWEEPABLE, "server": {"allocator", "cpus", "defaults"}, "workload": {"threads"} | {
                    key for options in PROJECT_SCRIPTS.values() for key in options}}
# The server's memory allocator: glibc's malloc, or one preloaded (engine/server/allocators.py).
ALLOCATORS = ("glibc", "jemalloc", "tcmalloc")
MAX_CPUS = 256  # [server] cpus: the CPUs the server is held to (0: every one the runner has)
# ... or two CPUs placed by SMT: one core's two hardware threads, or threads of two cores.
CPU_PLACEMENTS = ("siblings", "cores")
VARIANT_KEYS = ("title", "question", "dataset", "server", "workload", "sweep", "measure",
                "profiles", "storage", "raid", "lab", "zfs", "regime", "defaults")
# Bounds a typo must not pass: 99999999 repeats would build a plan that fills the memory;
# 100000 threads would need as many connections. (A plan's runs and time: plan.py.)
MAX_REPEATS = 1000
MAX_THREADS = 1024
PROFILE_MAXIMUM = {"repeats": MAX_REPEATS, "threads": MAX_THREADS}
# Variant and profile names, which go into result file names.
PLAIN_NAME = re.compile(r"[a-z0-9][a-z0-9-]{0,30}")
PROFILE_KEYS = {"warmup", "duration", "repeats", "threads", "tables", "table_size",
                "buffer_pool_size", "memory_limit", "warehouses", "design", "settle",
                "precision", "budget"}
# A steady-state warm-up's window (engine/measure/steady.py): the recipe's warm-up, at most 20 s; one
# under 5 s is too short to show a trend and stays fixed.
STEADY_WINDOW_S, MIN_STEADY_WINDOW_S = 20, 5
# How a sweep is measured ([measure] design): "restart" runs each repeat of each point on its
# own fresh server; "switchback" changes the settings at run time on one warmed server, in
# blocks; "duet" runs two points at once on twin fresh servers, their places swapped every
# other half (engine/run/duet.py); "auto" is switchback where every swept setting can be
# changed at run time.
DESIGNS = ("auto", "switchback", "restart", "duet")
DATASET_KEYS = ("tables", "table_size", "buffer_pool_size", "memory_limit", "warehouses")


def label(name: str, variant: str) -> str:
    """A recipe variant in one word: "name" or "name:variant"."""
    return f"{name}:{variant}" if variant else name


def in_lab_vm(raid, lab, zfs) -> bool:
    """A recipe with a [raid], [lab] or [zfs] table runs in the lab VM (engine/lab/vm.py)."""
    return bool(raid or lab or zfs)


@dataclass(frozen=True)
class Dataset:
    shape: str
    tables: int
    table_size: int
    buffer_pool_size: str
    warehouses: int | None = None   # the TPC-C-like scale W (tool = TPCC); None otherwise
    # The server's memory, page cache included (engine/server/memory.py); None: not capped
    memory_limit: str | None = None
    # A scan's tables sized on a named device to a scan this long (recipes/scan_size.py), and
    # the device's sequential read rate it was sized to (MiB/s; None: not sized)
    read_seconds: float | None = None
    device_read_mib_s: float | None = None

    def memory_problem(self) -> str | None:
        """Why the memory limit cannot hold the buffer pool and the server, or None."""
        if self.memory_limit is None:
            return None
        need = units.size_bytes(self.buffer_pool_size) + units.size_bytes(SERVER_MEMORY)
        if units.size_bytes(self.memory_limit) >= need:
            return None
        return (f"{self.memory_limit} does not hold the buffer pool (buffer_pool_size = "
                f"{self.buffer_pool_size}) and the server's own memory (at least "
                f"{SERVER_MEMORY}): expected at least {need // 2**20}M, or \"none\"")


@dataclass(frozen=True)
class Workload:
    tool: str   # the kind: one of TOOLS
    script: str
    threads: int
    options: tuple = ()   # sorted (key, value) pairs of a project script's options
    # [workload] hold_read_view: a read view held from the measured phase's start for this many
    # seconds, then released (engine/measure/read_view.py); 0: none
    hold_read_view: float = 0.0

    def __post_init__(self):
        # Pairs from a dict, or from JSON's lists (the lab VM's job): one hashable form.
        object.__setattr__(self, "options", tuple(sorted(dict(self.options).items())))

    @property
    def metric(self) -> str:
        return PRIMARY[self.tool]

    @property
    def is_tpcc(self) -> bool:
        return self.tool == TPCC

    @property
    def is_scan(self) -> bool:
        return self.tool == SCAN

    @property
    def timed(self) -> bool:
        """sysbench and tpcc run for a set time; a scan runs until the table is read."""
        return not self.is_scan


@dataclass(frozen=True)
class Sweep:
    setting: str
    values: tuple[str, ...]
    baseline: str
    skipped: tuple = ()   # (value, why): points a server cannot express (plan.without)
    sets: tuple = ()      # a server.defaults sweep's sets of settings (defaults_sets.py)
    read_back: tuple = ()  # and the variables it reads back besides theirs

    def set_settings(self, value: str) -> dict:
        """The settings of a server.defaults sweep's point (none for "today" or another sweep)."""
        return next((dict(s.settings) for s in self.sets if s.name == value), {})

    @property
    def table(self) -> str | None:
        """The lab table a "<table>.<key>" setting sweeps, or None for a server option."""
        name, dot, _ = self.setting.partition(".")
        return name if dot and name in SWEPT_TABLES else None

    @property
    def key(self) -> str:
        """The swept key within its table (the whole setting for a server option)."""
        return self.setting.partition(".")[2] if self.table else self.setting

    @property
    def server_option(self) -> bool:
        return self.table is None


@dataclass(frozen=True)
class Measure:
    warmup: float
    duration: float
    repeats: int
    # The smallest effect worth knowing, in % ([measure] smallest_effect): a ratio whose 90%
    # interval lies within it is "equivalent". None: the recipe names none, the statistics'
    # default applies (results.stats, which this module cannot import: the guest lacks scipy).
    smallest_effect_pct: float | None = None
    design: str = "auto"   # one of DESIGNS
    # Under switchback: the seconds dropped after each switch, before the block's measured
    # `duration` (the server's queues and caches settle on the new setting).
    settle: float = 2.0
    # The stop rule ([measure] precision and budget, --precision, --budget): after the planned
    # repeats, add rounds until every ratio's 95% interval is within ±precision % or the
    # budget (seconds from the result's start) would be overrun. None and None: no stop rule.
    precision_pct: float | None = None
    budget: float | None = None
    # [measure] pin: the server and the load generator on CPUs of their own (engine/server/pinning.py)
    pin: bool = False
    # [measure] drop_caches: a run in the work directory starts with the page cache dropped, as
    # a sandboxed run does (storage.drop_caches); needs root
    drop_caches: bool = False
    # [measure] steady (the default; false: a fixed warm-up): the warm-up (a restart run's, or
    # a switchback's) goes on while the load still trends, up to warmup_bound (engine/measure/steady.py)
    steady: bool = True
    # [measure] whole_machine: why the recipe's claim needs the whole machine, so that no duet
    # (each server on half of it, recipes/duets.py) measures it; "": a duet may
    whole_machine: str = ""

    @property
    def steady_window(self) -> int:
        """The seconds a steady-state check looks at; 0: no check (steady off, or a warm-up
        too short to show a trend)."""
        if not self.steady or self.warmup < MIN_STEADY_WINDOW_S:
            return 0
        return int(min(self.warmup, STEADY_WINDOW_S))

    @property
    def warmup_bound(self) -> int:
        """The most seconds the warm-up may take: the recipe's, and under a steady-state check
        two of its windows more."""
        return int(self.warmup + 2 * self.steady_window)


@dataclass(frozen=True)
class Recipe:
    name: str
    path: Path
    sha256: str
    text: str
    title: str
    question: str
    topic: str
    needs: tuple[str, ...]
    dataset: Dataset
    server_settings: tuple[tuple[str, str], ...]
    workload: Workload
    sweep: Sweep
    measure: Measure
    profiles: dict
    storage: tuple = ()   # (key, value) pairs of [storage]; empty: runs on the work directory
    raid: tuple = ()      # (key, value) pairs of [raid]; empty: no array
    lab: tuple = ()       # (key, value) pairs of [lab]; empty: the default lab VM, if any
    zfs: tuple = ()       # (key, value) pairs of [zfs]; empty: no pool
    variant: str = ""     # "" for the recipe's main experiment, else the [variants.<name>] name
    regime: tuple = ()    # [[regime]] conditions (recipes/regime.py), checked on the runs
    allocator: str = "glibc"  # [server] allocator: the server's malloc
    cpus: int | str = 0       # [server] cpus: how many CPUs the server may run on (0: all),
    #                           or CPU_PLACEMENTS

    @property
    def in_lab_vm(self) -> bool:
        return in_lab_vm(self.raid, self.lab, self.zfs)

    @property
    def label(self) -> str:
        return label(self.name, self.variant)

    def experiment(self, profile="full", repeats=None, duration=None, warmup=None,
                   precision=None, budget=None):
        """The recipe with a profile and command-line overrides applied."""
        if profile not in self.profiles:
            known = ", ".join(sorted(self.profiles))
            raise UserError(f"{self.path}: no profile '{profile}' (profiles: {known})")
        over = dict(self.profiles[profile])
        if not self.workload.timed:  # a variant's scan inherits the timed workload's profile
            over = {k: v for k, v in over.items() if k not in ("warmup", "duration", "threads")}
        for key, value in (("repeats", repeats), ("duration", duration), ("warmup", warmup),
                           ("precision", precision), ("budget", budget)):
            if value is not None and (key in ("repeats", "precision", "budget")
                                      or self.workload.timed):
                over[key] = _command_line_value(key, value)
        if "precision" in over:
            over["precision_pct"] = over.pop("precision")
        measure = dataclasses.replace(
            self.measure, **{k: over[k] for k in ("warmup", "duration", "repeats", "design",
                                                  "settle", "precision_pct", "budget")
                             if k in over})
        dataset = dataclasses.replace(
            self.dataset, **{k: over[k] for k in DATASET_KEYS if k in over})
        workload = dataclasses.replace(self.workload, threads=over.get("threads",
                                                                      self.workload.threads))
        problem = dataset.memory_problem()
        if problem:
            key = "memory_limit" if "memory_limit" in over else "buffer_pool_size"
            where = f"profiles.{profile}.{key}" if key in over else "dataset.memory_limit"
            raise UserError(f"{self.path}: {where}: {problem}")
        if "warehouses" in over and not workload.is_tpcc:
            raise UserError(f"{self.path}: profiles.{profile}.warehouses: only a tpcc workload "
                            "loads warehouses")
        if workload.is_tpcc:
            check_warehouses(Reader(self.path, {}, f"profiles.{profile}"), dataset, workload,
                              self.sweep)
        held_view.check(self, profile, workload, measure)
        return Experiment(self, profile, dataset, workload, self.sweep, measure)


@dataclass(frozen=True)
class Experiment:
    recipe: Recipe
    profile: str
    dataset: Dataset
    workload: Workload
    sweep: Sweep
    measure: Measure

    def settings_for(self, value: str) -> dict:
        """The server settings of one point: base, the data shape's pool, the swept option or
        set of defaults."""
        settings = dict(self.recipe.server_settings)
        settings["innodb_buffer_pool_size"] = self.dataset.buffer_pool_size
        if not self.workload.timed:  # a scan starts cold: no pages reloaded from the last dump
            settings["innodb_buffer_pool_load_at_startup"] = "OFF"
        if self.sweep.server_option:
            settings[self.sweep.setting] = value
        return settings | self.sweep.set_settings(value)

    def allocator_for(self, value: str) -> str:
        """The server's allocator at one point: the swept one, else the recipe's."""
        return value if self.sweep.setting == "server.allocator" else self.recipe.allocator

    def cpus_for(self, value: str) -> int:
        """How many CPUs the server runs on at one point (0: all): swept, else the recipe's."""
        if self.sweep.setting != "server.cpus":
            return self.recipe.cpus
        return value if value in CPU_PLACEMENTS else int(value)

    def workload_for(self, value: str) -> Workload:
        """The workload of one point: a workload.* sweep sets its client threads or one of its
        script's options."""
        if self.sweep.table != "workload":
            return self.workload
        if self.sweep.key == "threads":
            return dataclasses.replace(self.workload, threads=int(value))
        options = {**dict(self.workload.options), self.sweep.key: value}
        return dataclasses.replace(self.workload, options=options)

    def _swept(self, table: tuple, prefix: str, value: str) -> dict:
        """A [storage], [raid], [lab] or [zfs] table with this point's value swept in."""
        out = dict(table)
        if self.sweep.table == prefix:
            out[self.sweep.key] = value
        return out

    def storage_for(self, value: str) -> dict | None:
        """The storage sandbox of one point, or None to run in the work directory."""
        if not self.recipe.storage:
            return None
        storage = self._swept(self.recipe.storage, "storage", value)
        if storage.get("read_ahead_kb") is not None:
            storage["read_ahead_kb"] = int(storage["read_ahead_kb"])
        return storage

    def lab_for(self, value: str) -> dict | None:
        """The lab VM of one point (kernel flavour, mitigations), or None outside the VM."""
        if not self.recipe.in_lab_vm:
            return None
        lab = self._swept(tuple(LAB_DEFAULTS.items()) + self.recipe.lab, "lab", value)
        lab["image"] = image_name(lab["kernel"], lab["kernel_from"], bool(self.recipe.zfs))
        return lab

    def zfs_for(self, value: str) -> dict | None:
        """The ZFS pool of one point (dataset properties as zfs spells them), or None."""
        return self._swept(self.recipe.zfs, "zfs", value) if self.recipe.zfs else None

    def raid_for(self, value: str) -> dict | None:
        """The md array of one point (lab/raid.ArraySpec fields), or None."""
        if not self.recipe.raid:
            return None
        return array_spec(self._swept(self.recipe.raid, "raid", value))


def _command_line_value(key, value):
    reader = Reader(f"--{key}", {key: value})
    reader.fail = lambda _key, expected: _raise(UserError(f"--{key}: {expected}"))
    if key == "repeats":
        return reader.positive_int(key, maximum=MAX_REPEATS)
    if key == "precision":
        return reader.percent(key)
    return reader.duration(key, minimum=1 if key in ("duration", "budget") else 0)


def _raise(error):
    raise error
