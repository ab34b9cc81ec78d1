"""`invoke recipe <name>`: plan, build the template, measure every run in the interleaved order,
save each finished run at once (so a rerun resumes), then write the result and print the table."""

import dataclasses
import signal
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from tuninglab import files
from tuninglab.engine.host import workdir
from tuninglab.engine.run import duet, leftovers, preflight, record, stop_rule, switchback
from tuninglab.engine.server import datadir, dynamic, memory
from tuninglab.engine.run.progress import Progress
from tuninglab.engine.measure.provenance import provenance
from tuninglab.engine.run.repeat import measure_run
from tuninglab.engine.run.resume import Saved
from tuninglab.errors import Interrupted, NotOnThisServer, UserError
from tuninglab.recipes import plan as planner
from tuninglab.recipes.load import load, load_all
from tuninglab.results import document, regime, report
from tuninglab.units import human_seconds


@dataclass(frozen=True)
class Options:
    """How to run an experiment, as the command that owns the run built it (cli.recipe_run,
    lab.noise, the benchmarks); never changed once made."""
    profile: str = "full"
    repeats: int | None = None
    duration: float | None = None
    warmup: float | None = None
    mysqld: str | None = None
    server: str | None = None    # a server by name (roots.py); None: --mysqld's, or the host's
    workdir: Path | None = None
    dry_run: bool = False
    precision: str | None = None  # the stop rule's target, e.g. "3%" (stop_rule.py)
    budget: str | None = None     # and its time budget, e.g. "10m"
    seed: int = 1
    data_dir: Path = files.DATA_DIR
    recipes_dir: Path = files.RECIPES_DIR
    baseline_seconds: int = 3    # per fio test
    variant: str = ""            # "" is the recipe's main experiment
    devices: tuple = ()          # real block devices instead of loop-device sandboxes
    destroy_data: bool = False   # the user's consent to erase them
    # The claims the stop rule aims at, without --precision: (recipe label, (stop_rule.Aim,
    # ...)) pairs, from the command that knows the claims (cli.py, campaign.py).
    aims: tuple = ()
    design: str | None = None    # --design: instead of the recipe's [measure] design


def run_all(name: str, opts: Options, variant: str | None = None, say=print) -> list:
    """The recipe's main experiment and then each variant (or only the one named), each saved
    to its own result file. Every variant is checked before the first one starts."""
    recipes = [load(name, opts.recipes_dir, variant)] if variant is not None else \
        load_all(name, opts.recipes_dir)
    chosen = [dataclasses.replace(opts, variant=r.variant) for r in recipes]
    ready = _prepare_all(recipes, chosen, variant is not None, say)
    return [run(name, one, say, prepared) for one, prepared in ready]


def _prepare_all(recipes, chosen, named: bool, say) -> list:
    """(options, prepared) of each experiment; one that sets an option the server lacks is
    skipped with its reason when the whole recipe runs (refused when it was asked for by name,
    or when no experiment of the recipe is left)."""
    ready, skipped = [], []
    for recipe, one in zip(recipes, chosen):
        try:
            ready.append((one, preflight.prepare(recipe, one)))
        except NotOnThisServer as exc:
            if named:
                raise
            skipped.append((recipe.label, exc))
    if skipped and not ready:   # the error alone: "skipping" it too would say it twice
        raise skipped[0][1]
    for label, exc in skipped:
        say(f"skipping {label}: {exc}")
    return ready


def run(name: str, opts: Options, say=print, prepared=None) -> Path | None:
    """One experiment (the recipe's main one, or opts.variant); prepared: what
    preflight.prepare returned for it, when the caller has checked it already."""
    plan, binary, devices = prepared or preflight.prepare_named(name, opts)
    for value, why in plan.skipped:
        say(f"skipping point {value} of {plan.experiment.recipe.label}: {why}")
    wd = Path(opts.workdir or files.default_workdir()).resolve()
    workdir.check_usable(wd)
    planned, plan = plan, dynamic.settled(plan, wd, binary)
    fallback = None
    if planned.switchback and not plan.switchback:  # this binary said so before
        fallback = _fallback(planned, wd, binary)
    saved = Saved(wd, plan, binary)
    if opts.dry_run:
        doc = saved.load(say, move_stale=False)
        say(planner.describe(plan, binary.label, pending(plan, doc),
                             datadir.is_cached(wd, binary, plan.experiment.dataset),
                             doc is not None))
        if stop_rule.active(plan.experiment.measure):
            say(stop_rule.describe(plan, opts.aims))
        say(_expected_precision(plan, wd))
        for line in validity_lines(plan, binary.flavor):
            say(line)
        if devices:
            say(f"storage under test: {', '.join(devices)}, erased by every run")
        if plan.experiment.recipe.in_lab_vm:
            say(_lab_vm_plan(plan, wd))
        say("dry run: nothing was started")
        return None
    with workdir.held(wd), signals_interrupt(), disk_errors(wd):
        return _measure(plan, binary, wd, saved, opts, devices, say, fallback)


def _fallback(plan, wd: Path, binary, reason: str | None = None) -> dict:
    """The record of a switchback plan measured as restarts: the swept settings this binary
    said it reads only at startup (dynamic.remembered), and why."""
    answers = dynamic.remembered(wd, binary)
    fixed = [n for n in dynamic.swept_names(plan, binary) if answers.get(n) is False]
    return record.fallback(reason or dynamic.startup_only(binary, fixed), fixed)


def _expected_precision(plan, wd: Path) -> str:
    """The dry run's word on the precision to expect, from this host's calibration."""
    from tuninglab.engine.measure import noise
    from tuninglab.engine.measure.provenance import host_id
    figures = noise.load(wd, host_id())
    if not figures:
        return ("expected precision: unknown for this host (`invoke lab.noise` measures its "
                "noise, in about 15 minutes)")
    if plan.duet and "duet" not in figures:
        return ("expected precision: not calibrated for a duet on this host yet (`invoke "
                "lab.noise --designs duet` measures a duet A/A, in about 6 minutes)")
    half = noise.expected_half_width_pct(figures, plan)
    if half is None:
        return ("expected precision: one repeat gives no interval"
                if plan.experiment.measure.repeats < 2 else "expected precision: unknown "
                "(this host's duet A/A had one repeat: `invoke lab.noise --designs duet`)")
    shape = figures.get("shape", "cpu-bound")
    caveat = ("" if plan.experiment.dataset.shape == shape else
              f" on the {shape} shape (a {plan.experiment.dataset.shape} one may be noisier)")
    duet = noise.duet_in_the_same_time(figures, plan)
    alternative = "" if duet is None else (
        f"; a duet in about the same time: about ±{duet[0]:g}% ({duet[1]} halves of "
        f"{duet[2]:g} s, each server on half the machine: --design duet)")
    return (f"expected precision: about ±{half:g}% on each ratio, from this host's noise as "
            f"`invoke lab.noise` measured it{caveat} on {figures['measured'][:10]}{alternative}")


def validity_lines(plan, flavor: str = "mariadb") -> list[str]:
    """The dry run's word on the regime: the memory the server is held to, and the conditions
    the runs are checked against once done (results/regime.py)."""
    e = plan.experiment
    block = memory.describe(e.dataset, e.recipe.in_lab_vm, memory.extra(e, flavor))
    lines = []
    if block:
        extra = block.get("server_extra_bytes")
        held = f"{block['limit_bytes'] // 2**20}M ({e.dataset.memory_limit} and the " \
            f"{extra // 2**20}M more this server holds than MariaDB 10.11)" if extra \
            else e.dataset.memory_limit
        lines.append(memory.not_capped(block) or
                     f"memory: the server held to {held} ({block['controller']}"
                     f"), page cache included, its copy of the data not cached before it starts")
    for c in e.recipe.regime:
        lines.append(f"regime check: {regime.describe(dict(c))}")
    return lines


def pending(plan, doc) -> list:
    done = document.done_keys(doc) if doc else set()
    return [r for r in plan.runs if r.key not in done]


def todo_line(plan, todo, estimate: float) -> str:
    """'doublewrite (quick): 10 of 10 runs to do, about 7m00s'; said again when the design
    falls back to restarts, which take longer than the switchback first estimated."""
    e = plan.experiment
    return (f"{e.recipe.label} ({e.profile}): {len(todo)} of {len(plan.runs)} runs to do, "
            f"about {human_seconds(estimate)}")


def _measure(plan, binary, wd, saved, opts, devices, say, fallback=None):
    e = plan.experiment
    doc = saved.load(say)
    todo = pending(plan, doc)
    estimate = plan.estimate(todo, datadir.is_cached(wd, binary, e.dataset), doc is not None)
    say(todo_line(plan, todo, estimate))
    uncapped = memory.not_capped(memory.describe(e.dataset, e.recipe.in_lab_vm))
    if uncapped:
        say(uncapped)
    leftovers.reap_stale_servers(wd)
    for line in leftovers.remove_stale_files(wd):
        say(line)
    lab = _lab_vm(plan, binary, wd, say, devices)
    template_data = datadir.ensure(wd, binary, e.dataset, e.workload.threads, say)
    runs_dir = wd / "runs"
    runs_dir.mkdir(exist_ok=True)
    workdir.check_free(runs_dir, 2 * workdir.dir_bytes(template_data), "one run's datadir copy")
    if plan.switchback:
        try:
            fio = opts.baseline_seconds if any(r.repeat == 1 for r in todo) else 0
            with switchback.Session(plan, binary, template_data, runs_dir, devices,
                                    fio) as session:
                doc = _document(doc, plan, binary, runs_dir, saved, opts, say)
                _switchback(session, plan, doc, todo, saved, say, opts.aims)
            return _write(doc, saved, opts, say)
        except dynamic.NotSwitchable as exc:
            if e.measure.design == "switchback":
                raise planner.switchback_refusal(e, str(exc)) from None
            say(f"{exc}: measuring with a fresh server per run instead (design: restart)")
            fallback = _fallback(plan, wd, binary, str(exc))
            plan = planner.build(e, plan.seed, "restart")
            saved = Saved(wd, plan, binary)
            doc = saved.load(say)
            todo = pending(plan, doc)
            say(todo_line(plan, todo, plan.estimate(todo, True, doc is not None)))
    if plan.duet:
        doc = _document(doc, plan, binary, runs_dir, saved, opts, say)
        clock = Progress(len(plan.runs), len(plan.runs) - len(todo), plan.run_seconds(), say)
        for plan, todo in _rounds(plan, doc, todo, clock, say, opts.aims):
            duet.run_halves(plan, doc, todo, binary, template_data, runs_dir, saved, say, clock)
        return _write(doc, saved, opts, say)
    doc = _document(doc, plan, binary, runs_dir, saved, opts, say, fallback)
    disk = doc["storage"]["device"]  # the work directory's device, recorded with the provenance
    clock = Progress(len(plan.runs), len(plan.runs) - len(todo), plan.run_seconds(), say)
    for plan, todo in _rounds(plan, doc, todo, clock, say, opts.aims):
        for run_ in todo:
            clock.begin(run_)
            first_of_point = not document.point(doc, run_.point.id)["runs"]
            if lab:
                finished = lab.measure(run_, e, template_data, say)
                record.lab_image(finished, lab.images[run_.point.lab["image"]].manifest)
            else:
                finished = measure_run(run_, binary, template_data, runs_dir,
                                       [disk] if disk else [], e, clock,
                                       opts.baseline_seconds if first_of_point else 0,
                                       devices)
            document.point(doc, run_.point.id)["runs"].append(finished)
            saved.save(doc)
            clock.end(finished)
    return _write(doc, saved, opts, say)


def _rounds(plan, doc, todo, clock, say, aims: tuple = ()):
    """(plan, runs to measure): the pending runs, then while the stop rule asks for more (if
    the recipe or the command line set one), one more round at a time."""
    if todo:
        yield plan, todo
    if not stop_rule.active(plan.experiment.measure):
        return
    plan = stop_rule.as_run(plan, doc)
    while True:
        bigger, why = stop_rule.next_round(plan, doc, aims=aims)
        say(why)
        if bigger is None:
            stop_rule.record(doc, plan, why, aims)
            return
        plan, todo = bigger, stop_rule.new_runs(bigger)
        clock.total += len(todo)
        yield plan, todo


def _document(doc, plan, binary, runs_dir: Path, saved, opts, say, fallback=None) -> dict:
    """The resumed document, or a new one with the provenance (and fio's baseline); a
    switchback's fallback to restart recorded in its plan (data.check requires it)."""
    if doc is None:
        say(f"measuring the device baseline with fio in {runs_dir} "
            f"({2 * opts.baseline_seconds}s)")
        doc = record.new_document(plan, binary, provenance(runs_dir, opts.baseline_seconds))
    if fallback and "fallback" not in doc["plan"]:
        doc["plan"]["fallback"] = fallback
    saved.save(doc)
    return doc


def _switchback(session, plan, doc, todo, saved, say, aims: tuple = ()) -> None:
    """The pending rounds as blocks on the session's server, each round saved as it ends."""
    e = plan.experiment
    say(f"switchback: {len(todo) // len(plan.points)} rounds of {len(plan.points)} blocks "
        f"on one server ({human_seconds(e.measure.warmup)} warm-up, then per block "
        f"{human_seconds(e.measure.settle)} dropped and {human_seconds(e.measure.duration)} "
        "measured)")
    clock = Progress(len(plan.runs), len(plan.runs) - len(todo), plan.run_seconds(), say)
    warmup, steady = e.measure.warmup, e.measure.steady
    for plan, todo in _rounds(plan, doc, todo, clock, say, aims):
        _blocks(session, plan, doc, todo, saved, clock, warmup, steady)
        # the server is warm: a new round only starts the load
        warmup, steady = e.measure.settle, False


def _blocks(session, plan, doc, todo, saved, clock, warmup, steady=False) -> None:
    """Runs of the plan as blocks on the session's server, after `warmup` seconds of load
    (steady: or more, while the load still trends); each round saved as it ends, with the
    whole per-second throughput so far."""
    earlier = doc.setdefault("switchback", {"tps": []})["tps"][:]
    disk = doc["storage"]["device"]  # the work directory's, unless the session has a sandbox

    def on_round(records, tps):
        for finished in records:
            document.point(doc, finished_point(plan, finished))["runs"].append(finished)
        doc["switchback"]["tps"] = earlier + tps
        if session.warm_up and "warm_up" not in doc["switchback"]:
            doc["switchback"]["warm_up"] = {**session.warm_up,
                                            "seconds": session.warm_up["seconds"] + len(earlier)}
        saved.save(doc)

    disks = session.disks or ([disk] if disk else [])
    tps = switchback.run_blocks(session, todo, plan.experiment, disks, clock,
                                on_round, offset=len(earlier), warmup=warmup,
                                steady_check=steady)
    doc["switchback"]["tps"] = earlier + tps


def finished_point(plan, finished: dict) -> str:
    """The point a finished block belongs to, from its place in the run order."""
    return plan.runs[finished["order"]].point.id


def _write(doc, saved, opts, say) -> Path:
    """The finished result into data/, its progress file removed, its table printed."""
    doc.pop("resume_key", None)
    try:
        path = document.write_final(document.finish(doc), opts.data_dir)
    except FileExistsError as exc:
        raise UserError(f"{exc.filename} exists already and was kept; this run's result "
                        f"stays in {saved.path}") from None
    except OSError as exc:  # not the work directory's fault (disk_errors would say so)
        if exc.errno not in workdir.FIXABLE:
            raise
        raise UserError(f"cannot write the result into {opts.data_dir} "
                        f"({workdir.fixable_reason(exc)}); this run's result stays in "
                        f"{saved.path}: run the same command again once it can be written, "
                        "finished runs are kept") from None
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


@contextmanager
def disk_errors(wd: Path):
    """Storage errors a user can fix (full, read-only, no permission) become one sentence."""
    try:
        yield
    except OSError as exc:
        if exc.errno not in workdir.FIXABLE:
            raise
        raise UserError(workdir.disk_error(exc, wd)) from None


@contextmanager
def signals_interrupt():
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
