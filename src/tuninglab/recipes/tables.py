"""One parser per TOML table of a recipe ([dataset], [server], [workload], [storage], [raid],
[zfs], [sweep], [measure], [profiles]; [lab] in lab.py), each taking the table's Reader and
returning its part of the Recipe, and the checks of a sweep's values against the table it
sweeps, which rules.py applies with the other checks across tables.
"""

from tuninglab import units
from tuninglab.recipes.filesystems import FILESYSTEMS
from tuninglab.recipes.model import (
    ALLOCATORS,
    CPU_PLACEMENTS,
    DESIGNS,
    LOGS,
    MAX_CPUS,
    MAX_REPEATS,
    MAX_THREADS,
    PLAIN_NAME,
    PROFILE_KEYS,
    PROFILE_MAXIMUM,
    PROJECT_SCRIPTS,
    RAID_KEYS,
    RESERVED_OPTIONS,
    SHAPES,
    STORAGE_KEYS,
    SWEPT_TABLES,
    SYSBENCH_SCRIPTS,
    ZFS_KEYS,
    Dataset,
    Measure,
    Sweep,
    Workload,
)
from tuninglab.results.metrics import SCAN, SYSBENCH, TOOLS, TPCC
from tuninglab.recipes.raid import ArraySpec, array_spec, problems
from tuninglab.recipes.reader import Reader, option_name, option_value
from tuninglab.recipes.server_values import name_problem, value_problem
from tuninglab.recipes.scripts import TPCC_SCRIPT


def parse_dataset(t: Reader) -> Dataset:
    t.only("shape", "tables", "table_size", "buffer_pool_size", "memory_limit", "warehouses",
           "read_seconds")
    shape = t.get("shape", str)
    if shape not in SHAPES:
        t.fail("shape", f"expected one of {', '.join(SHAPES)}, got {shape!r}")
    default = SHAPES[shape]
    dataset = Dataset(shape, t.positive_int("tables", default["tables"]),
                      t.positive_int("table_size", default["table_size"]),
                      t.size("buffer_pool_size", default["buffer_pool_size"]),
                      t.positive_int("warehouses", None),
                      parse_memory_limit(t, "memory_limit", default["memory_limit"]),
                      t.duration("read_seconds", minimum=1) if "read_seconds" in t.data else None)
    problem = dataset.memory_problem()
    if problem:
        t.fail("memory_limit", problem)
    return dataset


def parse_memory_limit(t: Reader, key: str, default):
    """A size, or "none": the server's memory left uncapped."""
    if t.data.get(key) == "none":
        return None
    return t.size(key, default) if key in t.data or default else None


def parse_allocator(t: Reader) -> str:
    """[server] allocator: the server's malloc (glibc's own, or one preloaded)."""
    value = t.get("allocator", str, "glibc")
    if value not in ALLOCATORS:
        t.fail("allocator", f"expected one of {', '.join(ALLOCATORS)}, got {value!r}")
    return value


def parse_server_cpus(t: Reader) -> int | str:
    """[server] cpus: the server held to that many CPUs (0, the default: all of them), or to
    two placed by SMT ("siblings" or "cores")."""
    if t.data.get("cpus") in CPU_PLACEMENTS:
        return t.data["cpus"]
    return t.positive_int("cpus", 0, MAX_CPUS) if "cpus" in t.data else 0


def check_server_values(sweep: Sweep, sweep_table: Reader) -> None:
    """server.allocator: a known allocator; server.cpus: a number of CPUs."""
    for value in sweep.values:
        if sweep.key == "allocator" and value not in ALLOCATORS:
            sweep_table.fail("values", f"{value!r}: expected one of {', '.join(ALLOCATORS)}")
    placements = [v for v in sweep.values if v in CPU_PLACEMENTS]
    if sweep.key == "cpus" and placements and len(placements) < len(sweep.values):
        sweep_table.fail("values", f"expected numbers of CPUs or SMT placements "
                                   f"({', '.join(CPU_PLACEMENTS)}), not both")
    if sweep.key == "cpus" and not placements:
        _check_counts(sweep, sweep_table, "CPUs", MAX_CPUS)


def _check_counts(sweep: Sweep, sweep_table: Reader, what: str, maximum: int) -> None:
    """A sweep of counts (client threads, CPUs): whole numbers from 1 to maximum."""
    for value in sweep.values:
        number = units.whole_number(value)
        if number is None or not 1 <= number <= maximum:
            sweep_table.fail("values", f"{value!r}: expected a whole number of {what} from 1 "
                                       f"to {maximum}")


def parse_settings(t: Reader):
    t.only("settings", "allocator", "cpus")
    settings = t.table("settings", required=False)
    out = {}
    for key, value in settings.data.items():
        try:
            name = option_name(key)
        except ValueError as exc:
            settings.fail(key or '""', str(exc))  # "": TOML's spelling of an empty key
        if name in out:
            settings.fail(key, f"'{name}' is given twice (dashes and underscores are the same)")
        if name in RESERVED_OPTIONS:
            settings.fail(key, "set by the engine itself (the data shape sets the buffer pool)")
        if name_problem(name):
            settings.fail(key, name_problem(name))
        try:
            out[name] = option_value(value)
        except ValueError as exc:
            settings.fail(key, str(exc))
        if value_problem(name, out[name]):
            settings.fail(key, value_problem(name, out[name]))
    return tuple(sorted(out.items()))


def parse_workload(t: Reader) -> Workload:
    tool = t.get("tool", str, SYSBENCH)
    if tool not in TOOLS:
        t.fail("tool", f"expected one of {', '.join(TOOLS)}, got {tool!r}")
    if tool == SCAN:  # one full scan of every table, one query at a time, as in 2008
        t.only("tool")
        return Workload(tool, "full-scan", 1)
    if tool == TPCC:  # the project's TPC-C-like script, its scale in [dataset] warehouses
        t.only("tool", "threads", "options", "hold_read_view")
        return Workload(tool, TPCC_SCRIPT, t.positive_int("threads", 4, MAX_THREADS),
                        _script_options(TPCC_SCRIPT, t.table("options", required=False)),
                        parse_hold_read_view(t))
    t.only("tool", "script", "threads", "options", "hold_read_view")
    script = t.get("script", str)
    if script == TPCC_SCRIPT:
        t.fail("script", 'the TPC-C-like workload is its own tool: tool = "tpcc", no script')
    if script not in SYSBENCH_SCRIPTS and script not in PROJECT_SCRIPTS:
        known = sorted(SYSBENCH_SCRIPTS) + sorted(PROJECT_SCRIPTS)
        t.fail("script", f"expected one of {', '.join(known)}, got {script!r}")
    return Workload(tool, script, t.positive_int("threads", 4, MAX_THREADS),
                    _script_options(script, t.table("options", required=False)),
                    parse_hold_read_view(t))


def parse_hold_read_view(t: Reader) -> float:
    """[workload] hold_read_view: how long a read view is held from the measured phase's start
    (a duration such as "30s"; engine/measure/read_view.py), so that the history list grows
    whatever purge can do, and then released; absent: no view held."""
    if "hold_read_view" not in t.data:
        return 0.0
    return t.duration("hold_read_view", minimum=1)


def _script_options(script: str, t: Reader) -> dict:
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


def check_workload_values(sweep: Sweep, workload: Workload, sweep_table: Reader) -> None:
    if sweep.key == "threads":
        return check_thread_counts(sweep, workload, sweep_table)
    allowed = PROJECT_SCRIPTS.get(workload.script, {})
    if sweep.key not in allowed:
        sweep_table.fail("setting", f"{sweep.setting}: the workload's script {workload.script} "
                                    f"has no option {sweep.key!r}")
    for value in sweep.values:
        problem = allowed[sweep.key][0](value)
        if problem:
            sweep_table.fail("values", f"{value!r}: {problem}")


def check_thread_counts(sweep: Sweep, workload: Workload, sweep_table: Reader) -> None:
    """workload.threads: whole numbers of client threads, for a workload timed in seconds."""
    if not workload.timed:
        sweep_table.fail("setting", "workload.threads: a scan runs its statements one at a "
                                    "time; expected a timed workload (sysbench or tpcc)")
    _check_counts(sweep, sweep_table, "client threads", MAX_THREADS)


def parse_storage(t: Reader) -> tuple:
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
        t.fail("filesystem", f"expected one of {', '.join(FILESYSTEMS)}, "
                             f"got {out['filesystem']!r}")
    if not all(isinstance(o, str) for o in out["mkfs_options"]):
        t.fail("mkfs_options", "expected an array of strings")
    return tuple(out.items())


def parse_raid(t: Reader) -> tuple:
    if not t.data:
        return ()
    t.only(*sorted(RAID_KEYS))
    level = t.get("level", (str, int))
    return (("level", str(level)), ("chunk", t.size("chunk", "64K")),
            ("disks", t.positive_int("disks", 4)), ("member_size", t.size("member_size", "1G")),
            ("state", t.get("state", str, "normal")), ("layout", t.get("layout", str, "n2")))


def parse_zfs(t: Reader) -> tuple:
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


def check_zfs_values(sweep: Sweep, sweep_table: Reader) -> None:
    for value in sweep.values:
        try:
            problem = _zfs_problem(sweep.key, value)
        except ValueError as exc:
            problem = str(exc)
        if problem:
            sweep_table.fail("values", f"{value!r}: {problem}")


def check_arrays(raid: tuple, sweep: Sweep, raid_table: Reader, sweep_table: Reader) -> None:
    """Every point's array must be one md can build: the error names the key to fix."""
    swept = sweep.key if sweep.table == "raid" else None
    for value in sweep.values:
        try:
            spec = array_spec(dict(raid, **({swept: value} if swept else {})))
        except ValueError as exc:
            sweep_table.fail("values", f"{value!r}: {exc}")
        for key, problem in problems(ArraySpec(**spec)):
            if key == swept:
                sweep_table.fail("values", f"{value!r}: {problem}")
            raid_table.fail(key, problem + (f" (at {sweep.setting} = {value})" if swept else ""))


def parse_sweep(t: Reader) -> Sweep:
    t.only("setting", "values", "baseline")
    raw = t.get("setting", str).strip(" ")
    table, dot, key = raw.partition(".")
    lab_table = bool(dot) and table in SWEPT_TABLES
    try:
        setting = raw if lab_table else option_name(raw)
    except ValueError as exc:
        t.fail("setting", str(exc))
    if lab_table and key not in SWEPT_TABLES[table]:
        t.fail("setting", f"expected {table}.{{{', '.join(sorted(SWEPT_TABLES[table]))}}}, "
                          f"got {setting!r}")
    if setting in RESERVED_OPTIONS:
        t.fail("setting", f"'{setting}' is set by the engine itself and cannot be swept")
    if not lab_table and name_problem(setting):
        t.fail("setting", f"'{setting}' {name_problem(setting)}")
    values = []
    for value in t.get("values", list):
        try:
            values.append(option_value(value))
        except ValueError as exc:
            t.fail("values", str(exc))
    for value in values if not lab_table else ():
        if value_problem(setting, value):
            t.fail("values", value_problem(setting, value))
    if len(values) < 1 or len(set(values)) != len(values):
        t.fail("values", f"expected one or more distinct values, got {values}")
    try:
        baseline = option_value(t.get("baseline", (str, int, bool), values[0]))
    except ValueError as exc:
        t.fail("baseline", str(exc))
    if baseline not in values:
        t.fail("baseline", f"expected one of the values {values}, got {baseline!r}")
    return Sweep(setting, tuple(values), baseline)


def parse_measure(t: Reader, timed: bool) -> Measure:
    t.only("warmup", "duration", "repeats", "smallest_effect", "design", "settle", "precision",
           "budget", "pin", "drop_caches", "steady", "whole_machine")
    repeats = t.positive_int("repeats", 5, MAX_REPEATS)
    smallest_effect = t.percent("smallest_effect", None)
    design = parse_design(t, "auto")
    settle = t.duration("settle", 2)
    rule = {"precision_pct": t.percent("precision", None),
            "budget": t.duration("budget", minimum=1) if "budget" in t.data else None,
            **{key: t.get(key, bool, False) for key in ("pin", "drop_caches")},
            "steady": t.get("steady", bool, True), "whole_machine": _whole_machine(t)}
    if not timed:  # a scan is timed from its first row to its last: no warm-up, no duration
        return Measure(0.0, 0.0, repeats, smallest_effect, design, settle, **rule)
    return Measure(t.duration("warmup", 0), t.duration("duration", minimum=1), repeats,
                   smallest_effect, design, settle, **rule)


def _whole_machine(t: Reader) -> str:
    """[measure] whole_machine: why the claim needs the whole machine (a duet would halve it)."""
    why = t.get("whole_machine", str, "").strip()
    if "whole_machine" in t.data and not why:
        t.fail("whole_machine", "expected why the recipe's claim needs the whole machine, "
                                "as text (it keeps a duet from measuring it)")
    return why


def parse_design(t: Reader, default):
    design = t.get("design", str, default)
    if design is not None and design not in DESIGNS:
        t.fail("design", f"expected one of {', '.join(repr(d) for d in DESIGNS)}, got {design!r}")
    return design


def parse_profiles(t: Reader) -> dict:
    profiles = {"full": {}}
    for name in t.data:
        # The profile goes into the result file's name: nothing that could make it a path.
        if not PLAIN_NAME.fullmatch(name):
            t.fail(name, "expected a profile name of lower-case letters, digits and dashes "
                         "(at most 31)")
        p = t.table(name)
        p.only(*sorted(PROFILE_KEYS))
        over = {}
        for key in p.data:
            if key in ("warmup", "duration", "settle", "budget"):
                over[key] = p.duration(key, minimum=1 if key in ("duration", "budget") else 0)
            elif key == "precision":
                over[key] = p.percent(key)
            elif key == "design":
                over[key] = parse_design(p, None)
            elif key == "buffer_pool_size":
                over[key] = p.size(key)
            elif key == "memory_limit":
                over[key] = parse_memory_limit(p, key, None)
            else:
                over[key] = p.positive_int(key, maximum=PROFILE_MAXIMUM.get(key))
        profiles[name] = over
    return profiles
