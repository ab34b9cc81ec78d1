"""The precision benchmark (issue 17's targets), measured side by side in one sitting on this host:
a switchback A/B (innodb_flush_log_at_trx_commit 1 vs 2), a switchback A/A (a setting that does
nothing to throughput, switched all the same), and a restart A/B (doublewrite --quick). Each
prints its interval's half-width, its wall time and, for the A/A, how often it would call two
equal settings faster or slower, as ratios to the targets. About 20 minutes."""

import json
import random
import tempfile
import time
from pathlib import Path

from tuninglab.bench import template
from tuninglab import calibrate
from tuninglab.engine.run import preflight, runner
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
           "restart_s": 600.0, "cost_pct": 1.0, "false_verdicts": 0.05}


def run(say=print):
    scratch = Path(tempfile.mkdtemp(prefix="bench-precision-"))
    recipes = scratch / "recipes"
    for name, sweep, rounds in (AB, AA):
        (recipes / name).mkdir(parents=True)
        (recipes / name / "recipe.toml").write_text(recipe_text(sweep, rounds))
    ab, ab_wall = _measure(AB[0], scratch, say, recipes)
    aa, aa_wall = _measure(AA[0], scratch, say, recipes)
    restart, restart_wall = _measure("doublewrite", scratch, say)
    say("")
    _report_ab(ab, ab_wall, say)
    _report_aa(aa, aa_wall, say)
    _report_restart(restart, restart_wall, say)
    _report_costs(ab, say)
    say(f"(results kept out of data/: {scratch})")


def recipe_text(sweep: dict, rounds: int) -> str:
    return calibrate.scratch_recipe("switchback", 20, 5, rounds,
                                f"{sweep['setting']}: {sweep['values']}",
                                "How precise is a switchback on this host?", **sweep)


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
    result = Result(doc)
    name = result.metric
    base = {r["repeat"]: r["summary"][name] for r in result.baseline_point.runs}
    other = {r["repeat"]: r["summary"][name] for r in _other(doc).runs}
    pairs = [(other[k], base[k]) for k in sorted(base) if k in other]
    if len(pairs) < rounds:
        raise ValueError(f"{len(pairs)} rounds, fewer than a trial's {rounds}")
    rng, called = random.Random(seed), 0
    for _ in range(trials):
        drawn = [p if rng.random() < 0.5 else p[::-1] for p in rng.sample(pairs, rounds)]
        kind = stats.compare_paired([a for a, _ in drawn], [b for _, b in drawn]).verdict_kind
        called += kind in (stats.FASTER, stats.SLOWER)
    return called / trials


def _report_aa(doc, wall, say):
    r, result = _other(doc).ratio, Result(doc)
    hw = r.half_width_pct
    rate = false_verdict_rate(doc)
    say(f"switchback A/A ({result.title}, {result.repeats} rounds, {human_seconds(wall)}): "
        f"{r.text(3, sep=', ', decided=False)}; half-width {hw:.1f}%")
    say(f"  called faster or slower in {rate:.1%} of {TRIALS} trials of {TRIAL_ROUNDS} rounds "
        f"drawn from it: {rate / TARGETS['false_verdicts']:.2f} of the 5% target")


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
