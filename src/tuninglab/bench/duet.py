"""The duet benchmark (issue 62): what a duet (engine/run/duet.py) gives on this host, as
ratios to the targets the other designs have in the precision benchmark. A CPU-bound duet
A/B (innodb_flush_log_at_trx_commit 1 vs 2, the switchback A/B's shape and load) and A/A
(innodb_lock_wait_timeout 50 vs 51), each of two halves in about 5 minutes; and a duet of a
setting read only at startup, doublewrite ON vs OFF on its disk-bound shape, in about 10.
About 22 minutes, templates first."""

import json
import tempfile
import time
from pathlib import Path

from tuninglab import calibrate, files
from tuninglab.bench import template
from tuninglab.engine.host import workdir
from tuninglab.engine.run import duet, preflight, runner
from tuninglab.engine.run.progress import Progress
from tuninglab.recipes.load import load
from tuninglab.results import stats
from tuninglab.units import human_seconds

# Each half: its servers' start, the warm-up and the measured seconds (seconds).
CPU_HALF = (20, 120)        # two halves in about 5 minutes
RESTART_HALF = (30, 240)    # two halves in about 10 minutes
TARGETS = {"cpu": (3.0, 300.0), "restart": (5.0, 600.0)}   # (half-width %, wall seconds)
AB = {"setting": "innodb_flush_log_at_trx_commit", "values": "1, 2", "baseline": "1"}


def run(say=print):
    lines = measure_all(say)
    say("")
    for line in lines:
        say(line)


def measure_all(say) -> list[str]:
    """Each duet measured, its report said as it ends; all the reports' lines."""
    scratch = Path(tempfile.mkdtemp(prefix="bench-duet-"))
    for name, sweep, what in (("duet-ab", AB, "A/B"), ("duet-aa", calibrate.A_A, "A/A")):
        (scratch / name).mkdir(parents=True)
        (scratch / name / "recipe.toml").write_text(calibrate.scratch_recipe(
            "restart", *CPU_HALF, 1, f"Duet {what}: {sweep['setting']} {sweep['values']}",
            "How precise is a duet on this host?", **sweep))
    duets = [("CPU-bound duet A/B (flush_log_at_trx_commit 2 vs 1)", "cpu",
              load("duet-ab", scratch), "full", CPU_HALF),
             ("CPU-bound duet A/A (lock_wait_timeout 51 vs 50)", "cpu",
              load("duet-aa", scratch), "full", CPU_HALF),
             ("restart-only duet (doublewrite OFF vs ON, disk-bound)", "restart",
              load("doublewrite"), "quick", RESTART_HALF)]
    lines = []
    for label, target, recipe, profile, half in duets:
        halves, wall = measure(recipe, profile, half, say)
        kept = scratch / f"{recipe.name}.json"   # each duet's records, kept as it ends
        kept.write_text(json.dumps({"halves": halves, "wall_s": wall}))
        lines += report(label, halves, wall, TARGETS[target]) + [f"  (its records: {kept})"]
        say("\n".join(lines[-4:]))
    return lines


def measure(recipe, profile: str, half: tuple, say) -> tuple[list, float]:
    """One duet of the recipe's baseline and its other point (the first that is not the
    baseline), each half `half` = (warm-up, measured) seconds; its halves and wall time."""
    warmup, seconds = half
    opts = runner.Options(profile=profile, repeats=1, duration=seconds, warmup=warmup)
    plan, binary, _ = preflight.prepare(recipe, opts)
    e = plan.experiment
    base = next(p for p in plan.points if p.value == e.sweep.baseline)
    tested = next(p for p in plan.points if p is not base)
    say(f"\n{recipe.label}: {tested.value} against {base.value}; the template is built first "
        "and not counted")
    data = template.ensure(plan, binary, say)
    wd = files.default_workdir().resolve()
    clock = Progress(2, 0, warmup + seconds, say)
    started = time.monotonic()
    with workdir.held(wd), runner.signals_interrupt():
        runs_dir = wd / "runs"
        runs_dir.mkdir(exist_ok=True)
        halves = duet.halves(tested, base, 1, binary, data, runs_dir, e, clock)
    return halves, time.monotonic() - started


def report(label: str, halves: list, wall: float, target: tuple) -> list[str]:
    """The duet's ratio, interval, placement, half-width and wall time against the target."""
    pct, seconds = target
    try:
        c = duet.comparison(halves)
    except ValueError as exc:   # a whole batch with nothing on one side
        return [f"{label}: no comparison ({exc})", "", ""]
    r = c.comparison
    hw = stats.ratio_half_width_pct(r.to_dict())
    tps = [sum(h[s]["summary"]["tps"] for h in halves) / 2 for s in ("tested", "baseline")]
    return [f"{label}: x{r.ratio:.3f} [{r.ci_low:.3f}, {r.ci_high:.3f}] ({r.verdict_kind}); "
            f"placement x{c.placement:.3f}; batches of {c.batch_seconds} s",
            f"  half-width {hw:.1f}%: {hw / pct:.2f} of the ±{pct:g}% target; wall "
            f"{human_seconds(wall)}: {wall / seconds:.2f} of {seconds / 60:g} minutes",
            f"  mean tps, tested {tps[0]:,.0f}, baseline {tps[1]:,.0f} (each server on "
            f"{len(halves[0]['cpus']['tested'])} CPU)"]
