"""The precision benchmark (issue 17's targets), measured side by side in one sitting on this host:
a switchback A/B (innodb_flush_log_at_trx_commit 1 vs 2), a switchback A/A (a setting that does
nothing to throughput, switched all the same), a disk-bound switchback A/A twice (its loop
device buffered, as before, then with direct IO: issue 38), a restart A/B (doublewrite
--quick), and the duets of bench/duet.py (A/B, CPU- and disk-bound A/As, and doublewrite,
both points at once).
Each prints its interval's half-width, its wall time and, for the CPU-bound A/A, how often it
would call two equal settings faster or slower, as ratios to the targets; the A/As of 5
minutes side by side. About 75 minutes."""

import json
import os
import random
import statistics
import tempfile
import time
from contextlib import contextmanager
from datetime import datetime
from pathlib import Path

from tuninglab.bench import duet, template
from tuninglab import calibrate
from tuninglab.engine.run import preflight, runner
from tuninglab.engine.storage import loop
from tuninglab.results import stats
from tuninglab.results.metrics import COST, METRICS
from tuninglab.results.result import Point, Result
from tuninglab.units import human_seconds

# The switchback recipes, written to a scratch recipes directory: the shape, load and blocks
# of flush-log-at-trx-commit's quick profile, with two points and the rounds 5 minutes allow.
# (name, the sweep, rounds)
AB = ("precision-ab", {"setting": "innodb_flush_log_at_trx_commit", "values": "1, 2",
                       "baseline": "1"}, 20)
AA = ("precision-aa", calibrate.A_A, 40)
TRIAL_ROUNDS = 20      # an A/A trial: as many rounds as the A/B
TRIALS = 1000
TARGETS = {"switchback_pct": 3.0, "switchback_s": 300.0, "restart_pct": 5.0,
           "restart_s": 600.0, "cost_pct": 1.0, "false_verdicts": 0.05,
           "disk_switchback_pct": 5.0, "disk_switchback_s": 300.0}

# The disk-bound switchback A/A: io-schedulers' shape, load and sandbox (ext4 on a 2G loop
# device, oltp_read_write at 4 threads on the disk-bound shape, the server's memory capped),
# with calibrate's A/A setting switched between blocks of 5 s: 20 rounds after a 30 s warm-up,
# 5 minutes. Every block still takes the storage step of a queue setting's switchback (its
# state read back; on a buffered loop device the page cache dropped). No queue setting makes an
# honest A/A: each scheduler and read-ahead size does something, and a sweep's two values
# differ. Measured twice, under two names (a killed bench never resumes one as the other):
# the loop device buffered as before (the engine's switch, engine/storage/loop.py), then with
# direct IO.
DISK_ROUNDS = 20
DISK_AA = {"buffered": "precision-disk-aa-buffered", "direct IO": "precision-disk-aa-direct"}
# Its tables beside calibrate's scratch recipe: the regime check and the sandbox.
DISK_TABLES = duet.DISK_TABLES


def run(say=print):
    scratch = Path(tempfile.mkdtemp(prefix="bench-precision-"))
    recipes = scratch / "recipes"
    for name, sweep, rounds in (AB, AA):
        (recipes / name).mkdir(parents=True)
        (recipes / name / "recipe.toml").write_text(recipe_text(sweep, rounds))
    write_disk_recipes(recipes)
    ab, ab_wall = _measure(AB[0], scratch, say, recipes)
    aa, aa_wall = _measure(AA[0], scratch, say, recipes)
    disk = measure_disk_aa(scratch, recipes, say)
    restart, restart_wall = _measure("doublewrite", scratch, say)
    duets = duet.measure_all(say)
    say("")
    _report_ab(ab, ab_wall, say)
    _report_aa(aa, aa_wall, say)
    report_aa_side_by_side(aa, aa_wall, disk, say)
    _report_restart(restart, restart_wall, say)
    _report_costs(ab, say)
    say("duets, both points at once on twin servers (the same targets):")
    for line in duets:
        say(f"  {line}")
    say(f"(results kept out of data/: {scratch})")


def recipe_text(sweep: dict, rounds: int) -> str:
    return calibrate.scratch_recipe("switchback", 20, 5, rounds,
                                f"{sweep['setting']}: {sweep['values']}",
                                "How precise is a switchback on this host?", **sweep)


def write_disk_recipes(recipes: Path) -> None:
    for how, name in DISK_AA.items():
        (recipes / name).mkdir(parents=True, exist_ok=True)
        (recipes / name / "recipe.toml").write_text(calibrate.scratch_recipe(
            "switchback", 30, 5, DISK_ROUNDS,
            f"Disk-bound A/A ({how}): innodb_lock_wait_timeout 50 vs 51",
            "How precise is a disk-bound switchback on this host?", topic="io-schedulers",
            shape="disk-bound", script="oltp_read_write", tables=DISK_TABLES))


def measure_disk_aa(scratch: Path, recipes: Path, say) -> dict:
    """The disk-bound A/A before (its loop device buffered) and after (direct IO): {how:
    (result, wall time)}."""
    out = {}
    for how, name in DISK_AA.items():
        with loop_attached(buffered=how == "buffered"):
            out[how] = _measure(name, scratch, say, recipes)
    return out


@contextmanager
def loop_attached(buffered: bool):
    """The engine's switch for a buffered loop device (engine/storage/loop.py), set or unset
    for the runs inside, and as it was after."""
    before = os.environ.pop(loop.BUFFERED_ENV, None)
    if buffered:
        os.environ[loop.BUFFERED_ENV] = "1"
    try:
        yield
    finally:
        os.environ.pop(loop.BUFFERED_ENV, None)
        if before is not None:
            os.environ[loop.BUFFERED_ENV] = before


def _measure(name, scratch: Path, say, recipes_dir=None):
    """One recipe's quick (or only) profile for real, its template built first and not counted;
    the result and the wall time."""
    opts = runner.Options(profile="quick" if recipes_dir is None else "full",
                          data_dir=scratch / "data",
                          **({"recipes_dir": recipes_dir} if recipes_dir else {}))
    prepared = preflight.prepare_named(name, opts)
    plan, binary = prepared.plan, prepared.binary
    say(f"\n{name}: the template is built first and not counted")
    template.ensure(plan, binary, say)
    started = time.monotonic()
    path = runner.run(name, opts, say, prepared)
    return json.loads(Path(path).read_text()), time.monotonic() - started


def _other(doc: dict) -> Point:
    return next(p for p in Result(doc).points if not p.is_baseline)


def _report_ab(doc, wall, say, what=None, target_pct="switchback_pct",
               target_s="switchback_s"):
    """An A/B's ratio, its half-width and its wall time as ratios to the design's targets."""
    r, result = _other(doc).ratio, Result(doc)
    hw = r.half_width_pct
    what = what or f"switchback A/B ({result.title}, {result.repeats} rounds)"
    say(f"{what}: {r.text(3, sep=', ', decided=False)}")
    say(f"  half-width {hw:.1f}%: {hw / TARGETS[target_pct]:.2f} of the "
        f"{TARGETS[target_pct]:g}% target; wall {human_seconds(wall)}: "
        f"{wall / TARGETS[target_s]:.2f} of {TARGETS[target_s] / 60:g} minutes")


def false_verdict_rate(doc: dict, rounds: int = TRIAL_ROUNDS, trials: int = TRIALS,
                       seed: int = 1) -> float:
    """How often an A/A result's trials of `rounds` rounds are called faster or slower: each
    trial draws rounds at random from the result and, as both points run the same thing,
    swaps the two blocks of each round with even odds (the pairs stay pairs)."""
    pairs = _pairs(doc)
    if len(pairs) < rounds:
        raise ValueError(f"{len(pairs)} rounds, fewer than a trial's {rounds}")
    rng, called = random.Random(seed), 0
    for _ in range(trials):
        drawn = [p if rng.random() < 0.5 else p[::-1] for p in rng.sample(pairs, rounds)]
        kind = stats.compare_paired([a for a, _ in drawn], [b for _, b in drawn]).verdict_kind
        called += kind in (stats.FASTER, stats.SLOWER)
    return called / trials


def _pairs(doc: dict) -> list[tuple[float, float]]:
    """(the other point's, the baseline's) metric in each round, in the rounds' order."""
    result = Result(doc)
    name = result.metric
    base = {r["repeat"]: r["summary"][name] for r in result.baseline_point.runs}
    other = {r["repeat"]: r["summary"][name] for r in _other(doc).runs}
    return [(other[k], base[k]) for k in sorted(base) if k in other]


def _report_aa(doc, wall, say):
    r, result = _other(doc).ratio, Result(doc)
    hw = r.half_width_pct
    rate = false_verdict_rate(doc)
    say(f"switchback A/A ({result.title}, {result.repeats} rounds, {human_seconds(wall)}): "
        f"{r.text(3, sep=', ', decided=False)}; half-width {hw:.1f}%")
    say(f"  called faster or slower in {rate:.1%} of {TRIALS} trials of {TRIAL_ROUNDS} rounds "
        f"drawn from it: {rate / TARGETS['false_verdicts']:.2f} of the 5% target")


def report_aa_side_by_side(aa, aa_wall, disk: dict, say) -> None:
    """The A/As of 5 minutes side by side, each against its target: the CPU-bound one's first
    rounds (as many as the disk-bound one's), and the disk-bound one before and after."""
    say(f"switchback A/A, {DISK_ROUNDS} rounds of 5 s blocks, each against its target:")
    cpu, cpu_wall = first_rounds(aa, aa_wall, DISK_ROUNDS)
    _aa_line(f"CPU-bound (the A/A above, its first {DISK_ROUNDS} rounds)", cpu, cpu_wall,
             "switchback", say)
    after = None
    for how, (doc, wall) in disk.items():
        compared = _compare_rounds(_pairs(doc))
        _aa_line(f"disk-bound, loop device {how}", compared, wall, "disk_switchback", say)
        say(f"    {_disk_facts(doc)}")
        after = compared
    ratio = _half_width(after) / _half_width(cpu)
    say(f"  disk-bound with direct IO against CPU-bound, half-width: {ratio:.2f} (no wider: "
        "1.00 or less)")


def first_rounds(doc: dict, wall: float, rounds: int):
    """What an A/A of its first `rounds` rounds gives, and the wall time to their end (the
    whole wall less the time the later rounds took)."""
    ends = _round_ends(doc)
    later = ends[max(ends)] - ends[rounds] if rounds in ends else 0.0
    return _compare_rounds(_pairs(doc)[:rounds]), wall - later


def _round_ends(doc: dict) -> dict[int, float]:
    """Each round's end (its last block's), in seconds since the epoch."""
    ends = {}
    for p in doc["points"]:
        for run in p["runs"]:
            t = datetime.fromisoformat(run["finished"]).timestamp()
            ends[run["repeat"]] = max(ends.get(run["repeat"], t), t)
    return ends


def _compare_rounds(pairs: list) -> stats.Comparison:
    return stats.compare_paired([a for a, _ in pairs], [b for _, b in pairs])


def _half_width(c: stats.Comparison) -> float:
    return stats.ratio_half_width_pct(c.to_dict())


def _aa_line(what: str, c: stats.Comparison, wall: float, target: str, say) -> None:
    pct, seconds = TARGETS[f"{target}_pct"], TARGETS[f"{target}_s"]
    hw = _half_width(c)
    say(f"  {what}: x{c.ratio:.3f} [{c.ci_low:.3f}, {c.ci_high:.3f}] ({c.verdict_kind})")
    say(f"    half-width {hw:.1f}%: {hw / pct:.2f} of the ±{pct:g}% target; wall "
        f"{human_seconds(wall)}: {wall / seconds:.2f} of {seconds / 60:g} minutes")


def _disk_facts(doc: dict) -> str:
    """The loop device as the runs recorded it, how much throughput climbs inside a block (the
    ramp of a block that starts with the page cache dropped) and InnoDB's reads."""
    runs = [run for p in doc["points"] for run in p["runs"]]
    modes = {(run.get("storage") or {}).get("loop_direct_io") for run in runs}
    recorded = {frozenset({True}): "direct IO", frozenset({False}): "buffered"}.get(
        frozenset(modes), f"mixed or unrecorded ({sorted(map(str, modes))})")
    climbs = [c for c in map(block_climb, runs) if c is not None]
    reads = [r["summary"].get("cost", {}).get("server_read_bytes_per_trx") for r in runs]
    reads = [x for x in reads if x is not None]
    climb = (f"a block's throughput climbs {statistics.median(c for c, _ in climbs):+.0f} tps "
             f"({statistics.median(p for _, p in climbs):+.1f}%) from its first 2 s to its last "
             "2 (median)") if climbs else "no block long enough to see a climb"
    read = f"; InnoDB read {statistics.median(reads) / 1024:.1f} KiB a transaction" if reads \
        else ""
    return f"recorded: {recorded}; {climb}{read}"


def block_climb(run: dict) -> tuple[float, float] | None:
    """How much a block's throughput rises from its first 2 measured seconds to its last 2:
    in tps, and as % of the block's mean; None for a block of fewer than 4 seconds."""
    tps = [x for x in run.get("series", {}).get("tps", []) if x is not None]
    if len(tps) < 4:
        return None
    rise = statistics.fmean(tps[-2:]) - statistics.fmean(tps[:2])
    mean = statistics.fmean(tps)
    return rise, (rise / mean * 100 if mean else 0.0)


def _report_restart(doc, wall, say):
    _report_ab(doc, wall, say, f"restart A/B (doublewrite --quick, {Result(doc).repeats} "
               "repeats)", "restart_pct", "restart_s")


def _report_costs(doc, say):
    say("costs per transaction in the switchback A/B, half-width of each ratio (target 1%):")
    other = _other(doc)
    for key in COST:
        ratio = other.cost_ratio(key)
        if ratio and ratio.ci_low is not None:
            hw = ratio.half_width_pct
            say(f"  {METRICS[key].label:45} {hw:6.2f}%  {hw / TARGETS['cost_pct']:.2f}")
