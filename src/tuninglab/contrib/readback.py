"""data.check's rules on what each run of a result read back and measured (contrib/experiment.py
holds the file to its recipe's plan): the settings the server took (`effective`, as
engine/run/repeat.py and switchback.py read them after the start or the switch) and the storage,
array, lab VM, allocator and clients a run records are its point's (read_back: the array's level,
layout and state as mdadm reports them, the guest's swap, the booted kernel's source, the mount
options in force, the redo log's own sandbox, the server's COMMITs); a summary's throughput is
that of its per-second series; a switchback's blocks lie where its settle and measured seconds
put them, in its one per-second series."""

import statistics

from tuninglab import units
from tuninglab.contrib.design import records_fallback as records_read_back
from tuninglab.contrib.jsonpaths import at, is_number, runs
from tuninglab.contrib.values import bound_of
from tuninglab.results.result import Result

# Where a run records what it ran with, for a sweep of something else than a server option
# (the engine reads each back: sysfs, mdadm, the guest, sysbench's report, the allocator).
READ_BACK = {
    "storage.scheduler": ("storage", "scheduler"),
    "storage.read_ahead_kb": ("storage", "read_ahead_kb"),
    "storage.filesystem": ("storage", "filesystem"),
    "workload.threads": ("summary", "clients"),
    "server.allocator": ("allocator", "name"),
    "lab.kernel": ("lab", "kernel_flavour"),
    "lab.mitigations": ("lab", "mitigations"),
    "lab.pti": ("lab", "pti"),
    "lab.topology": ("lab", "topology"),
    "lab.disk_cache": ("lab", "disk_cache"),
    "lab.swappiness": ("lab", "swappiness"),
    "raid.disks": ("raid", "raid_disks"),
    "raid.chunk": ("raid", "chunk_bytes"),
    "zfs.recordsize": ("storage", "zfs", "recordsize"),
}
# A summary's throughput against the mean of its per-second series. They differ by design:
# a restart run's summary is sysbench's own total over its whole time (transactions / total
# time, the last partial second included), the series its whole seconds, some of them missing
# (a report that came late); the TPC-C-like workload's per-second new orders are counted in
# whole transactions (60 tpm steps at 1 a second). Over the 1,314 committed runs (1,230 tps and
# 156 new-order figures) the largest gap, as measured here, is 5.1% (a TPC-C-like run of 15 s
# in the lab VM at 444 tpm; 4.2% for sysbench's tps, a run of 7 reported seconds) and the
# median 0.01%; 15%, about three times the largest, leaves a slower host's shorter run room
# and still refuses a summary halved or doubled (a 50% gap).
# A run of a few seconds (--duration 3s) is another matter: one late report of its n seconds
# moves their mean by up to about 1/n, so the tolerance is never below 1/n.
# A switchback block's summary is the mean of its seconds: within rounding.
SERIES_TOLERANCE = 0.15
THROUGHPUTS = ("tps", "new_order_tpm")
MISSING = object()


def dig(run: dict, path: tuple):
    for key in path:
        run = run.get(key, MISSING) if isinstance(run, dict) else MISSING
    return run


def check_runs(doc: dict, plan, expected: dict) -> list[str]:
    """Each run ran its point (the recipe's point of its id): every setting the recipe gives
    the point that the server read back (effective) is the point's, the swept one read back
    always; a swept storage, array, lab VM, allocator or client count is the point's where the
    run records it. One line per point and key, naming how many more of its runs say so."""
    sweep, r = plan.experiment.sweep, Result(doc)
    values = {point.id: point.value for point in plan.points}
    # the server's names of the swept settings: those whose values differ between points
    swept = {k for s in expected.values() for k in s
             if any(other.get(k) != s[k] for other in expected.values())}
    found = {}  # (point index, key) -> [first path, got, want, runs]
    for path, run in runs(doc):
        value = values.get(r.points[path[1]].id)
        if value is None:
            continue  # a point the recipe does not have: experiment.check_points says so
        settings = expected[value]
        effective = run.get("effective") or {}
        wrong = [(("effective", key), effective.get(key, MISSING), want)
                 for key, want in settings.items()
                 if (key in effective or key in swept)
                 and not units.same_value(want, effective.get(key, MISSING))]
        if sweep.setting in READ_BACK:
            got = dig(run, READ_BACK[sweep.setting])
            if got is not MISSING and not units.same_value(value, got):
                wrong.append((READ_BACK[sweep.setting], got, value))
        wrong += read_back(doc, run, sweep.setting, value, plan.points)
        if sweep.setting == "server.cpus" and value.isdigit() and "server_cpus" in run \
                and len(run["server_cpus"]) != int(value):
            wrong.append((("server_cpus",), run["server_cpus"], f"{value} CPUs"))
        for key, got, want in wrong:
            found.setdefault((path[1], key), [(*path, *key), got, want, 0])[3] += 1
    return [at(where, f"{'missing' if got is MISSING else repr(got)}"
                      f"{f' (and in {n - 1} more runs of the point)' if n > 1 else ''}; "
                      f"expected {want!r}, what point {r.points[where[1]].id} ran with")
            for where, got, want, n in found.values()]


def check_series(doc: dict) -> list[str]:
    """A summary's throughput is its series' (SERIES_TOLERANCE); a switchback's blocks, where
    its plan puts them, in its one series."""
    found = {}  # (point index, metric) -> [first path, summary, mean, gap, tolerance, runs]
    for path, run in runs(doc):
        series = run.get("series") or {}
        for metric in THROUGHPUTS:
            total = run["summary"].get(metric)
            seconds = [v for v in series.get(metric) or [] if is_number(v)]
            if not is_number(total) or not seconds or abs(total) > bound_of((metric,))[0]:
                continue  # no series, or a value values.check_magnitudes refuses already
            mean = statistics.fmean(seconds)
            gap = abs(total - mean) / max(total, mean) if max(total, mean) > 0 else 0
            tolerance = max(SERIES_TOLERANCE, 1 / len(seconds))
            if gap > tolerance:
                found.setdefault((path[1], metric), [(*path, "summary", metric), total, mean,
                                                     gap, tolerance, 0])[5] += 1
    problems = [at(where, f"{total:g}, {gap:.0%} off the mean of its per-second series "
                          f"({mean:.2f}){f' (and {n - 1} more runs of the point)' if n > 1 else ''}"
                          f"; expected within {tolerance:.0%} of it (the summary is the whole "
                          "run's, the series its seconds)")
                for where, total, mean, gap, tolerance, n in found.values()]
    return problems + check_blocks(doc)


def check_blocks(doc: dict) -> list[str]:
    """A switchback's block: switched after second s, settle_s seconds dropped, duration_s
    measured, all in switchback/tps; its series those seconds of it."""
    if Result(doc).design != "switchback" or "switchback" not in doc:
        return []
    p, whole = doc["plan"], doc["switchback"]["tps"]
    settle, duration = int(p.get("settle_s", 0)), int(p["duration_s"])
    problems = []
    for path, run in runs(doc):
        block = run.get("block")
        if block is None:
            continue  # experiment.check_design names it
        s = block["switched_s"]
        want = (s + settle + 1, s + settle + duration)
        if (block["first_s"], block["last_s"]) != want or want[1] > len(whole):
            problems.append(at((*path, "block"), f"seconds {block['first_s']} to "
                                                 f"{block['last_s']} after a switch at {s}; "
                                                 f"expected {want[0]} to {want[1]} (settle_s "
                                                 "dropped, then duration_s measured) within "
                                                 f"the {len(whole)} s of switchback/tps"))
        elif run["series"].get("tps") != whole[want[0] - 1:want[1]]:
            problems.append(at((*path, "series", "tps"), f"not switchback/tps's seconds "
                                                         f"{want[0]} to {want[1]}; expected "
                                                         "the block's seconds of the one "
                                                         "series"))
    return problems


# --- the settings read back in their own forms ----------------------------------------------------

def read_back(doc: dict, run: dict, setting: str, value: str, points) -> list[tuple]:
    """(path, got, wanted) where a run's own record of a swept array, lab VM, storage or
    workload setting is not its point's; a record the engine writes since
    design.RECORDS_FALLBACK_FROM (lab.kernel_from, workload.commit) is required from then."""
    if setting == "storage.mount_options":
        return _mount_options(run, value, points)
    if setting == "storage.logs":
        return _logs(run, value)
    if setting == "raid.state":
        return _raid_state(run, value)
    if setting not in READ_BACK_AS:
        return []
    path, want, fits = READ_BACK_AS[setting]
    got = dig(run, path)
    if got is MISSING:
        required = setting in RECORDED_SINCE and records_read_back(doc)
        return [(path, got, want(value, doc))] if required else []
    return [] if fits(value, got, run, doc) else [(path, got, want(value, doc))]


def _raid_level(value: str) -> str:
    """md's level of the array a raid.level value builds: a nested 1+0 is a RAID0 over
    mirrors, 0+1 a mirror of stripes (recipes/raid.py)."""
    return {"1+0": "raid0", "0+1": "raid1"}.get(value, f"raid{value}")


def _raid_layout(value: str) -> str:
    """md's number of a RAID10 layout (near, far or offset copies), as mdadm reports it:
    near copies in the low byte, far copies in the next, offset in bit 16."""
    kind, copies = value[:1], int(value[1:])
    near, far = (copies, 1) if kind == "n" else (1, copies)
    return str(near + (far << 8) + (65536 if kind == "o" else 0))


def _raid_state(run: dict, value: str) -> list[tuple]:
    """The state the engine put the array in, and the failed members the guest read after
    the run (raid/after, where recorded): none in a normal array, at least one in a degraded
    one (a rebuild may have finished before the run did)."""
    got = dig(run, ("raid", "state"))
    if got is MISSING:
        return []  # a run of before the state was recorded
    if got != value:
        return [(("raid", "state"), got, value)]
    after = dig(run, ("raid", "after", "degraded"))
    if after is MISSING or not is_number(after):
        return []
    if value == "normal" and after != 0:
        return [(("raid", "after", "degraded"), after, 0)]
    if value == "degraded" and after < 1:
        return [(("raid", "after", "degraded"), after, "at least 1 failed member")]
    return []


def _swap(value: str, got, run: dict, doc: dict) -> bool:
    """The guest's SwapTotal: the swap disk less mkswap's header (a page; under 1 MiB)."""
    want = units.size_bytes(value)
    return is_number(got) and 0 <= want - got < (1 << 20 if want else 1)


def _commits(value: str, got, run: dict, doc: dict) -> bool:
    """The server's COMMITs for its INSERTs (engine/run/repeat.py's counters): none under
    autocommit (statement); one per N INSERTs; one a second per client for a time (1s). The
    warm-up and the measured run are sysbench runs of their own, each of whose clients may
    commit a part batch or second at its end: SLACK commits per client either way (a real
    run of 2 clients, --commit=10, 1 s warm-up and 3 s: 3,635 COMMITs for 36,347 INSERTs;
    --commit=1s: 12 COMMITs in 4.3 s)."""
    commits, inserts, seconds = (got.get(k) for k in ("com_commit", "com_insert", "seconds"))
    if not all(is_number(x) for x in (commits, inserts, seconds)):
        return False
    clients = max(int((doc.get("workload") or {}).get("threads") or 1), 1)
    if value == "statement":
        return commits == 0
    slack = SLACK * clients
    if value.isdigit():
        n = int(value)
        return (commits - slack) * n <= inserts <= (commits + slack) * n
    every = units.seconds(value)
    return clients * seconds / every / 2 - slack <= commits <= \
        clients * seconds / every * 1.5 + slack


def _commit_want(value: str, doc: dict) -> str:
    if value == "statement":
        return "no COMMIT (autocommit)"
    if value.isdigit():
        return f"a COMMIT per {value} INSERTs"
    return f"a COMMIT per client every {value}"


SLACK = 4  # commits per client: a part batch or second at each end of two sysbench runs

READ_BACK_AS = {  # setting: (path in the run, the value wanted as shown, whether got fits)
    "raid.level": (("raid", "level"), lambda v, d: _raid_level(v),
                   lambda v, g, r, d: g == _raid_level(v)),
    "raid.layout": (("raid", "layout"), lambda v, d: _raid_layout(v),
                    lambda v, g, r, d: str(g) == _raid_layout(v)),
    "lab.swap": (("lab", "swap_bytes"), lambda v, d: f"{units.size_bytes(v)} bytes less the "
                                                     "swap header", _swap),
    "lab.kernel_from": (("lab", "kernel_from"), lambda v, d: v, lambda v, g, r, d: g == v),
    "workload.commit": (("statements",), _commit_want, _commits),
}
# Read-backs the engine records since design.RECORDS_FALLBACK_FROM: required from then.
RECORDED_SINCE = ("lab.kernel_from", "workload.commit")


def _mount_options(run: dict, value: str, points) -> list[tuple]:
    """Every option the point mounts with is in the read-back, and no flag (noatime,
    nobarrier) that only another point asks for: the kernel adds its defaults (rw,
    relatime, xfs's logbufs) and may rewrite a key=value option, checked only as asked."""
    got = dig(run, ("storage", "mount_options"))
    if got is MISSING:
        return []  # a run without storage: values.py and the schema speak of it
    have = set(str(got).split(","))
    asked = {o for o in value.split(",") if o and o != "defaults"}
    others = {o for p in points for o in str(p.value).split(",")
              if o != "defaults" and "=" not in o} - asked
    if asked <= have and not others & have:
        return []
    return [(("storage", "mount_options"), got, value)]


def _logs(run: dict, value: str) -> list[tuple]:
    """storage.logs: a separate redo log has a sandbox of its own (logs_storage) on another
    device than the datadir's; the same one has none."""
    logs = run.get("logs_storage")
    if value == "same":
        return [] if logs is None else [(("logs_storage",), "a sandbox of its own",
                                         "none (the redo log beside the data)")]
    device = logs.get("device", MISSING) if isinstance(logs, dict) else MISSING
    if device is MISSING or device == dig(run, ("storage", "device")):
        return [(("logs_storage", "device"), device, "a device other than storage/device")]
    return []
