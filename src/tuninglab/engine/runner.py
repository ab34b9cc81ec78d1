"""`invoke recipe <name>`: plan, build the template, measure every run in the interleaved order,
save each finished run at once (so a rerun resumes), then write the result and print the table."""

import dataclasses
import errno
import json
import os
import shutil
import signal
import sys
import time
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass
from pathlib import Path

from tuninglab import files
from tuninglab.engine import datadir, device_baseline, devices, hostinfo, measure, record, workdir
from tuninglab.engine import server as srv
from tuninglab.engine.server_options import check_known
from tuninglab.engine.storage import guard
from tuninglab.engine.storage.sandbox import Sandbox, Spec
from tuninglab.engine.workloads import sysbench
from tuninglab.errors import Interrupted, UserError
from tuninglab.recipes import plan as planner
from tuninglab.recipes import recipe as recipes
from tuninglab.results import document, report
from tuninglab.units import human_seconds


@dataclass
class Options:
    profile: str = "full"
    repeats: int | None = None
    duration: float | None = None
    warmup: float | None = None
    mysqld: str | None = None
    workdir: Path | None = None
    dry_run: bool = False
    seed: int = 1
    data_dir: Path = document.DATA_DIR
    recipes_dir: Path = recipes.RECIPES_DIR
    baseline_seconds: int = 3    # per fio test
    variant: str = ""            # "" is the recipe's main experiment
    devices: tuple = ()          # real block devices instead of loop-device sandboxes
    destroy_data: bool = False   # the user's consent to erase them


def prepare(name: str, opts: Options):
    """Everything that can fail on bad input, checked before anything runs."""
    recipe = recipes.load(name, opts.recipes_dir, opts.variant)
    experiment = recipe.experiment(opts.profile, opts.repeats, opts.duration, opts.warmup)
    check_needs(recipe)
    plan = planner.build(experiment, opts.seed)
    opts.devices = check_devices(recipe, opts, plan.points)
    binary = srv.find(opts.mysqld)
    sysbench.executable()
    check_options(recipe, experiment, binary)
    return plan, binary


def check_needs(recipe) -> None:
    if "root" in recipe.needs and os.geteuid() != 0:
        raise UserError(f"recipe {recipe.name} needs root (it changes storage settings); "
                        "run it with sudo")
    missing = [n for n in recipe.needs if n != "root"]
    if missing:
        raise UserError(f"recipe {recipe.name} needs {', '.join(missing)}, which this version "
                        "of the engine cannot provide yet")


def check_devices(recipe, opts: Options, points) -> tuple:
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


def check_options(recipe, experiment, binary) -> None:
    known = binary.variables
    check_known(binary.map(dict(recipe.server_settings)), known, binary.label,
                f"{recipe.path}: server.settings")
    if experiment.sweep.server_option:
        check_known(binary.map({experiment.sweep.setting: experiment.sweep.baseline}), known,
                    binary.label, f"{recipe.path}: sweep.setting")


def run_all(name: str, opts: Options, variant: str | None = None, say=print) -> list:
    """The recipe's main experiment and then each variant (or only the one named), each saved
    to its own result file. Every variant is checked before the first one starts."""
    names = [variant] if variant is not None else \
        [r.variant for r in recipes.load_all(name, opts.recipes_dir)]
    chosen = [dataclasses.replace(opts, variant=v) for v in names]
    for one in chosen:
        prepare(name, one)
    return [run(name, one, say) for one in chosen]


def run(name: str, opts: Options, say=print) -> Path | None:
    plan, binary = prepare(name, opts)
    wd = Path(opts.workdir or files.default_workdir()).resolve()
    saved = Saved(wd, plan, binary)
    if opts.dry_run:
        doc = saved.load(say, move_stale=False)
        say(planner.describe(plan, binary.label, pending(plan, doc),
                             datadir.is_cached(wd, binary, plan.experiment.dataset),
                             doc is not None))
        if opts.devices:
            say(f"storage under test: {', '.join(opts.devices)}, erased by every run")
        if plan.experiment.recipe.in_lab_vm:
            say(_lab_vm_plan(plan, wd))
        say("dry run: nothing was started")
        return None
    with workdir.held(wd), _signals_interrupt(), _disk_errors(wd):
        return _measure(plan, binary, wd, saved, opts, say)


def pending(plan, doc) -> list:
    done = document.done_keys(doc) if doc else set()
    return [r for r in plan.runs if r.key not in done]


def _measure(plan, binary, wd, saved, opts, say):
    e = plan.experiment
    doc = saved.load(say)
    todo = pending(plan, doc)
    estimate = plan.estimate(todo, datadir.is_cached(wd, binary, e.dataset), doc is not None)
    say(f"{e.recipe.label} ({e.profile}): {len(todo)} of {len(plan.runs)} runs to do, "
        f"about {human_seconds(estimate)}")
    reap_stale_servers(wd)
    lab = _lab_vm(plan, binary, wd, say, opts.devices)
    template_data = datadir.ensure(wd, binary, e.dataset, e.workload.threads, say)
    runs_dir = wd / "runs"
    runs_dir.mkdir(exist_ok=True)
    workdir.check_free(runs_dir, 2 * workdir.dir_bytes(template_data), "one run's datadir copy")
    if doc is None:
        say(f"measuring the device baseline with fio in {runs_dir} "
            f"({2 * opts.baseline_seconds}s)")
        doc = record.new_document(plan, binary, provenance(runs_dir, opts.baseline_seconds))
        saved.save(doc)
    disk = doc["storage"]["device"]  # the work directory's device, recorded with the provenance
    clock = Progress(len(plan.runs), len(plan.runs) - len(todo), plan.run_seconds(), say)
    for run_ in todo:
        clock.begin(run_)
        first_of_point = not document.point(doc, run_.point.id)["runs"]
        if lab:
            record = lab.measure(run_, e, template_data, say)
        else:
            record = measure_run(run_, binary, template_data, runs_dir, [disk] if disk else [],
                                 e, clock, opts.baseline_seconds if first_of_point else 0,
                                 opts.devices)
        document.point(doc, run_.point.id)["runs"].append(record)
        saved.save(doc)
        clock.end(record)
    doc.pop("resume_key", None)
    path = document.write_final(document.finish(doc), opts.data_dir)
    saved.remove()
    say("")
    say(report.results_table(doc))
    say(f"\nwrote {path}")
    if doc.get("invalid"):
        say("INVALID: the site will not chart this result:\n  " + "\n  ".join(doc["invalid"]))
    return path


def _lab_vm_plan(plan, wd: Path) -> str:
    """The dry run's word on the lab VM: which images exist, and how each run boots."""
    from tuninglab.engine.lab import image, qemu  # only where the lab VM is asked about
    flavours = sorted({p.lab["image"] for p in plan.points})
    missing = [f for f in flavours if not image.cached(wd, f)]
    accel = qemu.known_accelerator(wd) or ("KVM if a probe boot works, else TCG"
                                          if qemu.kvm_usable() else "TCG")
    return (f"each run boots the lab VM (image {', '.join(flavours)}; accelerator: {accel}); "
            + (f"images to build first (as root; about 90 s each, several minutes more for "
               f"OpenZFS): {', '.join(missing)}" if missing else "images cached"))


def _lab_vm(plan, binary, wd: Path, say, devices=()):
    """RAID and kernel recipes run in the lab VM (this engine does not drive the host's md
    yet)."""
    if not plan.experiment.recipe.in_lab_vm:
        return None
    from tuninglab.engine.lab.vm import LabVM  # noqa: PLC0415 (only recipes in the lab VM need qemu)
    lab = LabVM.start(wd, {p.lab["image"] for p in plan.points}, say, devices)
    lab.check_server(binary)
    return lab


def provenance(runs_dir: Path, baseline_seconds: int) -> dict:
    versions = hostinfo.tool_versions()
    return {
        "software": {"sysbench": versions["sysbench"], "fio": versions["fio"],
                     "python": versions["python"], "kernel": os.uname().release,
                     "project": hostinfo.git_revision(files.PROJECT_DIR)},
        "host": hostinfo.host_info(record.host_salt()),
        "storage": devices.storage_info(runs_dir),
        "device_baseline": device_baseline.device_baseline(runs_dir, seconds=baseline_seconds),
    }


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
        yield Place(rundir, rundir / "data", disks, {})
        shutil.rmtree(rundir, ignore_errors=True)
        return
    fields = {k: v for k, v in spec.items()
              if k not in ("drop_caches", "logs", "logs_size") and v is not None}
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


def drop_caches() -> None:
    """Start every sandboxed run with a cold page cache: the copy just filled it."""
    os.sync()
    Path("/proc/sys/vm/drop_caches").write_text("3\n")


def measure_run(run_, binary, template_data, runs_dir, disks, experiment, clock,
                baseline_seconds=0, devices=()) -> dict:
    """One repeat of one point on a fresh copy of the template; the copy is removed after."""
    with run_storage(run_, runs_dir, disks, baseline_seconds, devices) as place:
        datadir.clone(template_data, place.datadir)
        settings = dict(run_.point.settings)
        if place.logs:
            datadir.move_redo(place.datadir, place.logs)
            settings["innodb_log_group_home_dir"] = str(place.logs)
        if run_.point.storage and run_.point.storage.get("drop_caches", True):
            drop_caches()
        record = _measure_server(run_, binary, place, settings, experiment, clock)
    return {**record, **place.extra}


def _measure_server(run_, binary, place, settings, experiment, clock) -> dict:
    started = document.now()
    e = experiment
    rundir, datadir, disks = place.rundir, place.datadir, place.disks
    with srv.Server(binary, rundir, datadir, settings) as server:
        effective = server.variables(server.settings)
        if e.workload.timed:
            summary, series, _ = measure.oltp(server, disks, run_.point.workload, e.measure,
                                              e.dataset, clock)
        else:
            summary, series, _ = measure.full_scan(server, disks, e.dataset, clock)
        server.stop(discard=True)
        notes = server.log_notes()
    return {"repeat": run_.repeat, "order": run_.index, "started": started,
            "finished": document.now(), "effective": effective, "server_log": notes,
            "summary": summary, "series": series}


class Saved:
    """The unfinished result of this plan in the work directory, which a rerun resumes."""

    def __init__(self, wd: Path, plan, binary):
        e = plan.experiment
        variant = f"-{e.recipe.variant}" if e.recipe.variant else ""
        self.path = wd / "progress" / f"{e.recipe.name}{variant}-{e.profile}.json"
        self.key = record.resume_key(plan, binary)

    def load(self, say, move_stale=True):
        if not self.path.is_file():
            return None
        try:
            doc = json.loads(self.path.read_text())
        except (OSError, ValueError):
            doc = None
        if doc and doc.get("resume_key") == self.key:
            say(f"resuming: {len(document.done_keys(doc))} finished runs kept from {self.path}")
            return doc
        if move_stale:  # another plan's runs: keep them aside, never mix them in
            aside = self.path.with_name(f"{self.path.stem}.stale-{int(time.time())}.json")
            self.path.rename(aside)
            say(f"an earlier run with other settings left {self.path}; moved it to {aside.name}")
        return None

    def save(self, doc) -> None:
        doc["resume_key"] = self.key
        self.path.parent.mkdir(exist_ok=True)
        files.atomic_write_json(self.path, doc)

    def remove(self) -> None:
        self.path.unlink(missing_ok=True)


def reap_stale_servers(wd: Path) -> list[int]:
    """Stop servers (and lab VMs) a killed run left behind in this work directory (found by
    pid file)."""
    reaped = []
    for pattern in ("runs/*/mysqld.pid", "templates/*/mysqld.pid", "sandboxes/*/*/mysqld.pid",
                    "vm/jobs/*/qemu.pid"):
        for pidfile in wd.glob(pattern):
            try:
                pid = int(pidfile.read_text().strip())
                cmdline = Path(f"/proc/{pid}/cmdline").read_bytes().decode(errors="replace")
            except (OSError, ValueError):
                continue
            if str(pidfile.parent) in cmdline:
                os.kill(pid, signal.SIGKILL)
                reaped.append(pid)
    return reaped


@contextmanager
def _disk_errors(wd: Path):
    """Storage errors a user can fix (full, read-only, no permission) become one sentence."""
    try:
        yield
    except OSError as exc:
        if exc.errno not in (errno.ENOSPC, errno.EDQUOT, errno.EROFS, errno.EACCES, errno.EPERM):
            raise
        raise UserError(workdir.disk_error(exc, wd)) from None


@contextmanager
def _signals_interrupt():
    """SIGTERM and SIGHUP end a run like Ctrl-C: cleanly, keeping finished runs."""
    def handler(signum, _frame):
        raise KeyboardInterrupt

    previous = {s: signal.signal(s, handler) for s in (signal.SIGTERM, signal.SIGHUP)}
    try:
        yield
    except KeyboardInterrupt:
        raise Interrupted("interrupted: the unfinished run was discarded, finished runs are "
                          "kept; run the same command again to resume") from None
    finally:
        for s, h in previous.items():
            signal.signal(s, h)


class Progress:
    """Point i of n, elapsed and remaining time; a live line on a terminal."""

    def __init__(self, total, done, run_seconds, say):
        self.total, self.done, self.say = total, done, say
        self.run_seconds, self.started = run_seconds, time.monotonic()
        self.finished_here = 0
        self.live = sys.stdout.isatty()

    def remaining(self) -> float:
        per_run = ((time.monotonic() - self.started) / self.finished_here
                   if self.finished_here else self.run_seconds)
        return per_run * (self.total - self.done)

    def begin(self, run_):
        elapsed = human_seconds(time.monotonic() - self.started)
        self.say(f"[{self.done + 1}/{self.total}] {run_.point.id}, repeat {run_.repeat} "
                 f"(elapsed {elapsed}, about {human_seconds(self.remaining())} left)")

    def phase(self, name, seconds):
        self.phase_name, self.phase_seconds = name, seconds

    def tick(self, interval):
        if self.live:
            sys.stdout.write(f"\r    {self.phase_name} {interval.t:.0f}/{self.phase_seconds:.0f}s"
                             f"  {interval.tps:,.0f} tps  p95 {interval.latency_p95_ms} ms   ")
            sys.stdout.flush()

    def scanned(self, table, tables, elapsed):
        if self.live:
            sys.stdout.write(f"\r    scan: table {table}/{tables} after {elapsed:.1f}s   ")
            sys.stdout.flush()

    def end(self, record):
        if self.live:
            sys.stdout.write("\r" + " " * 60 + "\r")
        self.say(f"    {report.run_line(record['summary'])}")
        self.done += 1
        self.finished_here += 1
