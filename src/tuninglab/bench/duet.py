"""The duet benchmark (issue 62): what a duet (engine/run/duet.py) gives on this host, as
ratios to the targets the other designs have in the precision benchmark. Each duet is two
repeats (four halves: one repeat has no interval, results/duet.py). A CPU-bound duet A/B
(innodb_flush_log_at_trx_commit 1 vs 2, the switchback A/B's shape and load) in about 5
minutes; a CPU-bound duet A/A (innodb_lock_wait_timeout 50 vs 51) of AA_HALVES halves, whose
first four are the 5-minute A/A and whose every four (two in each placement) are a trial of
that shape: how often those trials call two equal settings faster or slower, against the 5%
target; a disk-bound duet A/A (the precision benchmark's disk-bound shape, load and sandbox,
each server on its own direct-IO loop device) against the disk-bound target; and a duet of a
setting read only at startup, doublewrite ON vs OFF on its disk-bound shape, in about 10.
About 40 minutes, templates first."""

import itertools
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
from tuninglab.results import duet as compare
from tuninglab.results import stats
from tuninglab.units import human_seconds

# Each half: the warm-up and the measured seconds; REPEATS of two halves each.
CPU_HALF = (20, 55)         # four halves in about 5 minutes
RESTART_HALF = (30, 115)    # four halves in about 10 minutes
DISK_HALF = (30, 45)        # as the disk-bound switchback A/A: 30 s warm-ups, 5 minutes
REPEATS = 2
TARGETS = {"cpu": (3.0, 300.0), "disk": (5.0, 300.0),
           "restart": (5.0, 600.0)}   # (half-width %, wall seconds)
FALSE_CALLS = 0.05   # the A/A's trials called faster or slower at most this often
AA_HALVES = 8        # 420 trials: every two halves in one placement and two in the other
AB = {"setting": "innodb_flush_log_at_trx_commit", "values": "1, 2", "baseline": "1"}
# The disk-bound A/A's tables beside calibrate's scratch recipe (the precision benchmark's
# disk-bound switchback A/A has the same): its regime check and its sandbox, one per server.
DISK_TABLES = """[[regime]]
metric = "server_read_bytes_per_trx"
at_least = 16
why = "InnoDB's page reads reach the device"

[storage]
filesystem = "ext4"
size = "2G"

"""


def run(say=print):
    lines = measure_all(say)
    say("")
    for line in lines:
        say(line)


def measure_all(say) -> list[str]:
    """Each duet measured, its report said as it ends; all the reports' lines."""
    scratch = Path(tempfile.mkdtemp(prefix="bench-duet-"))
    write_recipes(scratch)
    duets = [("CPU-bound duet A/B (flush_log_at_trx_commit 2 vs 1)", "cpu",
              load("duet-ab", scratch), "full", CPU_HALF, REPEATS),
             ("CPU-bound duet A/A (lock_wait_timeout 51 vs 50)", "cpu",
              load("duet-aa", scratch), "full", CPU_HALF, AA_HALVES // 2),
             ("disk-bound duet A/A (lock_wait_timeout 51 vs 50, direct-IO loop devices)",
              "disk", load("duet-disk-aa", scratch), "full", DISK_HALF, REPEATS),
             ("restart-only duet (doublewrite OFF vs ON, disk-bound)", "restart",
              load("doublewrite"), "quick", RESTART_HALF, REPEATS)]
    lines = []
    for label, target, recipe, profile, half, repeats in duets:
        halves, walls = measure(recipe, profile, half, say, repeats)
        kept = scratch / f"{recipe.name}.json"   # each duet's records, kept as it ends
        kept.write_text(json.dumps({"halves": halves, "wall_s": walls}))
        # the first REPEATS are the duet of 5 (or 10) minutes; an A/A's every four a trial
        said = report(label, halves[:2 * REPEATS], sum(walls[:REPEATS]), TARGETS[target])
        if len(halves) > 2 * REPEATS:
            said += [false_calls_text(halves)]
        lines += said + [f"  (its records: {kept})"]
        say("\n".join(lines[-len(said) - 1:]))
    return lines


def write_recipes(scratch: Path) -> None:
    """The scratch recipes of the A/B and the two A/As (doublewrite is the project's)."""
    for name, sweep, what, extra in (
            ("duet-ab", AB, "A/B", {}), ("duet-aa", calibrate.A_A, "A/A", {}),
            ("duet-disk-aa", calibrate.A_A, "disk-bound A/A",
             {"topic": "io-schedulers", "shape": "disk-bound", "script": "oltp_read_write",
              "tables": DISK_TABLES})):
        (scratch / name).mkdir(parents=True)
        (scratch / name / "recipe.toml").write_text(calibrate.scratch_recipe(
            "restart", *(DISK_HALF if "disk" in name else CPU_HALF), 1,
            f"Duet {what}: {sweep['setting']} {sweep['values']}",
            "How precise is a duet on this host?", **sweep, **extra))


def measure(recipe, profile: str, half: tuple, say, repeats: int = 1) -> tuple[list, list]:
    """`repeats` duets of two halves of the recipe's baseline and its other point (the first
    that is not the baseline), each half `half` = (warm-up, measured) seconds; the halves in
    order and each repeat's wall time."""
    warmup, seconds = half
    opts = runner.Options(profile=profile, repeats=1, duration=seconds, warmup=warmup)
    plan, binary, _ = preflight.prepare(recipe, opts)
    e = plan.experiment
    base = next(p for p in plan.points if p.value == e.sweep.baseline)
    tested = next(p for p in plan.points if p is not base)
    say(f"\n{recipe.label}: {tested.value} against {base.value}, {2 * repeats} halves; the "
        "template is built first and not counted")
    data = template.ensure(plan, binary, say)
    wd = files.default_workdir().resolve()
    clock = Progress(2 * repeats, 0, warmup + seconds, say)
    halves, walls = [], []
    with workdir.held(wd), runner.signals_interrupt():
        runs_dir = wd / "runs"
        runs_dir.mkdir(exist_ok=True)
        for repeat in range(1, repeats + 1):
            started = time.monotonic()
            halves += duet.halves(tested, base, repeat, binary, data, runs_dir, e, clock)
            walls.append(time.monotonic() - started)
    return halves, walls


def false_calls(halves: list[dict]) -> tuple[int, int]:
    """(how many trials call an A/A's settings faster or slower, how many trials): a trial is
    four of its halves, two with each setting in the first place, as the A/B's duet has them;
    both settings run the same thing, so a half may stand for either placement (its two
    series swapped). Every such choice is one trial; they share halves, so the trials are not
    independent, and the count is a check, not a precise rate."""
    sides = [duet.paired(h, first=i % 2 == 0) for i, h in enumerate(halves)]
    called = trials = 0
    for four in itertools.combinations(range(len(sides)), 2 * REPEATS):
        for firsts in itertools.combinations(four, REPEATS):
            try:
                c = compare.compare_duet([_placed(sides[i], i in firsts) for i in four])
            except ValueError:   # a whole batch with nothing on one side: no trial
                continue
            called += c.comparison.verdict_kind in (stats.FASTER, stats.SLOWER)
            trials += 1
    return called, trials


def _placed(half: compare.Half, first: bool) -> compare.Half:
    """An A/A half with the tested side in the place asked (its series swapped if need be)."""
    return half if half.first == first else compare.Half(half.baseline, half.values, first)


def false_calls_text(halves: list[dict]) -> str:
    called, trials = false_calls(halves)
    if not trials:
        return "  no trial: every four halves had a batch with nothing on one side"
    rate = called / trials
    return (f"  called faster or slower in {called} of {trials} trials (every four of its "
            f"{len(halves)} halves, two in each placement): {rate:.1%}, {rate / FALSE_CALLS:.2f} "
            f"of the {FALSE_CALLS:.0%} target")


def report(label: str, halves: list, wall: float, target: tuple) -> list[str]:
    """The duet's ratio, interval, placement, half-width and wall time against the target."""
    pct, seconds = target
    try:
        c = duet.comparison(halves)
    except ValueError as exc:   # a whole batch with nothing on one side
        return [f"{label}: no comparison ({exc})", "", ""]
    r = c.comparison
    hw = stats.ratio_half_width_pct(r.to_dict())
    tps = [sum(h[s]["summary"]["tps"] for h in halves) / len(halves)
           for s in ("tested", "baseline")]
    return [f"{label}: x{r.ratio:.3f} [{r.ci_low:.3f}, {r.ci_high:.3f}] ({r.verdict_kind}); "
            f"placement x{c.placement:.3f}; batches of {c.batch_seconds} s",
            f"  half-width {hw:.1f}%: {hw / pct:.2f} of the ±{pct:g}% target; wall "
            f"{human_seconds(wall)}: {wall / seconds:.2f} of {seconds / 60:g} minutes",
            f"  mean tps, tested {tps[0]:,.0f}, baseline {tps[1]:,.0f} (each server on "
            f"{len(halves[0]['cpus']['tested'])} CPU)"]
