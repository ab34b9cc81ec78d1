"""recipes/<name>/recipe.toml -> frozen dataclasses, with errors that name the file and the key.

TOML, not YAML: YAML 1.1 reads MySQL's OFF as a boolean.
"""

import dataclasses
import hashlib
import re
import tomllib
from dataclasses import dataclass
from pathlib import Path

from tuninglab import files, units
from tuninglab.errors import UserError
from tuninglab.recipes.raid import ArraySpec, problems

RECIPES_DIR = files.RECIPES_DIR

# Data shapes: the IO settings only show their effect when the data does not fit in memory.
SHAPES = {
    "cpu-bound": {"tables": 4, "table_size": 50_000, "buffer_pool_size": "256M"},
    "disk-bound": {"tables": 8, "table_size": 200_000, "buffer_pool_size": "64M"},
}
NEEDS = {"root", "md", "zfs", "kvm"}
TOOLS = ("sysbench", "scan", "tpcc")
# The primary metric of each workload tool: the one summarized, compared and charted first.
# tpcc: new-order transactions a minute, the sources' TPM.
METRICS = {"sysbench": "tps", "scan": "mib_per_s", "tpcc": "new_order_tpm"}
SYSBENCH_SCRIPTS = {
    "oltp_read_only", "oltp_read_write", "oltp_write_only", "oltp_update_index",
    "oltp_update_non_index", "oltp_insert", "oltp_delete", "oltp_point_select",
}


def _one_of(*allowed):
    def check(value):
        return None if value in allowed else f"expected one of {', '.join(allowed)}, got {value!r}"
    return check


def _whole_number(value):
    if re.fullmatch(r"[0-9]+", value):
        return None
    return f"expected a whole number >= 0, got {value!r}"


def _commit_every(value):
    """statement (autocommit), N (one COMMIT per N statements) or 1s (one a second)."""
    if value in ("statement", "1s") or re.fullmatch(r"[0-9]+", value) and int(value) >= 1:
        return None
    return f"expected statement, a whole number of statements >= 1 or 1s, got {value!r}"


# The project's own sysbench scripts (workloads/lua/<name>.lua): for each option of
# [workload.options], what says a value is wrong (None if fine), and its default.
PROJECT_SCRIPTS = {
    "insert_batch": {"commit": (_commit_every, "statement"),
                     "key": (_one_of("unique", "primary"), "unique")},
    # The TPC-C-like workload (tool = "tpcc"): active_warehouses N > 0 keeps the transactions'
    # home warehouses to 1..N, the small, CPU-bound shape; 0 uses all the dataset's.
    "tpcc": {"active_warehouses": (_whole_number, "0")},
}

# Options the engine sets itself: a recipe changing them would break the sandbox.
RESERVED_OPTIONS = {
    "datadir", "socket", "pid_file", "port", "skip_networking", "bind_address", "user",
    "log_error", "basedir", "mysqlx", "innodb_buffer_pool_size", "innodb_log_group_home_dir",
}
# The storage under test (needs root): a loop-device sandbox built for every run.
STORAGE_KEYS = {"filesystem", "size", "mount_options", "mkfs_options", "scheduler", "logs",
                "logs_size",
                "read_ahead_kb", "drop_caches"}
STORAGE_SWEEPABLE = {"filesystem", "mount_options", "scheduler", "read_ahead_kb", "logs"}
# Where the redo log lives: in the datadir, or on a second sandbox of its own (logs_size).
LOGS = ("same", "separate")
FILESYSTEMS = ("ext4", "xfs", "btrfs")
# An md RAID array under the filesystem: built natively or in the lab VM (lab/raid.py).
RAID_KEYS = {"level", "chunk", "disks", "member_size", "state"}
RAID_SWEEPABLE = {"level", "chunk", "disks", "state"}
# The lab VM's kernel: a Debian flavour, and CPU vulnerability mitigations as booted.
LAB_KEYS = {"kernel", "mitigations"}
LAB_DEFAULTS = {"kernel": "cloud-amd64", "mitigations": "auto"}
KERNEL_FLAVOURS = ("cloud-amd64", "amd64", "rt-amd64")
MITIGATIONS = ("auto", "off")
LAB_FILESYSTEMS = ("ext4", "xfs")   # the mkfs tools in the lab VM's image
# A ZFS pool on one disk in the lab VM (its image gains OpenZFS): the dataset's properties, the
# ARC's size limit and the disk's size.
ZFS_KEYS = {"recordsize", "compression", "atime", "logbias", "primarycache", "arc_max", "size"}
ZFS_SWEEPABLE = {"recordsize", "compression", "logbias", "primarycache"}
# The lab's tables a sweep may name as "<table>.<key>", with the keys each lets it sweep.
# A workload.* sweep sets an option of the recipe's project script.
SWEPT_TABLES = {"storage": STORAGE_SWEEPABLE, "raid": RAID_SWEEPABLE, "lab": LAB_KEYS,
                "zfs": ZFS_SWEEPABLE,
                "workload": {key for options in PROJECT_SCRIPTS.values() for key in options}}
VARIANT_KEYS = ("title", "question", "dataset", "server", "workload", "sweep", "measure",
                "profiles", "storage", "raid", "lab", "zfs")
PROFILE_KEYS = {"warmup", "duration", "repeats", "threads", "tables", "table_size",
                "buffer_pool_size", "warehouses"}
DATASET_KEYS = ("tables", "table_size", "buffer_pool_size", "warehouses")


@dataclass(frozen=True)
class Dataset:
    shape: str
    tables: int
    table_size: int
    buffer_pool_size: str
    warehouses: int | None = None   # the TPC-C-like scale W (tool = "tpcc"); None otherwise


@dataclass(frozen=True)
class Workload:
    tool: str
    script: str
    threads: int
    options: tuple = ()   # sorted (key, value) pairs of a project script's options

    def __post_init__(self):
        # Pairs from a dict, or from JSON's lists (the lab VM's job): one hashable form.
        object.__setattr__(self, "options", tuple(sorted(dict(self.options).items())))

    @property
    def metric(self) -> str:
        return METRICS[self.tool]

    @property
    def timed(self) -> bool:
        """sysbench and tpcc run for a set time; a scan runs until the table is read."""
        return self.tool != "scan"


@dataclass(frozen=True)
class Sweep:
    setting: str
    values: tuple[str, ...]
    baseline: str

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

    @property
    def in_lab_vm(self) -> bool:
        return bool(self.raid or self.lab or self.zfs)

    @property
    def label(self) -> str:
        return f"{self.name}:{self.variant}" if self.variant else self.name

    def experiment(self, profile="full", repeats=None, duration=None, warmup=None):
        """The recipe with a profile and command-line overrides applied."""
        if profile not in self.profiles:
            known = ", ".join(sorted(self.profiles))
            raise UserError(f"{self.path}: no profile '{profile}' (profiles: {known})")
        over = dict(self.profiles[profile])
        if not self.workload.timed:  # a variant's scan inherits the timed workload's profile
            over = {k: v for k, v in over.items() if k not in ("warmup", "duration", "threads")}
        for key, value in (("repeats", repeats), ("duration", duration), ("warmup", warmup)):
            if value is not None and (key == "repeats" or self.workload.timed):
                over[key] = _command_line_value(key, value)
        measure = dataclasses.replace(
            self.measure, **{k: over[k] for k in ("warmup", "duration", "repeats") if k in over})
        dataset = dataclasses.replace(
            self.dataset, **{k: over[k] for k in DATASET_KEYS if k in over})
        workload = dataclasses.replace(self.workload, threads=over.get("threads",
                                                                      self.workload.threads))
        if "warehouses" in over and workload.tool != "tpcc":
            raise UserError(f"{self.path}: profiles.{profile}.warehouses: only a tpcc workload "
                            "loads warehouses")
        if workload.tool == "tpcc":
            _check_warehouses(_Reader(self.path, {}, f"profiles.{profile}"), dataset, workload,
                              self.sweep)
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
        """The server settings of one point: base, the data shape's pool, the swept option."""
        settings = dict(self.recipe.server_settings)
        settings["innodb_buffer_pool_size"] = self.dataset.buffer_pool_size
        if not self.workload.timed:  # a scan starts cold: no pages reloaded from the last dump
            settings["innodb_buffer_pool_load_at_startup"] = "OFF"
        if self.sweep.server_option:
            settings[self.sweep.setting] = value
        return settings

    def workload_for(self, value: str) -> Workload:
        """The workload of one point: a workload.* sweep sets one of its script's options."""
        if self.sweep.table != "workload":
            return self.workload
        return dataclasses.replace(self.workload,
                                   options={**dict(self.workload.options), self.sweep.key: value})

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
        lab["image"] = lab["kernel"] + ("-zfs" if self.recipe.zfs else "")
        return lab

    def zfs_for(self, value: str) -> dict | None:
        """The ZFS pool of one point (dataset properties as zfs spells them), or None."""
        return self._swept(self.recipe.zfs, "zfs", value) if self.recipe.zfs else None

    def raid_for(self, value: str) -> dict | None:
        """The md array of one point (lab/raid.ArraySpec fields), or None."""
        if not self.recipe.raid:
            return None
        return _array_spec(self._swept(self.recipe.raid, "raid", value))


def _array_spec(raid: dict) -> dict:
    chunk = units.size_bytes(raid["chunk"])
    if chunk % 1024:
        raise ValueError(f"chunk {raid['chunk']!r} is not a whole number of KiB")
    return {"level": str(raid["level"]), "chunk_kib": chunk // 1024,
            "disks": int(raid["disks"]), "member_size": str(raid["member_size"]),
            "state": str(raid["state"])}


def _command_line_value(key, value):
    reader = _Reader(f"--{key}", {key: value})
    reader.fail = lambda _key, expected: _raise(f"--{key}: {expected}")
    if key == "repeats":
        return reader.positive_int(key)
    return reader.duration(key, minimum=1 if key == "duration" else 0)


def _raise(message):
    raise UserError(message)


def recipe_path(name: str, recipes_dir: Path = RECIPES_DIR) -> Path:
    path = Path(recipes_dir) / name / "recipe.toml"
    if not path.is_file():
        known = ", ".join(list_names(recipes_dir)) or "none"
        raise UserError(f"no recipe '{name}': {path} does not exist (recipes: {known})")
    return path


def list_names(recipes_dir: Path = RECIPES_DIR) -> list[str]:
    return sorted(p.parent.name for p in Path(recipes_dir).glob("*/recipe.toml"))


def load(name_or_path, recipes_dir: Path = RECIPES_DIR, variant: str = "") -> Recipe:
    """The recipe's main experiment, or one of its variants."""
    every = load_all(name_or_path, recipes_dir)
    for recipe in every:
        if recipe.variant == variant:
            return recipe
    known = ", ".join(r.variant for r in every if r.variant)
    raise UserError(f"recipe {name_or_path} has no variant {variant!r} "
                    f"(variants: {known or 'none'})")


def load_all(name_or_path, recipes_dir: Path = RECIPES_DIR) -> list[Recipe]:
    """The main experiment, then each [variants.<name>]: the same question asked with another
    workload or storage, each run and saved as an experiment of its own."""
    path = Path(name_or_path)
    if not path.suffix == ".toml":
        path = recipe_path(str(name_or_path), recipes_dir)
    raw = path.read_bytes()
    try:
        data = tomllib.loads(raw.decode("utf-8"))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise UserError(f"{path}: not valid TOML: {exc}") from None
    variants = _Reader(path, data).table("variants", required=False)
    main = {k: v for k, v in data.items() if k != "variants"}
    out = [_build(main, path, raw)]
    for name in variants.data:
        if not re.fullmatch(r"[a-z0-9][a-z0-9-]{0,30}", name):
            variants.fail(name, "expected a variant name of lower-case letters, digits and dashes")
        table = variants.table(name)
        table.only(*VARIANT_KEYS)
        out.append(_build(_merged(main, table.data), path, raw, variant=name))
    return out


def _merged(base: dict, over: dict, whole=("workload",)) -> dict:
    """base with over's keys replaced; tables merge key by key, except a workload (a scan
    shares no keys with sysbench) and arrays, which are replaced whole."""
    out = dict(base)
    for key, value in over.items():
        if isinstance(value, dict) and isinstance(base.get(key), dict) and key not in whole:
            out[key] = _merged(base[key], value, whole=())
        else:
            out[key] = value
    return out


class _Reader:
    """Reads one TOML table, remembering where it is for the error messages."""

    def __init__(self, path, data, where=""):
        self.path, self.data, self.where = path, data, where
        if not isinstance(data, dict):
            self.fail("", f"expected a table, got {_kind(data)}")

    def fail(self, key, expected):
        name = ".".join(k for k in (self.where, key) if k) or "top level"
        raise UserError(f"{self.path}: {name}: {expected}")

    def only(self, *allowed):
        for key in self.data:
            if key not in allowed:
                self.fail(key, f"unknown key (expected one of: {', '.join(allowed)})")

    def get(self, key, kind, default=dataclasses.MISSING):
        if key not in self.data:
            if default is dataclasses.MISSING:
                self.fail(key, f"missing (expected {_kind_name(kind)})")
            return default
        value = self.data[key]
        if kind is int and isinstance(value, bool) or not isinstance(value, kind):
            self.fail(key, f"expected {_kind_name(kind)}, got {_kind(value)} {value!r}")
        return value

    def table(self, key, required=True):
        if key not in self.data and not required:
            return _Reader(self.path, {}, self._sub(key))
        return _Reader(self.path, self.get(key, dict), self._sub(key))

    def positive_int(self, key, default=dataclasses.MISSING):
        value = self.get(key, int, default)
        if value is not None and value < 1:
            self.fail(key, f"expected a whole number >= 1, got {value}")
        return value

    def duration(self, key, default=dataclasses.MISSING, minimum=0.0):
        """Whole seconds, as sysbench counts them: 0 (none) or at least 1s."""
        value = self.get(key, (str, int, float), default)
        try:
            seconds = units.seconds(value)
        except ValueError as exc:
            self.fail(key, str(exc))
        if seconds < max(minimum, 1) and (seconds != 0 or minimum > 0):
            self.fail(key, f"expected {'at least 1s' if minimum else '0 or at least 1s'}, "
                           f"got {value!r}")
        return float(round(seconds))

    def size(self, key, default=dataclasses.MISSING):
        value = self.get(key, (str, int), default)
        try:
            units.size_bytes(value)
        except ValueError as exc:
            self.fail(key, str(exc))
        return str(value)

    def _sub(self, key):
        return f"{self.where}.{key}" if self.where else key


def _kind_name(kind) -> str:
    kinds = kind if isinstance(kind, tuple) else (kind,)
    return " or ".join(k.__name__ for k in kinds)


def _kind(value):
    return {dict: "a table", list: "an array", str: "a string", bool: "a boolean",
            int: "an integer", float: "a number"}.get(type(value), type(value).__name__)


def option_name(name: str) -> str:
    """MySQL accepts dashes and underscores alike; keep one spelling."""
    return name.strip().replace("-", "_").lower()


def option_value(value) -> str:
    if isinstance(value, bool):
        return "ON" if value else "OFF"
    if isinstance(value, (int, float, str)):
        return str(value)
    raise ValueError(f"expected a string, number or boolean, got {_kind(value)}")


def _build(data, path, raw, variant="") -> Recipe:
    top = _Reader(path, data, f"variants.{variant}" if variant else "")
    top.only("title", "question", "topic", "needs", "dataset", "server", "workload", "sweep",
             "measure", "profiles", "storage", "raid", "lab", "zfs")
    needs = top.get("needs", list, [])
    for need in needs:
        if not isinstance(need, str) or need not in NEEDS:
            top.fail("needs", f"unknown need {need!r} (expected some of: {', '.join(sorted(NEEDS))})")
    storage = _storage(top.table("storage", required=False))
    raid_table = top.table("raid", required=False)
    raid = _raid(raid_table)
    lab = _lab(top.table("lab")) if "lab" in top.data else ()
    zfs = _zfs(top.table("zfs")) if "zfs" in top.data else ()
    if zfs and (storage or raid):
        top.fail("zfs", "a ZFS pool is the storage itself: drop [storage] and [raid]")
    if zfs:
        storage = (("filesystem", "zfs"), ("size", dict(zfs)["size"]))
    elif (raid or lab) and not storage:
        storage = _storage(_Reader(path, {"filesystem": "ext4"}, "storage"))
    sweep = top.table("sweep")
    parsed_sweep = _sweep(sweep)
    swept = parsed_sweep.table
    tables = {"storage": storage, "raid": raid, "lab": lab, "zfs": zfs}
    if swept in tables and not tables[swept]:
        sweep.fail("setting", f"a {swept}.* sweep needs a [{swept}] table")
    if storage and "root" not in needs:
        needs = list(needs) + ["root"]  # loop devices, mkfs and mount
    workload = _workload(top.table("workload"))
    if swept == "workload":
        _check_workload_values(parsed_sweep, workload, sweep)
    if raid:
        _check_arrays(raid, parsed_sweep, raid_table, sweep)
    if swept == "lab":
        _check_lab_values(parsed_sweep, sweep)
    if swept == "zfs":
        _check_zfs_values(parsed_sweep, sweep)
    if parsed_sweep.setting == "storage.logs":
        for value in parsed_sweep.values:
            if value not in LOGS:
                sweep.fail("values", f"{value!r}: expected one of {', '.join(LOGS)}")
    if (raid or lab or zfs) and not workload.timed:
        top.fail("workload.tool", "recipes in the lab VM measure sysbench workloads")
    if (raid or lab or zfs) and (dict(storage).get("logs") == "separate"
                                 or parsed_sweep.setting == "storage.logs"):
        top.fail("storage.logs", "the lab VM keeps the redo log in the datadir")
    if (raid or lab) and not zfs and dict(storage)["filesystem"] not in LAB_FILESYSTEMS:
        top.fail("storage.filesystem", f"the lab VM's image makes {' or '.join(LAB_FILESYSTEMS)}")
    dataset = _dataset(top.table("dataset"))
    _check_warehouses(top, dataset, workload, parsed_sweep)
    if not workload.timed and not storage:
        top.fail("workload.tool", "a scan needs a [storage] table: its sandbox lets the page "
                                  "cache be dropped before each scan")
    return Recipe(
        name=path.parent.name, path=path, sha256=hashlib.sha256(raw).hexdigest(),
        text=raw.decode("utf-8"), title=top.get("title", str), question=top.get("question", str),
        topic=top.get("topic", str, path.parent.name), needs=tuple(needs),
        dataset=dataset, server_settings=_settings(top.table("server", False)),
        workload=workload, sweep=parsed_sweep,
        measure=_measure(top.table("measure"), workload.timed),
        profiles=_profiles(top.table("profiles", False)), storage=storage, raid=raid, lab=lab,
        zfs=zfs, variant=variant)


def _check_warehouses(top: _Reader, dataset: Dataset, workload: Workload, sweep: Sweep):
    """A tpcc workload's scale is [dataset] warehouses; no other workload has one."""
    if workload.tool != "tpcc":
        if dataset.warehouses is not None:
            top.fail("dataset.warehouses", 'only a tpcc workload loads warehouses (tool = "tpcc")')
        return
    if dataset.warehouses is None:
        top.fail("dataset.warehouses", "a tpcc workload needs its scale: the number of "
                                       "warehouses to load, a whole number >= 1")
    actives = [dict(workload.options)["active_warehouses"]]
    if sweep.setting == "workload.active_warehouses":
        actives += sweep.values
    for value in actives:
        if int(value) > dataset.warehouses:
            top.fail("workload.options.active_warehouses",
                     f"{value} is more than the {dataset.warehouses} warehouses loaded")


def _dataset(t: _Reader) -> Dataset:
    t.only("shape", "tables", "table_size", "buffer_pool_size", "warehouses")
    shape = t.get("shape", str)
    if shape not in SHAPES:
        t.fail("shape", f"expected one of {', '.join(SHAPES)}, got {shape!r}")
    default = SHAPES[shape]
    return Dataset(shape, t.positive_int("tables", default["tables"]),
                   t.positive_int("table_size", default["table_size"]),
                   t.size("buffer_pool_size", default["buffer_pool_size"]),
                   t.positive_int("warehouses", None))


def _settings(t: _Reader):
    t.only("settings")
    settings = t.table("settings", required=False)
    out = {}
    for key, value in settings.data.items():
        name = option_name(key)
        if name in out:
            settings.fail(key, f"'{name}' is given twice (dashes and underscores are the same)")
        if name in RESERVED_OPTIONS:
            settings.fail(key, "set by the engine itself (the data shape sets the buffer pool)")
        try:
            out[name] = option_value(value)
        except ValueError as exc:
            settings.fail(key, str(exc))
    return tuple(sorted(out.items()))


def _workload(t: _Reader) -> Workload:
    tool = t.get("tool", str, "sysbench")
    if tool not in TOOLS:
        t.fail("tool", f"expected one of {', '.join(TOOLS)}, got {tool!r}")
    if tool == "scan":  # one full scan of every table, one query at a time, as in 2008
        t.only("tool")
        return Workload(tool, "full-scan", 1)
    if tool == "tpcc":  # the project's TPC-C-like script, its scale in [dataset] warehouses
        t.only("tool", "threads", "options")
        return Workload(tool, "tpcc", t.positive_int("threads", 4),
                        _script_options("tpcc", t.table("options", required=False)))
    t.only("tool", "script", "threads", "options")
    script = t.get("script", str)
    if script == "tpcc":
        t.fail("script", 'the TPC-C-like workload is its own tool: tool = "tpcc", no script')
    if script not in SYSBENCH_SCRIPTS and script not in PROJECT_SCRIPTS:
        known = sorted(SYSBENCH_SCRIPTS) + sorted(PROJECT_SCRIPTS)
        t.fail("script", f"expected one of {', '.join(known)}, got {script!r}")
    return Workload(tool, script, t.positive_int("threads", 4),
                    _script_options(script, t.table("options", required=False)))


def _script_options(script: str, t: _Reader) -> dict:
    """A project script's options, checked, with the defaults filled in (so every result
    names them all); sysbench's own scripts take none."""
    allowed = PROJECT_SCRIPTS.get(script, {})
    if t.data and not allowed:
        t.fail("", f"the sysbench script {script} takes no options")
    t.only(*sorted(allowed))
    out = {}
    for key, (check, default) in allowed.items():
        try:
            out[key] = option_value(t.data.get(key, default))
        except ValueError as exc:
            t.fail(key, str(exc))
        problem = check(out[key])
        if problem:
            t.fail(key, problem)
    return out


def _check_workload_values(sweep: Sweep, workload: Workload, sweep_table: _Reader) -> None:
    allowed = PROJECT_SCRIPTS.get(workload.script, {})
    if sweep.key not in allowed:
        sweep_table.fail("setting", f"{sweep.setting}: the workload's script {workload.script} "
                                    f"has no option {sweep.key!r}")
    for value in sweep.values:
        problem = allowed[sweep.key][0](value)
        if problem:
            sweep_table.fail("values", f"{value!r}: {problem}")


def _storage(t: _Reader) -> tuple:
    if not t.data:
        return ()
    t.only(*sorted(STORAGE_KEYS))
    out = {"filesystem": t.get("filesystem", str, "ext4"), "size": t.size("size", "2G"),
           "mount_options": t.get("mount_options", str, ""),
           "mkfs_options": tuple(t.get("mkfs_options", list, [])),
           "scheduler": t.get("scheduler", str, None),
           "read_ahead_kb": t.get("read_ahead_kb", int, None),
           "drop_caches": t.get("drop_caches", bool, True),
           "logs": t.get("logs", str, "same"), "logs_size": t.size("logs_size", "1G")}
    if out["logs"] not in LOGS:
        t.fail("logs", f"expected one of {', '.join(LOGS)}, got {out['logs']!r}")
    if out["filesystem"] not in FILESYSTEMS:
        t.fail("filesystem", f"expected one of {', '.join(FILESYSTEMS)}, got {out['filesystem']!r}")
    if not all(isinstance(o, str) for o in out["mkfs_options"]):
        t.fail("mkfs_options", "expected an array of strings")
    return tuple(out.items())


def _raid(t: _Reader) -> tuple:
    if not t.data:
        return ()
    t.only(*sorted(RAID_KEYS))
    level = t.get("level", (str, int))
    return (("level", str(level)), ("chunk", t.size("chunk", "64K")),
            ("disks", t.positive_int("disks", 4)), ("member_size", t.size("member_size", "1G")),
            ("state", t.get("state", str, "normal")))


def _lab(t: _Reader) -> tuple:
    t.only(*sorted(LAB_KEYS))
    out = tuple((key, t.get(key, str, default)) for key, default in LAB_DEFAULTS.items())
    for (key, value), allowed in zip(out, (KERNEL_FLAVOURS, MITIGATIONS)):
        if value not in allowed:
            t.fail(key, f"expected one of {', '.join(allowed)}, got {value!r}")
    return out


def _zfs(t: _Reader) -> tuple:
    t.only(*sorted(ZFS_KEYS))
    out = {"recordsize": t.size("recordsize", "128K"), "compression": t.get("compression", str, "off"),
           "atime": t.get("atime", str, "on"), "logbias": t.get("logbias", str, "latency"),
           "primarycache": t.get("primarycache", str, "all"),
           "arc_max": t.size("arc_max", "256M"), "size": t.size("size", "2G")}
    problem = _zfs_problem("recordsize", out["recordsize"])
    if problem:
        t.fail("recordsize", problem)
    return tuple(out.items())


def _zfs_problem(key: str, value: str) -> str | None:
    """ZFS takes a record size that is a power of two from 4K (with ashift=12) to 1M."""
    if key != "recordsize":
        return None
    size = units.size_bytes(value)
    if size < 4096 or size > 2**20 or size & (size - 1):
        return f"expected a power of two from 4K to 1M, got {value!r}"
    return None


def _check_zfs_values(sweep: Sweep, sweep_table: _Reader) -> None:
    for value in sweep.values:
        try:
            problem = _zfs_problem(sweep.key, value)
        except ValueError as exc:
            problem = str(exc)
        if problem:
            sweep_table.fail("values", f"{value!r}: {problem}")


def _check_lab_values(sweep: Sweep, sweep_table: _Reader) -> None:
    allowed = {"kernel": KERNEL_FLAVOURS, "mitigations": MITIGATIONS}[sweep.key]
    for value in sweep.values:
        if value not in allowed:
            sweep_table.fail("values", f"{value!r}: expected one of {', '.join(allowed)}")


def _check_arrays(raid: tuple, sweep: Sweep, raid_table: _Reader, sweep_table: _Reader) -> None:
    """Every point's array must be one md can build: the error names the key to fix."""
    swept = sweep.key if sweep.table == "raid" else None
    for value in sweep.values:
        try:
            spec = _array_spec(dict(raid, **({swept: value} if swept else {})))
        except ValueError as exc:
            sweep_table.fail("values", f"{value!r}: {exc}")
        for key, problem in problems(ArraySpec(**spec)):
            if key == swept:
                sweep_table.fail("values", f"{value!r}: {problem}")
            raid_table.fail(key, problem + (f" (at {sweep.setting} = {value})" if swept else ""))


def _sweep(t: _Reader) -> Sweep:
    t.only("setting", "values", "baseline")
    raw = t.get("setting", str).strip()
    table, dot, key = raw.partition(".")
    lab_table = bool(dot) and table in SWEPT_TABLES
    setting = raw if lab_table else option_name(raw)
    if lab_table and key not in SWEPT_TABLES[table]:
        t.fail("setting", f"expected {table}.{{{', '.join(sorted(SWEPT_TABLES[table]))}}}, "
                          f"got {setting!r}")
    if setting in RESERVED_OPTIONS:
        t.fail("setting", f"'{setting}' is set by the engine itself and cannot be swept")
    values = []
    for value in t.get("values", list):
        try:
            values.append(option_value(value))
        except ValueError as exc:
            t.fail("values", str(exc))
    if len(values) < 1 or len(set(values)) != len(values):
        t.fail("values", f"expected one or more distinct values, got {values}")
    baseline = option_value(t.get("baseline", (str, int, bool), values[0]))
    if baseline not in values:
        t.fail("baseline", f"expected one of the values {values}, got {baseline!r}")
    return Sweep(setting, tuple(values), baseline)


def _measure(t: _Reader, timed: bool) -> Measure:
    t.only("warmup", "duration", "repeats")
    if not timed:  # a scan is timed from its first row to its last: no warm-up, no duration
        return Measure(0.0, 0.0, t.positive_int("repeats", 5))
    return Measure(t.duration("warmup", 0), t.duration("duration", minimum=1),
                   t.positive_int("repeats", 5))


def _profiles(t: _Reader) -> dict:
    profiles = {"full": {}}
    for name in t.data:
        p = t.table(name)
        p.only(*sorted(PROFILE_KEYS))
        over = {}
        for key in p.data:
            if key in ("warmup", "duration"):
                over[key] = p.duration(key, minimum=1 if key == "duration" else 0)
            elif key == "buffer_pool_size":
                over[key] = p.size(key)
            else:
                over[key] = p.positive_int(key)
        profiles[name] = over
    return profiles
