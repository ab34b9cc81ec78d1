"""One repeat of one point: where its files live (the work directory, or a sandbox built for
this run on a loop device or a named device), a fresh copy of the template, a throwaway server,
the workload measured."""

import os
import shutil
import time
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass
from pathlib import Path

from tuninglab.engine.measure import device_baseline, phase as measure

from tuninglab.engine.server import datadir, memory, pinning
from tuninglab.engine.server import mysqld as srv
from tuninglab.engine.storage.sandbox import Sandbox, Spec
from tuninglab.engine.host.workdir import blame_full_disk
from tuninglab.recipes import defaults_sets
from tuninglab.results import document


@dataclass
class Place:
    """Where one run keeps its files: its directory, the datadir, the disks to sample, what to
    add to the record, and the redo log's own directory when it is on a second sandbox."""
    rundir: Path
    datadir: Path
    disks: list
    extra: dict
    logs: Path | None = None


@contextmanager
def run_storage(run_, runs_dir: Path, disks, baseline_seconds: int, devices=()):
    """Where a run's datadir lives: the work directory, or a fresh sandbox built for this run
    on a loop device or on the user's device (its state read back, and fio on it when
    baseline_seconds is set); with storage.logs = separate, a second one for the redo log."""
    rundir = runs_dir / f"{run_.point.id}-r{run_.repeat}"
    shutil.rmtree(rundir, ignore_errors=True)
    spec = run_.point.storage
    if spec is None:
        try:
            with blame_full_disk(runs_dir, f"measuring run {rundir.name}"):
                yield Place(rundir, rundir / "data", disks, {})
        finally:  # the copy is the bulk of it; a failed run's logs stay until the next run
            shutil.rmtree(rundir / "data", ignore_errors=True)
        shutil.rmtree(rundir, ignore_errors=True)
        return
    fields = sandbox_fields(spec)
    named = list(devices) + [None, None]
    with ExitStack() as stack:
        box = stack.enter_context(Sandbox(runs_dir.parent, Spec(**fields), name=rundir.name,
                                          device=named[0]))
        place = Place(rundir, box.mountpoint / "data", [Path(box.device).name],
                      {"storage": box.state()})
        if spec.get("logs") == "separate":
            logs = stack.enter_context(Sandbox(
                runs_dir.parent, Spec(**{**fields, "size": spec["logs_size"]}),
                name=f"{rundir.name}-logs", device=named[1]))
            place.logs = logs.mountpoint / "redo"
            place.disks.append(Path(logs.device).name)
            place.extra["logs_storage"] = logs.state()
        if baseline_seconds:
            place.extra["device_baseline"] = device_baseline.device_baseline(box.mountpoint,
                                                                      seconds=baseline_seconds)
        yield place
    shutil.rmtree(rundir, ignore_errors=True)


def sandbox_fields(spec: dict) -> dict:
    """A point's storage as the sandbox's Spec takes it (the rest is the engine's)."""
    return {k: v for k, v in spec.items()
            if k not in ("drop_caches", "logs", "logs_size") and v is not None}


def drop_caches() -> None:
    """Start every sandboxed run with a cold page cache: the copy just filled it. Kept on a
    direct-IO loop device too, which the host's page cache no longer holds: the copy is in
    the sandbox filesystem's page cache, uncharged to the server (memory.uncache drops it
    only where the server is capped), and the drop comes before the server starts, so it
    costs a second and changes nothing measured."""
    os.sync()
    Path("/proc/sys/vm/drop_caches").write_text("3\n")


def measure_run(run_, binary, template_data, runs_dir, disks, experiment, clock,
                baseline_seconds=0, devices=(), cpus=None, sync=None) -> dict:
    """One repeat of one point on a fresh copy of the template; the copy is removed after.
    A duet's half (engine/run/duet.py) gives each server its CPUs and a barrier (sync) that
    starts both loads together."""
    with (run_storage(run_, runs_dir, disks, baseline_seconds, devices) as place,
          memory.capped(experiment.dataset, runs_dir.parent, place.rundir.name,
                        memory.extra(experiment, binary.flavor)) as cap):
        datadir.clone(template_data, place.datadir)
        settings = dict(run_.point.settings)
        if place.logs:
            datadir.move_redo(place.datadir, place.logs)
            settings["innodb_log_group_home_dir"] = str(place.logs)
        written = (_written_redo(run_, binary, place, settings, experiment, cap)
                   if datadir.makes_redo_anew(settings) else None)
        if (run_.point.storage.get("drop_caches", True) if run_.point.storage
                else experiment.measure.drop_caches):
            drop_caches()
        if cap:  # what the copy left in the page cache would serve the server's reads
            for path in filter(None, (place.datadir, place.logs)):
                memory.uncache(path)
        record = _measure_server(run_, binary, place, settings, experiment, clock, cap,
                                 cpus, sync)
    return {**record, **place.extra,
            **({"redo_written_over_bytes": written} if written is not None else {})}


def _written_redo(run_, binary, place, settings, experiment, cap) -> int:
    """A redo log as a server that has run a while has it (results/redo.py): the
    server started once to make it at the run's size and stopped cleanly, then every byte of it
    written over; the bytes written."""
    with memory.starting(cap, experiment.dataset), \
            srv.Server(binary, place.rundir, place.datadir, settings,
                       cgroup=cap.procs if cap else None, allocator=run_.point.allocator):
        pass
    return datadir.write_over(datadir.redo_files(place.logs or place.datadir))


def _observed(sweep, binary) -> list:
    """The variables a server.defaults sweep reads back, under the names this server gives
    them too (MySQL's innodb_redo_log_capacity for innodb_log_file_size)."""
    names = defaults_sets.observed(sweep)
    return [*names, *binary.map(dict.fromkeys(names, "1M"))] if names else []


def _measure_server(run_, binary, place, settings, experiment, clock, cap=None, cpus=None,
                    sync=None) -> dict:
    started = document.now()
    e = experiment
    with memory.starting(cap, e.dataset), \
            srv.Server(binary, place.rundir, place.datadir, settings,
                       cgroup=cap.procs if cap else None, allocator=run_.point.allocator,
                       cpus=cpus or pinning.first(run_.point.cpus)) as server:
        # a server.defaults sweep reads back what every set changes, at today's point too
        effective = server.variables([*server.settings, *_observed(e.sweep, binary)])
        allocator = server.allocator_record() if _allocates(e) else None
        held = server.cpus_in_force() if cpus or _holds_cpus(e) else None
        before, began = _statements(server, e), time.monotonic()
        if e.workload.timed:
            summary, series, _ = measure.oltp(server, place.disks, run_.point.workload,
                                              e.measure, e.dataset, clock, sync=sync)
        else:
            summary, series, _ = measure.full_scan(server, place.disks, e.dataset, clock)
        statements = _statements_since(server, before, began)
        server.stop(discard=True)
        notes = server.log_notes()
    return {"repeat": run_.repeat, "order": run_.index, "started": started,
            "finished": document.now(), "effective": effective, "server_log": notes,
            "summary": summary, "series": series, **({"memory": cap.usage()} if cap else {}),
            **({"allocator": allocator} if allocator else {}),
            **({"server_cpus": held} if held else {}),
            **({"statements": statements} if statements else {})}


# workload.commit's read-back: the statements the server ran (its Com_ counters), which a
# point's --commit gives (statement: no COMMIT; N: one per N INSERTs; 1s: one a second).
STATEMENT_COUNTERS = ("com_commit", "com_insert")


def _statements(server, e) -> dict | None:
    """The server's COMMIT and INSERT counters, where the sweep is of workload.commit."""
    return _counters(server) if e.sweep.setting == "workload.commit" else None


def _counters(server) -> dict:
    names = ",".join(f"'{n.capitalize()}'" for n in STATEMENT_COUNTERS)  # Com_commit
    rows = server.query(f"SHOW GLOBAL STATUS WHERE Variable_name IN ({names})")
    return {name.lower(): int(value) for name, value in rows}


def _statements_since(server, before: dict | None, began: float) -> dict | None:
    """The counters' growth since before, over the seconds since began (warm-up included)."""
    if before is None:
        return None
    after = _counters(server)
    return {**{n: after.get(n, 0) - before.get(n, 0) for n in STATEMENT_COUNTERS},
            "seconds": round(time.monotonic() - began, 1)}


def _holds_cpus(e) -> bool:
    """Whether the experiment holds its server to some CPUs (swept or set)."""
    return e.sweep.setting == "server.cpus" or bool(e.recipe.cpus)


def _allocates(e) -> bool:
    """Whether the experiment's server allocator is part of its question (swept or set)."""
    return e.sweep.setting == "server.allocator" or e.recipe.allocator != "glibc"
