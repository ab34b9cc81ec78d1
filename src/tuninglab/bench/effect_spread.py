"""The verdicts' coverage as they pool, when a setting's effect differs between machines: the host
class's committed A/A calibrations held fixed (as every verdict holds them), and simulated
claims whose effect moves from machine to machine by a true spread of 0, 3, 5 or 10%, from 1, 3
and 6 machines (sittings).

Each simulated machine deviates by what the class's calibrations say a machine does (tau and a
switchback's per-run excess at their posterior medians) plus the effect's own deviation, and
gives one result as noisy as a committed comparison. The sitting model pools them with the
calibrations (results/sitting_model.py); the figure is how often its 95% interval holds the
true effect, against at least 0.95 up to a 5% spread and 0.90 at 10%. Beside it, the same
trials pooled as if the effect were the same on every machine (delta 0: the model before the
effect's own spread), and the median half-widths of both: what the effect's spread costs."""

from __future__ import annotations

import math
import random
import statistics

from tuninglab.bench.pooling_coverage import DATA_DIR, TARGET, Noise, committed_noise, draw
from tuninglab.evidence.host_class import host_class
from tuninglab.results import calibrations, sitting_model
from tuninglab.results.pooling import Estimate

SPREADS = (0.0, 0.03, 0.05, 0.10)
SITTINGS = (1, 3, 6)
TARGETS = ((0.05, 0.95), (0.10, 0.90))   # (true spread up to, coverage needed)
TRIALS = 600
EFFECT = math.log(1.10)   # the true effect (its value does not matter to the model: flat prior)


def run(say=print, trials: int = TRIALS) -> list[str]:
    """The block (module docstring) for the class with the most calibration machines; returns
    the cells that miss their target (empty: all met)."""
    records = calibrations.load_all(DATA_DIR)
    if not records:
        say("no calibration records in data/calibrations/: nothing to hold fixed")
        return []
    by_class: dict[str, list[dict]] = {}
    for r in records:
        if calibrations.aa_estimates(r):
            by_class.setdefault(host_class(r).key, []).append(r)
    mine = max(by_class.values(), key=lambda rs: len({r["host"]["id"] for r in rs}))
    cal, cal_paired = sitting_model.calibration_of(mine)
    tau, excess = sitting_model.spreads(cal)
    noises = committed_noise()
    error = math.sqrt(TARGET * (1 - TARGET) / trials)
    say(f"the verdicts as they pool, the calibrations held fixed ({host_class(mine[0]).name}: "
        f"{len({r['host']['id'] for r in mine})} machines; a machine's spread {tau:.1%}, a "
        f"switchback's per-run excess {excess:.1%}), the effect itself differing between "
        f"machines by the spread shown; {trials} trials a cell (sampling error +-{error:.3f}): "
        "coverage of the true effect (its ratio to 95%), median half-width, and beside them "
        "the same trials as if the effect were the same everywhere (delta 0); targets: "
        + ", ".join(f"{c:.2f} up to a spread of {top:.0%}" for top, c in TARGETS))
    missed = []
    for spread in SPREADS:
        cells = []
        for n in SITTINGS:
            got, width, old, old_width = coverage(noises, cal, cal_paired, tau, excess, spread,
                                                  n, trials)
            cells.append(f"{n} machine{'s' * (n != 1)} {got:.3f} ({got / TARGET:.2f}) "
                         f"+-{width:.1%}, delta 0: {old:.3f} +-{old_width:.1%}")
            if got < needed(spread):
                missed.append(f"spread {spread:.0%}, {n} machines: {got:.3f}")
        say(f"  spread {spread:>3.0%}: " + " | ".join(cells))
    say("  targets: " + ("met by every cell" if not missed else "missed by " + "; ".join(missed)))
    return missed


def needed(spread: float) -> float:
    """The coverage a true spread needs (TARGETS: the first bound at or above it)."""
    return next((c for top, c in TARGETS if spread <= top + 1e-12), TARGETS[-1][1])


def claim(rng: random.Random, noises: list[Noise], tau: float, excess: float, spread: float,
          sittings: int) -> tuple[list[Estimate], list[bool]]:
    """A simulated claim: one result per machine, each machine off by N(0, tau^2) and its
    effect by N(0, spread^2)."""
    estimates, paired = [], []
    for s in range(sittings):
        shift = EFFECT + rng.gauss(0.0, tau) + rng.gauss(0.0, spread)
        found, noise = draw(rng, noises, shift, f"m{s}", excess)
        estimates.append(found)
        paired.append(noise.paired)
    return estimates, paired


def coverage(noises, cal, cal_paired, tau: float, excess: float, spread: float, sittings: int,
             trials: int, seed: int = 1) -> tuple[float, float, float, float]:
    """(coverage, median half-width) of the sitting model, then of it with delta 0, on the
    same simulated claims."""
    rng = random.Random(seed)
    held = {None: 0, 0.0: 0}
    widths: dict = {None: [], 0.0: []}
    for _ in range(trials):
        estimates, paired = claim(rng, noises, tau, excess, spread, sittings)
        for scale in held:
            p = sitting_model.pool(estimates, cal, paired=paired, calibration_paired=cal_paired,
                                   delta_scale=scale)
            held[scale] += math.log(p.ci_low) <= EFFECT <= math.log(p.ci_high)
            widths[scale].append((math.log(p.ci_high) - math.log(p.ci_low)) / 2)
    return (held[None] / trials, statistics.median(widths[None]), held[0.0] / trials,
            statistics.median(widths[0.0]))
