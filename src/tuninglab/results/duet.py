"""The comparison of a duet run: two servers, one per setting, under the same load at the same
time, so that whatever the machine does to one second (a neighbour's burst, a steal of CPU, the
device's own hiccup) it does to both, and their ratio in that second leaves it out.

A duet is run in two halves: halfway through, the settings change places (each server, with
its CPUs and its sandbox, gets the other setting), so an asymmetry of placement (one CPU busier
with interrupts, one sandbox on a slower part of the device) enters the first half's ratio as
a gain and the second's as a loss, and their mean cancels it.

Per-second ratios are not independent: a stall lasts several seconds, a flush builds over
tens. So the interval is by batch means: each half's log ratios, second by second, are cut
into `batches` runs of whole seconds, each run's mean is nearly independent of the next when
a run is long against the series' memory, and the t interval of their mean (at 2 * (batches -
1) degrees of freedom, both halves' spread pooled) is the interval of the effect. The halves'
difference is reported as the placement's own effect (its estimate, not a verdict).

Batches must be long against the series' memory: simulated A/A duets whose seconds correlate
at 0.6 or 0.8 from one to the next are called faster or slower at about the 5% the level says,
but at 0.95 (a memory of about 20 s) batches of 40 s are called about 13% of the time
(tests/results/test_duet.py). So a duet's batches should be a minute or more.
"""

from __future__ import annotations

import math
import statistics
from dataclasses import dataclass
from typing import Sequence

from tuninglab.results.stats import (DEFAULT_SMALLEST_EFFECT, ZERO_COST, Comparison,
                                     check_levels, judged, t_quantile)

DUET_METHOD = ("duet: both settings at once on twin servers, swapped halfway; the effect is "
               "the mean of the two halves' mean log ratios, second by second; 95% CI: t "
               "interval from batch means (each half cut into runs of whole seconds, the "
               "batches' spread pooled over both halves, 2 * (batches - 1) degrees of "
               "freedom); faster or slower when the 95% CI excludes 1, equivalent within the "
               "recipe's smallest effect worth knowing X when the 90% CI lies inside 1/(1+X) "
               "to 1+X, otherwise too noisy to tell")
DEFAULT_BATCHES = 5   # per half: 8 degrees of freedom, and batches of a minute in a 10 min duet


@dataclass(frozen=True)
class Half:
    """One half of a duet: the setting under test's per-second values and the baseline's, on
    one clock (values[i] and baseline[i] measured in the same second)."""
    values: Sequence[float]
    baseline: Sequence[float]


@dataclass(frozen=True)
class DuetComparison:
    comparison: Comparison
    placement: float | None   # how much the first half's placement favoured the tested
                              # setting (a ratio; the second half's, its inverse)
    batch_seconds: int        # the seconds in each batch (the shortest half's)

    def to_dict(self) -> dict:
        return {**self.comparison.to_dict(), "placement": self.placement,
                "batch_seconds": self.batch_seconds}


def log_ratios(half: Half, name: str) -> list[float]:
    """log(values[i] / baseline[i]) for each second; ValueError naming the half and second."""
    if len(half.values) != len(half.baseline):
        raise ValueError(f"{name}: {len(half.values)} seconds of the tested setting but "
                         f"{len(half.baseline)} of the baseline; a duet pairs them by second")
    out = []
    for i, (x, b) in enumerate(zip(half.values, half.baseline)):
        if not (isinstance(x, (int, float)) and isinstance(b, (int, float))
                and math.isfinite(x) and math.isfinite(b)):
            raise ValueError(f"{name}, second {i}: {x!r} and {b!r}; expected finite numbers")
        if x <= 0 or b <= 0:
            raise ValueError(f"{name}, second {i}: {x!r} and {b!r}; a ratio needs both > 0 "
                             "(a second with no transaction is a stall: say so, do not pair it)")
        out.append(math.log(x) - math.log(b))
    return out


def batch_means(diffs: list[float], batches: int) -> list[float]:
    """The means of `batches` consecutive runs of equal length; the seconds left over at the
    end (fewer than batches) are dropped, so every batch weighs the same."""
    size = len(diffs) // batches
    return [statistics.fmean(diffs[k * size:(k + 1) * size]) for k in range(batches)]


def compare_duet(first: Half, second: Half, confidence: float = 0.95,
                 margin: float = DEFAULT_SMALLEST_EFFECT, batches: int = DEFAULT_BATCHES,
                 cost: bool = False) -> DuetComparison:
    """The duet's comparison of the tested setting to the baseline (DUET_METHOD): first and
    second are the halves before and after the swap. A cost (lower is cheaper) reads less or
    more."""
    check_levels(confidence, margin)
    if not isinstance(batches, int) or batches < 2:
        raise ValueError(f"batches: expected a whole number of at least 2, got {batches!r}")
    if cost and 0 in (*first.values, *first.baseline, *second.values, *second.baseline):
        return DuetComparison(Comparison(None, None, None, ZERO_COST, ZERO_COST, None, None),
                              None, 0)
    halves = [log_ratios(first, "first half"), log_ratios(second, "second half")]
    size = min(len(h) for h in halves) // batches
    if size < 1:
        raise ValueError(f"a duet half of {min(len(h) for h in halves)} seconds cannot be cut "
                         f"into {batches} batches; expected at least {batches} seconds a half")
    means = [batch_means(h, batches) for h in halves]
    m1, m2 = (statistics.fmean(m) for m in means)
    effect = (m1 + m2) / 2
    spread = sum((b - m) ** 2 for ms, m in zip(means, (m1, m2)) for b in ms)
    df = 2 * (batches - 1)
    se = math.sqrt(spread / df / (2 * batches))   # the mean of 2 * batches batch means

    def interval(level):
        half = t_quantile(level, df) * se
        return math.exp(effect - half), math.exp(effect + half)

    comparison = judged(math.exp(effect), interval(confidence), interval(2 * confidence - 1),
                        margin, cost)
    return DuetComparison(comparison, math.exp((m1 - m2) / 2), size)
