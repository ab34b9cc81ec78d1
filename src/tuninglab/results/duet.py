"""The comparison of a duet run: two servers, one per setting, under the same load at the same
time, so that whatever the machine does to one second (a neighbour's burst, a steal of CPU, the
device's own hiccup) it does to both, and their ratio in that second leaves it out.

A duet is run in two halves: halfway through, the settings change places (each server, with
its CPUs and its sandbox, gets the other setting), so an asymmetry of placement (one CPU busier
with interrupts, one sandbox on a slower part of the device) enters the first half's ratio as
a gain and the second's as a loss, and their mean cancels it.

Per-second ratios are not independent: a stall lasts several seconds, a flush builds over
tens. So each half's log ratio is a mean of batches: the half is cut into `batches` runs of
whole seconds, and each run's log ratio of the two servers' totals is nearly independent of
the next when a run is long against the series' memory. Totals, not second-by-second ratios:
a second in which one server stalls (no transaction) has no ratio, and leaving it out would
forgive the setting its stalls.

The halves themselves differ by more than their batches say: each half starts both servers
afresh, and what a place is worth moves from one half to the next (a CPU-bound A/A's first
place read +16, +17, +13 and +17% in four halves, each known to about 1.5% from its batches;
bench/duet.py). An interval from the batches alone was called faster or slower in 21% of
that A/A's trials. So the effect's error is taken from the halves: the spread of each half's
log ratio about its own place's mean (halves - 2 degrees of freedom, pooling.place_spread,
as a pooled estimate takes it), or from the batches where those spread more (a half is never known better
than its own batches say; with few halves their spread may come out small by chance). A duet
of one repeat (two halves) has no spread of halves to learn from, hence no interval: too few
repeats. The halves' difference is reported as the placement's own effect (its estimate, not
a verdict).

Batches must be long against the series' memory: simulated A/A duets whose seconds correlate
at 0.95 (a memory of about 20 s) inflate the batches' spread; the halves' spread is
unaffected (tests/results/test_duet.py). So a duet's batches should be a minute or more.
"""

from __future__ import annotations

import math
import statistics
from dataclasses import dataclass
from typing import Sequence

from tuninglab.results.pooling import place_spread
from tuninglab.results.stats import (DEFAULT_SMALLEST_EFFECT, TOO_FEW_REPEATS, ZERO_COST,
                                     Comparison, check_levels, judged, t_quantile)

DUET_METHOD = ("duet: both settings at once on twin servers, their places swapped every other "
               "half; a half's log ratio is the mean of its batches' (runs of whole seconds) "
               "log ratios of the two servers' totals, and the effect is the mean of the two "
               "places' mean half; 95% CI: t interval from the halves' spread about their "
               "place's mean (halves - 2 degrees of freedom), or from the batches' spread "
               "within their halves where that is larger; none from one repeat (two halves); "
               "faster or slower when the 95% CI excludes 1, equivalent within the recipe's "
               "smallest effect worth knowing X when the 90% CI lies inside 1/(1+X) to 1+X, "
               "otherwise too noisy to tell")
DEFAULT_BATCHES = 5   # per half: 8 degrees of freedom, and batches of a minute in a 10 min duet


@dataclass(frozen=True)
class Half:
    """One half of a duet: the setting under test's per-second values and the baseline's, on
    one clock (values[i] and baseline[i] measured in the same second); first: whether the
    tested setting had the first place (CPUs and sandbox slot) in this half."""
    values: Sequence[float]
    baseline: Sequence[float]
    first: bool = True


@dataclass(frozen=True)
class DuetComparison:
    comparison: Comparison
    placement: float | None   # how much the first half's placement favoured the tested
                              # setting (a ratio; the second half's, its inverse)
    batch_seconds: int        # the seconds in each batch (the shortest half's)

    def to_dict(self) -> dict:
        return {**self.comparison.to_dict(), "placement": self.placement,
                "batch_seconds": self.batch_seconds}


def checked(half: Half, name: str) -> None:
    """Both series of a half, second by second: as long as each other, finite, none below 0;
    ValueError naming the half and the second."""
    if len(half.values) != len(half.baseline):
        raise ValueError(f"{name}: {len(half.values)} seconds of the tested setting but "
                         f"{len(half.baseline)} of the baseline; a duet pairs them by second")
    for i, (x, b) in enumerate(zip(half.values, half.baseline)):
        if not (isinstance(x, (int, float)) and isinstance(b, (int, float))
                and math.isfinite(x) and math.isfinite(b) and x >= 0 and b >= 0):
            raise ValueError(f"{name}, second {i}: {x!r} and {b!r}; expected finite numbers, "
                             "none below 0")


def batch_ratios(half: Half, batches: int, name: str) -> list[float]:
    """The log ratio of the two servers' totals in each of `batches` consecutive runs of
    seconds of equal length (the seconds left over at the end, fewer than batches, dropped so
    every batch weighs the same). A stalled second (no transaction) counts in its batch's
    total: a setting that stalls pays for it. ValueError for a batch in which one server did
    nothing at all."""
    size = len(half.values) // batches
    out = []
    for k in range(batches):
        part = slice(k * size, (k + 1) * size)
        x, b = sum(half.values[part]), sum(half.baseline[part])
        if x <= 0 or b <= 0:
            raise ValueError(f"{name}, seconds {k * size} to {(k + 1) * size - 1}: the "
                             f"{'tested setting' if x <= 0 else 'baseline'}'s server did "
                             "nothing in a whole batch; a ratio needs both to run")
        out.append(math.log(x) - math.log(b))
    return out


def compare_duet(halves: Sequence[Half], confidence: float = 0.95,
                 margin: float = DEFAULT_SMALLEST_EFFECT, batches: int = DEFAULT_BATCHES,
                 cost: bool = False) -> DuetComparison:
    """The duet's comparison of the tested setting to the baseline (DUET_METHOD), over its
    halves: as many with the tested setting in the first place as in the second, so that the
    placement cancels. A cost (lower is cheaper) reads less or more."""
    check_levels(confidence, margin)
    if not isinstance(batches, int) or batches < 2:
        raise ValueError(f"batches: expected a whole number of at least 2, got {batches!r}")
    first = sum(h.first for h in halves)
    if not halves or 2 * first != len(halves):
        raise ValueError(f"{len(halves)} halves, {first} with the tested setting in the first "
                         "place; expected as many in the first place as in the second (at "
                         "least one each), so that the placement cancels")
    if cost and any(0 in (*h.values, *h.baseline) for h in halves):
        return DuetComparison(Comparison(None, None, None, ZERO_COST, ZERO_COST, None, None),
                              None, 0)
    named = [(h, _name(i, len(halves))) for i, h in enumerate(halves)]
    for half, name in named:
        checked(half, name)
    shortest = min(len(h.values) for h in halves)
    if shortest < batches:
        raise ValueError(f"a duet half of {shortest} seconds cannot be cut into {batches} "
                         f"batches; expected at least {batches} seconds a half")
    ratios = [batch_ratios(h, batches, name) for h, name in named]
    means = [statistics.fmean(r) for r in ratios]
    effect = statistics.fmean(means)   # the places balance: the mean of the places' means
    placement = statistics.fmean(m if h.first else -m for h, m in zip(halves, means))
    found = place_spread(means, [h.first for h in halves])
    if found is None:   # one repeat: no spread of halves to learn from
        comparison = Comparison(math.exp(effect), None, None, TOO_FEW_REPEATS,
                                TOO_FEW_REPEATS, None, None)
    else:
        var, df = max(found[1:], within_variance(ratios, means), key=lambda v: v[0])
        se = math.sqrt(var / len(halves))

        def interval(level):
            half = t_quantile(level, df) * se
            return math.exp(effect - half), math.exp(effect + half)

        comparison = judged(math.exp(effect), interval(confidence),
                            interval(2 * confidence - 1), margin, cost)
    return DuetComparison(comparison, math.exp(placement), shortest // batches)


def within_variance(ratios: list, means: list) -> tuple[float, int]:
    """The variance of a half's log ratio as its own batches give it (their spread within
    their halves, pooled, over the batches of a half) and its degrees of freedom: the floor
    of a duet's interval, as a half is never known better than its batches say."""
    df = sum(len(r) - 1 for r in ratios)
    spread = sum((b - m) ** 2 for r, m in zip(ratios, means) for b in r) / df
    return spread / len(ratios[0]), df


def _name(i: int, count: int) -> str:
    return {0: "first half", 1: "second half"}.get(i, f"half {i + 1}") if count == 2 \
        else f"half {i + 1}"
