"""What the invoke tasks do, kept out of tasks.py so it can be tested and imported."""

import json
import shutil
import sys
import tempfile
import time
from pathlib import Path

from tuninglab import files
from tuninglab.contrib import check
from tuninglab.engine import datadir, runner
from tuninglab.engine import workdir as workdir_mod
from tuninglab.errors import UserError
from tuninglab.recipes import plan as planner
from tuninglab.recipes import recipe as recipes
from tuninglab.results import document, stats
from tuninglab.results.report import table
from tuninglab.units import human_seconds


def say(message: str = "") -> None:
    """Progress goes out at once, also when the output is a file or a pipe."""
    print(message, flush=True)


def guard(func, *args):
    """Run a command; a user error becomes one line on stderr and an exit code, no traceback."""
    try:
        return func(*args)
    except UserError as exc:
        print(f"error: {exc}", file=sys.stderr)
        raise SystemExit(exc.exit_code) from None
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        raise SystemExit(130) from None


def _count_option(name, value):
    if value is None:
        return None
    try:
        return int(value)
    except ValueError:
        raise UserError(f"--{name}: expected a whole number >= 1, got {value!r}") from None


def recipe_run(name, quick, profile, repeats, duration, warmup, mysqld, workdir, dry_run, seed,
               variant=None, devices=(), destroy_data=False):
    if quick and profile and profile != "quick":
        raise UserError("--quick and --profile disagree; give one of them")
    opts = runner.Options(
        profile="quick" if quick else (profile or "full"),
        repeats=_count_option("repeats", repeats),
        duration=duration, warmup=warmup,
        mysqld=mysqld, workdir=Path(workdir) if workdir else None, dry_run=dry_run,
        seed=int(seed), devices=tuple(devices), destroy_data=destroy_data)
    runner.run_all(name, opts, variant, say)


def recipe_list(recipes_dir=recipes.RECIPES_DIR, say=print):
    rows = [["recipe", "question", "needs", "estimated time per profile"]]
    for name in recipes.list_names(recipes_dir):
        try:
            variants = recipes.load_all(name, recipes_dir)
        except UserError as exc:
            rows.append([name, f"INVALID: {exc}", "", ""])
            continue
        r = variants[0]
        times = ", ".join(f"{p} {human_seconds(s)}"
                          for p, s in planner.profile_estimates(variants).items())
        also = f" (variants: {', '.join(v.variant for v in variants[1:])})" if variants[1:] else ""
        rows.append([name + also, r.question, ", ".join(r.needs) or "-", times])
    say(table(rows))
    say("\nestimates exclude the one-off template build; `invoke recipe NAME --dry-run` shows "
        "the full plan")


def data_check(paths, say=print):
    """Check result files (datacheck): one line per problem naming the file and the JSON path."""
    files = check.result_files(paths)
    problems = check.check_paths(files)
    for line in problems:
        say(line)
    say(f"{plural(len(files), 'result file')} checked, {plural(len(problems), 'problem')}")
    if problems:
        raise SystemExit(1)


def data_submit(path, description=None, keep_paths=False, data_dir=None, say=print):
    """Prepare a result file for a pull request (submit.py): check it, replace the paths that
    name the user, mark it contributed, write it into data/<recipe>/, print the git commands."""
    from tuninglab.contrib import submit
    submit.submit(path, description, keep_paths, Path(data_dir) if data_dir else document.DATA_DIR,
                  say)


def plural(n: int, noun: str) -> str:
    return f"{n} {noun}{'' if n == 1 else 's'}"


def docs_build(site_dir=None, say=print):
    from tuninglab.site import builder
    out = builder.build(Path(site_dir) if site_dir else builder.SITE_DIR)
    say(f"site built: open {out.resolve() / 'index.html'} "
        "(or `invoke docs.serve` for http://127.0.0.1:8000)")


def docs_serve(address):
    from tuninglab.site import builder
    builder.serve(address)


def lab_check(workdir=None, say=print):
    from tuninglab.engine.storage import check
    say(check.report(Path(workdir) if workdir else files.default_workdir()))


def lab_clean(workdir=None, say=print):
    """Remove what a killed run left: its servers, then its mounts, loop devices and files."""
    from tuninglab.engine.storage import sandbox
    wd = (Path(workdir) if workdir else files.default_workdir()).resolve()
    if not wd.exists():
        say(f"nothing to clean: {wd} does not exist")
        return
    with workdir_mod.held(wd):
        for pid in runner.reap_stale_servers(wd):
            say(f"stopped server pid {pid}")
        done = sandbox.clean(wd)
        jobs = wd / "vm" / "jobs"
        if jobs.is_dir() and any(jobs.iterdir()):
            shutil.rmtree(jobs)
            done.append(f"removed the lab VM's job files in {jobs}")
    for line in done:
        say(line)
    say(f"clean: {len(done)} resources removed from {wd}" if done else f"clean: nothing left in {wd}")


def bench(only=None, say=print):
    """Speed targets as ratios. Run it on a quiet machine: other work measures itself."""
    if only not in (None, "site", "scale", "engine", "sandbox", "vm", "tpcc"):
        raise UserError("--only: expected site, scale, engine, sandbox, vm or tpcc, "
                        f"got {only!r}")
    if only in (None, "sandbox"):
        say("== sandbox")
        bench_sandbox(say)
    if only in (None, "vm"):
        say("== lab VM")
        bench_vm(say)
    if only in (None, "site"):
        from tuninglab.bench import site
        say("== site")
        site.run(say)
    if only in (None, "scale"):
        from tuninglab.bench import scale
        say("== site with 1,000 contributed results")
        scale.run(say)
    if only in (None, "tpcc"):
        from tuninglab.bench import tpcc
        say("== TPC-C-like workload")
        tpcc.run(say)
    if only in (None, "engine"):
        say("== engine")
        bench_engine(say)


def bench_sandbox(say=print):
    """Setting up one sandboxed point: loop device, mkfs, mount, and the disk-bound template
    copied onto it (target: at most 5 s for a 2 GB sandbox), per filesystem."""
    from tuninglab.engine.storage.sandbox import Sandbox, Spec, require_root
    require_root("the sandbox benchmark")
    plan, binary = runner.prepare("filesystems", runner.Options(profile="quick"))
    data = _template_for(plan, binary, say)
    with workdir_mod.held(files.default_workdir()) as wd:
        for fs in ("ext4", "xfs", "btrfs"):
            started = time.monotonic()
            with Sandbox(wd, Spec(filesystem=fs, size="2G"), name=f"bench-{fs}") as box:
                datadir.clone(data, box.mountpoint / "data")
                seconds = time.monotonic() - started
            say(f"{fs} sandbox setup with the {workdir_mod.dir_bytes(data) / 2**20:.0f} MiB datadir: "
                f"{seconds:.2f}s, {seconds / 5:.2f} of the 5 s target")


def bench_vm(say=print):
    """The lab VM: image build cold (in a scratch directory) and cached, an empty boot, and
    one RAID run's overhead over its workload (boot, array, copy, server start)."""
    from tuninglab.engine.lab import image, qemu
    scratch = Path(tempfile.mkdtemp(prefix="bench-vm-", dir=files.default_workdir()))
    try:
        started = time.monotonic()
        image.ensure(scratch, say=lambda _line: None)
        cold = time.monotonic() - started
        started = time.monotonic()
        built = image.ensure(scratch)
        cached = time.monotonic() - started
        say(f"image build: cold {cold:.0f}s ({cold / 180:.2f} of a 3 min target), "
            f"cached {cached:.3f}s")
        accel = qemu.accelerator(built, scratch, say)
        boot = qemu.probe(built, accel, scratch / "vm")
        if boot:
            say(f"empty boot under {accel}: kernel to init {boot.boot_seconds:.1f}s, power-on to "
                f"power-off {boot.seconds:.1f}s ({boot.seconds / 10:.2f} of a 10 s target)")
        else:
            say(f"empty boot under {accel}: did not finish")
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    opts = runner.Options(profile="quick", repeats=1,
                          data_dir=Path(tempfile.mkdtemp(prefix="bench-data-")))
    plan, binary = runner.prepare("raid-chunk", opts)
    _template_for(plan, binary, say)
    m = plan.experiment.measure
    started = time.monotonic()
    runner.run("raid-chunk", opts, say=lambda _line: None)
    per_run = (time.monotonic() - started) / len(plan.runs)
    overhead = per_run - m.warmup - m.duration
    say(f"raid-chunk --quick, one run in the VM: {per_run:.0f}s for {m.warmup + m.duration:.0f}s "
        f"of workload; overhead {overhead:.0f}s per run ({overhead / 30:.2f} of a 30 s target)")


def _template_for(plan, binary, say) -> Path:
    """Build (or find) the plan's template first, so benchmarks time only what they measure."""
    with workdir_mod.held(files.default_workdir()) as wd:
        return datadir.ensure(wd, binary, plan.experiment.dataset,
                               plan.experiment.workload.threads, say)


def bench_engine(say=print):
    """Planned time per profile, then doublewrite --quick for real (harness overhead, the
    baseline's interval)."""
    say("planned time per profile, as a share of its budget (quick 5 min, full 30 min):")
    for name in recipes.list_names():
        estimates = planner.profile_estimates(recipes.load_all(name))
        for profile, budget in (("quick", 300), ("full", 1800)):
            estimate = estimates[profile]
            say(f"  {name:26} {profile:5} {human_seconds(estimate):>7}  {estimate / budget:.2f}")
    opts = runner.Options(profile="quick", data_dir=Path(tempfile.mkdtemp(prefix="bench-data-")))
    plan, binary = runner.prepare("doublewrite", opts)
    m = plan.experiment.measure
    say("\ndoublewrite --quick for real (the template is built first and not counted):")
    _template_for(plan, binary, say)
    started = time.monotonic()
    path = runner.run("doublewrite", opts, say)
    wall = time.monotonic() - started
    doc = json.loads(Path(path).read_text())
    workload = len(plan.runs) * (m.warmup + m.duration)
    base = stats.Summary(**document.point(doc, doc["sweep"]["baseline"])["stats"]["tps"])
    say(f"wall time {wall:.1f}s, of which warm-up + measured {workload:.0f}s")
    say(f"harness overhead: {(wall - workload) / wall:.3f} of wall time (target <= 0.10)")
    say(f"quick profile time: {wall / 300:.2f} of the 5-minute budget (target <= 1.00)")
    say(f"baseline 95% CI half-width: {base.half_width_pct():.2f}% of the median (target <= 3%)")
    say(f"(result kept out of data/: {path})")
