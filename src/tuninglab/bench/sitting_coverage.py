"""The sitting model's coverage check (results/sitting_model.py, what the verdicts pool by): its coverage and median half-width by true between-sitting spread and number of
sittings, for results as noisy as the committed ones and for precise ones, a class calibrated by
CALIBRATIONS sittings and by 2, pooling.pool's beside; a switchback's results there carry the
per-run excess the committed switchback A/As show (SIM_EXCESS), which their paired se does not
see. On real records (MIN_SITTINGS of them), its coverage beside pooling.pool's. And how long it
takes to pool a claim.

`invoke bench --only pooling` prints pooling_coverage's figures (pooling.pool's), then these,
then effect_spread's (the committed calibrations held fixed, the effect differing between
machines); the simulation's pieces (committed_noise, simulate, aa_calibration) are pooling_coverage's."""

from __future__ import annotations

import math
import random
import statistics
import time
from dataclasses import dataclass

from tuninglab.bench import effect_spread, pooling_coverage
from tuninglab.bench.pooling_coverage import (CALIBRATIONS, DATA_DIR, MAX_SITTINGS, MIN_SITTINGS,
                                              PRECISE_SE, TARGET, Noise, aa_calibration,
                                              committed_noise, draw, standard_error)
from tuninglab.results import calibrations, pooling, sitting_model
from tuninglab.results.pooling import Estimate

# The sitting model's check (issue 59): true spreads, sittings (one result each) and the class's
# calibration sittings it is shown for, and the coverage each spread up to needs.
MODEL_TRIALS = 500
MODEL_SPREADS = (0.01, 0.03, 0.05, 0.10)
MODEL_SITTINGS = (1, 3, 6)
MODEL_CALIBRATIONS = (CALIBRATIONS, 2)
MODEL_TARGETS = ((0.05, 0.95), (0.10, 0.90))
# A figure under its target is drawn again with this many times its trials (fresh draws) and
# judged on all of them: among 48 figures of 500 trials, one falls 2.4 sampling errors short by
# chance about every third run (precise results, 6 calibration sittings, spread 5%, 3 sittings
# read 0.926 on seed 1's first 500 trials and 0.953-0.967 on 2000 of each of seeds 1-4).
CONFIRM_FACTOR = 4
RECORD_MODEL_TRIALS = 200
# A switchback result's per-run excess (sd, log scale), beyond what its paired se says: the
# committed switchback A/As scatter about 3% more than their se (one host's, an hour apart,
# +5.2% at z = 3.9 and -1.7%); the restarts' do not.
SIM_EXCESS = 0.03
SPEED_TARGET = 0.050    # seconds to pool one claim (the site pools ~100 per build)


def run(say=print):
    """pooling.pool's figures (pooling_coverage.run), then the sitting model's: on real records
    where there are enough, and always on simulated claims."""
    pooling_coverage.run(say)
    started = time.perf_counter()
    records = calibrations.load_all(DATA_DIR)
    if len({r["host"]["id"] for r in records}) >= MIN_SITTINGS:
        say(f"the sitting model on the same calibration records ({RECORD_MODEL_TRIALS} trials "
            "per k), pooling.pool's beside:")
        for k in pooling_coverage.KS:
            new, old = record_model_coverage(records, k)
            say(f"  k={k}: {new:.3f} ({new / TARGET:.2f}); pooling.pool {old:.3f}")
    sitting_model_check(say, committed_noise())
    effect_spread.run(say)
    say(f"(the sitting model's checks in {time.perf_counter() - started:.0f} s)")


@dataclass(frozen=True)
class Cell:
    """One figure of the sitting model's check: its coverage of the 95% interval and median
    half-width (log scale), pooling.pool's on the same trials, and the sitting model's pooling
    times (seconds, the calibration part computed each time)."""
    coverage: float
    half_width: float
    old_coverage: float
    old_half_width: float
    seconds: tuple[float, ...]
    trials: int = MODEL_TRIALS


def _half_width(p: pooling.Pooled) -> float:
    return (math.log(p.ci_high) - math.log(p.ci_low)) / 2


def _claim(rng, noises: list[Noise], sittings: int, spread: float,
           excess: float) -> tuple[list[Estimate], list[bool]]:
    """A simulated A/A claim: one result per sitting, each sitting's deviation N(0, spread^2)."""
    estimates, paired = [], []
    for s in range(sittings):
        found, noise = draw(rng, noises, rng.gauss(0.0, spread), f"s{s}", excess)
        estimates.append(found)
        paired.append(noise.paired)
    return estimates, paired


def model_coverage(noises: list[Noise], sittings: int, spread: float, calibration_sittings: int,
                   trials: int = MODEL_TRIALS, seed: int = 1,
                   results: list[Noise] | None = None, excess: float = SIM_EXCESS) -> Cell:
    """The sitting model's and pooling.pool's coverage of 1 on the same simulated A/A claims
    (as noisy as `results`, else `noises`), each with its class's simulated calibration (from
    `noises`, the same spread and excess)."""
    rng = random.Random(seed)
    held = old_held = 0
    widths, old_widths, seconds = [], [], []
    for _ in range(trials):
        estimates, paired = _claim(rng, results or noises, sittings, spread, excess)
        cal, cal_paired = aa_calibration(rng, noises, spread, calibration_sittings, excess)
        start = time.perf_counter()
        new = sitting_model.pool(estimates, cal, paired=paired, calibration_paired=cal_paired)
        seconds.append(time.perf_counter() - start)
        sd, n = calibrations.between_sd_of(cal)
        old = pooling.pool(estimates, sd, f"{n} A/A sittings", between_sittings=n)
        held += new.ci_low <= 1 <= new.ci_high
        old_held += old.ci_low <= 1 <= old.ci_high
        widths.append(_half_width(new))
        old_widths.append(_half_width(old))
    return Cell(held / trials, statistics.median(widths), old_held / trials,
                statistics.median(old_widths), tuple(seconds), trials)


def _confirmed(first: Cell, noises: list[Noise], sittings: int, spread: float, cal: int,
               trials: int, results: list[Noise] | None) -> Cell:
    """A figure under its target drawn again (CONFIRM_FACTOR times its trials, another seed)
    and judged on all its trials: the coverages and half-widths weighted by trials."""
    more = model_coverage(noises, sittings, spread, cal, CONFIRM_FACTOR * trials, seed=2,
                          results=results)
    total = first.trials + more.trials

    def mix(a: float, b: float) -> float:
        return (a * first.trials + b * more.trials) / total
    return Cell(mix(first.coverage, more.coverage), mix(first.half_width, more.half_width),
                mix(first.old_coverage, more.old_coverage),
                mix(first.old_half_width, more.old_half_width), first.seconds, total)


def record_model_coverage(records: list[dict], k: int, trials: int = RECORD_MODEL_TRIALS,
                          seed: int = 1) -> tuple[float, float]:
    """record_coverage's trials (the same draws) pooled by the sitting model, the other
    sittings' records its calibration: (its coverage, pooling.pool's)."""
    by_sitting: dict[str, list[tuple[Estimate, bool]]] = {}
    for e, sb in zip(*sitting_model.calibration_of(records)):
        by_sitting.setdefault(e.sitting, []).append((e, sb))
    names, rng, held, old_held = sorted(by_sitting), random.Random(seed), 0, 0
    for _ in range(trials):
        chosen = rng.sample(names, rng.randint(1, min(k, MAX_SITTINGS, len(names) - 2)))
        pool_of = [pair for s in chosen for pair in by_sitting[s]]
        drawn = rng.sample(pool_of, min(k, len(pool_of)))
        rest = [pair for s in names if s not in chosen for pair in by_sitting[s]]
        sd, sittings = calibrations.between_sd_of([e for e, _ in rest])
        old = pooling.pool([e for e, _ in drawn], sd, "the other sittings",
                           between_sittings=sittings)
        new = sitting_model.pool([e for e, _ in drawn], [e for e, _ in rest],
                                 paired=[sb for _, sb in drawn],
                                 calibration_paired=[sb for _, sb in rest])
        held += new.ci_low <= 1 <= new.ci_high
        old_held += old.ci_low <= 1 <= old.ci_high
    return held / trials, old_held / trials


def _needed(spread: float) -> float:
    """The coverage a true spread needs (MODEL_TARGETS: the first bound at or above it)."""
    return next((c for top, c in MODEL_TARGETS if spread <= top + 1e-12), MODEL_TARGETS[-1][1])


def _cell_text(c: Cell, trials: int) -> str:
    again = f" [{c.trials} trials]" if c.trials != trials else ""
    return (f"{c.coverage:.3f} ({c.coverage / TARGET:.2f}) +-{c.half_width:.1%}{again}  "
            f"old {c.old_coverage:.3f} +-{c.old_half_width:.1%}")


def sitting_model_check(say, noises: list[Noise], trials: int = MODEL_TRIALS) -> list[str]:
    """The sitting model's table (module docstring), then whether each figure meets its target
    and how long pooling a claim took; returns the figures that miss (empty: all met)."""
    error = math.sqrt(TARGET * (1 - TARGET) / trials)
    say(f"the sitting model (results/sitting_model.py, what every verdict pools by): "
        f"simulated A/A claims, one result per sitting, each as noisy as a committed comparison "
        f"(a switchback's also {SIM_EXCESS:.0%} off per run, unseen by its se), with the host "
        f"class's calibration simulated likewise; {trials} trials per figure: coverage of 1 by "
        f"the 95% interval (its ratio to {TARGET:.0%}) and the median half-width, pooling."
        f"pool's as old on the same trials (a coverage's sampling error: +-{error:.3f}; a "
        f"figure under its target drawn {CONFIRM_FACTOR} times as often again and judged on all "
        f"its trials, shown [with their count]); targets: "
        + ", ".join(f"{c:.2f} up to a true spread of {top:.0%}" for top, c in MODEL_TARGETS))
    precise_ones = [n for n in noises if standard_error(n) < PRECISE_SE]
    missed, missed_at, seconds = [], [], []
    for what, results in ((f"the {len(noises)} committed comparisons' noise", None),
                          (f"the {len(precise_ones)} with a standard error under "
                           f"{PRECISE_SE:.0%}", precise_ones)):
        for cal in MODEL_CALIBRATIONS:
            say(f"  {what}, {cal} calibration sittings:")
            for spread in MODEL_SPREADS:
                cells = []
                for n in MODEL_SITTINGS:
                    c = model_coverage(noises, n, spread, cal, trials, results=results)
                    seconds += c.seconds
                    if c.coverage < _needed(spread):
                        c = _confirmed(c, noises, n, spread, cal, trials, results)
                    cells.append(f"{n} sitting{'s' * (n != 1)} {_cell_text(c, trials)}")
                    if c.coverage < _needed(spread):
                        missed_at.append((c.coverage, spread, c.trials))
                        missed.append(f"{what}, {cal} calibration sittings, spread "
                                      f"{spread:.0%}, {n} sittings: {c.coverage:.3f} "
                                      f"of {c.trials} trials")
                say(f"    spread {spread:>3.0%}: " + " | ".join(cells))
    ordered = sorted(seconds)
    typical, slow = statistics.median(ordered), ordered[int(0.99 * (len(ordered) - 1))]
    close = all(c >= _needed(spread) - 2 * math.sqrt(TARGET * (1 - TARGET) / n)
                for c, spread, n in missed_at)
    say("  targets: " + ("met by every figure" if not missed else "missed by " + "; ".join(missed)
                         + (" (each within 2 sampling errors)" if close else "")))
    say(f"  pooling one claim (its calibration part not cached): median {typical * 1e3:.1f} ms, "
        f"99th percentile {slow * 1e3:.1f} ms, {slow / SPEED_TARGET:.2f} of the "
        f"{SPEED_TARGET * 1e3:.0f} ms target")
    return missed
