"""One comparison from several results: each result one Estimate (its log ratio, standard error
and degrees of freedom, as stats.compare or compare_paired computes them) labelled with the
sitting (one machine instance) it came from, and the Pooled ratio of a point to its baseline
with its 95% interval.

No verdict pools by pool() any more: every verdict and claims.status pool by
results/sitting_model.py, which returns the same Pooled. pool() and FALLBACK_BETWEEN_SD stay,
deliberately, as the baseline that `invoke bench --only pooling` prints the sitting model's
coverage beside (bench/pooling_coverage.py, bench/sitting_coverage.py): what follows is that
baseline's model.

The model: a result's log ratio = the effect + its sitting's deviation + its own noise. The
sitting's deviation (sd tau, "between-sitting") is shared by every result of that sitting, so
a sitting's results are first combined into one (their mean, Satterthwaite degrees of
freedom), and the sittings are then pooled as a random-effects mean, its variance each
sitting's own plus tau^2. The weights are equal: a standard error from 3 repeats is too noisy
to weigh by (inverse-variance weights covered 79% for 6 results of one sitting).

Where tau comes from decides whether the interval is honest at small k, and it is never the
2 or 3 results alone:
- DerSimonian-Laird estimates tau from the results themselves and uses a normal quantile: at
  k = 3 with one outlier (direct-io O_DIRECT, one result uncapped at x0.49) tau comes out 0.48
  and the interval [0.52, 1.56]; at k = 2 it is 0 half the time however far the sittings lie
  apart, and the interval is then too narrow.
- Hartung-Knapp takes the spread of the k results as the variance and a t quantile on k - 1
  degrees of freedom: t = 12.7 at k = 2, [0.06, 1.04] around two btrfs results at x0.23-0.28.
Here tau is the host class's, measured by its A/A calibrations across sittings (`invoke
lab.noise`, results/calibrations.py: between_sd, with between_sittings - 1 degrees of freedom in
the t quantile), or, without any, FALLBACK_BETWEEN_SD, a stated assumption. The results'
own spread can only add to it: when the sittings disagree by more than tau says (DL's estimate
above tau^2), the excess enters the variance on sittings - 1 degrees of freedom (Satterthwaite:
a little excess barely moves the quantile, a large one moves it towards Hartung-Knapp's), and
the interval is then never wider than the hull of the sittings' own intervals (each widened by
tau alone): if tau is right, each of those is a 95% interval of the effect, and so is their
hull. One result (k = 1) gives its own interval widened by tau: exactly its own when tau is 0.

What A/A calibrations measure is how far a comparison of nothing moves from one sitting to the
next beyond what its own interval says; a real effect may also differ between machines of one
class, which is what the set's own excess spread catches.
"""

from __future__ import annotations

import math
import statistics
from dataclasses import dataclass
from typing import Iterable, Sequence

from tuninglab.results import stats

# The between-sitting sd (log scale) assumed when a host class has no A/A calibrations: 5%,
# above the spread the project's A/A calibrations are expected to show (the coverage check in
# `invoke bench pooling` prints what happens when the truth is larger).
FALLBACK_BETWEEN_SD = 0.05
FALLBACK_FROM = (f"assumed {FALLBACK_BETWEEN_SD:.0%}: no A/A calibrations of this host class")


@dataclass(frozen=True)
class Estimate:
    """One result's comparison of a point with its baseline, on the log scale."""
    log_ratio: float
    se: float            # its standard error
    df: float            # degrees of freedom of its t interval
    sitting: str = ""    # estimates with the same label come from one sitting
    paired: bool = False  # a switchback's paired comparison (its per-run excess: sitting_model)


@dataclass(frozen=True)
class Pooled:
    ratio: float
    ci_low: float        # at the confidence asked (95%)
    ci_high: float
    tost_low: float      # at 2 * confidence - 1 (90%), for equivalence tests
    tost_high: float
    k: int               # results
    sittings: int
    between_sd: float    # the between-sitting sd used (log scale)
    between_from: str    # where it came from, in words
    method: str          # one sentence for the page's methods note


@dataclass(frozen=True)
class _Sitting:
    """A sitting's results combined: log ratio, variance and degrees of freedom."""
    y: float
    var: float
    df: float


def _logs(values: Iterable[float]) -> list[float] | None:
    """The logs of the repeats, None when one is 0 or less (no logarithm)."""
    xs = [float(v) for v in values]
    if any(not math.isfinite(x) for x in xs):
        raise ValueError(f"a repeat is {next(x for x in xs if not math.isfinite(x))}; every "
                         "repeat must be a finite number")
    return None if min(xs, default=0.0) <= 0 else [math.log(x) for x in xs]


def estimate(values: Iterable[float], baseline: Iterable[float],
             paired: bool = False) -> Estimate | None:
    """A point's comparison with its baseline from their repeats, by stats.compare's formulas
    (Welch on the log values) or, paired (a switchback's rounds, values[i] with baseline[i]),
    compare_paired's; the sitting is left "" for the caller (dataclasses.replace). None when it
    cannot be computed: fewer than 2 repeats on a side, a repeat of 0, or no spread at all
    (identical repeats: a result without noise has no weight to be given)."""
    lx, lb = _logs(values), _logs(baseline)
    if lx is None or lb is None or len(lx) < 2 or len(lb) < 2:
        return None
    if paired:
        if len(lx) != len(lb):
            raise ValueError(f"paired values: {len(lx)} values but {len(lb)} baseline values")
        diffs = [x - b for x, b in zip(lx, lb)]
        se, df = statistics.stdev(diffs) / math.sqrt(len(diffs)), len(diffs) - 1
        return Estimate(statistics.mean(diffs), se, df, paired=True) if se > 0 else None
    vx, vb = statistics.variance(lx) / len(lx), statistics.variance(lb) / len(lb)
    if vx + vb == 0:
        return None
    df = (vx + vb) ** 2 / (vx**2 / (len(lx) - 1) + vb**2 / (len(lb) - 1))
    return Estimate(statistics.mean(lx) - statistics.mean(lb), math.sqrt(vx + vb), df)


def placed_estimate(values: Sequence[float], baseline: Sequence[float],
                    first: Sequence[bool], floor: tuple[float, float] | None = None
                    ) -> Estimate | None:
    """A duet's comparison from its halves (values[i] beside baseline[i] in half i; first[i]:
    the point's server had the first place, CPUs and sandbox): the mean of the two places'
    mean log ratios, so that a place's own effect (one CPU busier than the other) cancels, with
    its standard error from the halves' spread about their own place's mean, on halves - 2
    degrees of freedom (the effect and the place's). floor: a half's variance as its own
    batches give it and its degrees of freedom (results/duet.within_variance), taken instead
    where it is the larger, as a duet's own interval takes it: a half is never known better
    than its batches say. Flagged paired: its halves are runs side by side, and their per-run
    excess is the duet class's to learn (sitting_model). None without a half in each place,
    with fewer than 3 halves, a repeat of 0 or no spread."""
    lx, lb = _logs(values), _logs(baseline)
    if lx is None or lb is None:
        return None
    if not len(lx) == len(lb) == len(first):
        raise ValueError(f"a duet's halves: {len(lx)} values, {len(lb)} baseline values and "
                         f"{len(first)} places; expected one of each per half")
    found = place_spread([x - b for x, b in zip(lx, lb)], first)
    if found is None:
        return None
    means, spread, df = found
    if floor is not None and floor[0] > spread:
        spread, df = floor
    counts = (sum(map(bool, first)), len(first) - sum(map(bool, first)))
    se = math.sqrt(spread / 4 * sum(1 / n for n in counts))
    return Estimate(statistics.fmean(means), se, df, paired=True) if se > 0 else None


def place_spread(diffs: Sequence[float], first: Sequence[bool]) -> tuple | None:
    """A duet's halves' log ratios (diffs[i], first[i]: the tested side had the first place):
    ((the first place's mean, the second's), the variance of a half about its own place's
    mean, its degrees of freedom, halves - 2: the effect's and the place's taken out); None
    with fewer than 3 halves or without a half in each place. The model of a duet's own
    interval (results/duet.py) and of its pooled estimate (placed_estimate)."""
    places = [[d for d, f in zip(diffs, first) if bool(f) is side] for side in (True, False)]
    if len(diffs) < 3 or not all(places):
        return None
    means = tuple(statistics.fmean(p) for p in places)
    spread = sum((d - m) ** 2 for p, m in zip(places, means) for d in p) / (len(diffs) - 2)
    return means, spread, len(diffs) - 2


def satterthwaite(parts: Iterable[tuple[float, float]]) -> float:
    """The degrees of freedom of a sum of variances, each (variance, its df): inf when every
    part is known exactly (df inf) or 0."""
    parts = list(parts)
    total = sum(v for v, _ in parts)
    spread = sum(v * v / df for v, df in parts if v > 0 and math.isfinite(df))
    return math.inf if spread == 0 else total * total / spread


def combine(estimates: list[Estimate]) -> _Sitting:
    """Results of one sitting as one: the mean of their log ratios, its variance and its
    Satterthwaite degrees of freedom (they share the sitting's deviation, so they count once
    against it). Equal weights: a standard error from 3 repeats is itself noise, and weighting
    by it gave a result with an accidentally small one the most weight and too narrow an
    interval (79% coverage for 6 results of one sitting in the coverage check)."""
    n = len(estimates)
    parts = [(e.se**2 / n**2, e.df) for e in estimates]
    return _Sitting(sum(e.log_ratio for e in estimates) / n, sum(v for v, _ in parts),
                    satterthwaite(parts))


def by_sitting(estimates: list[Estimate]) -> list[_Sitting]:
    """Each sitting's results combined, in the order the sittings first appear."""
    groups: dict[str, list[Estimate]] = {}
    for e in estimates:
        groups.setdefault(e.sitting, []).append(e)
    return [combine(group) for group in groups.values()]


def dl_tau2(sittings: list[_Sitting]) -> float:
    """DerSimonian-Laird's between-sitting variance of the sittings' log ratios (0 with one,
    or with one known exactly)."""
    if len(sittings) < 2 or any(s.var == 0 for s in sittings):
        return 0.0
    w = [1 / s.var for s in sittings]
    total = sum(w)
    mean = sum(wi * s.y for wi, s in zip(w, sittings)) / total
    q = sum(wi * (s.y - mean) ** 2 for wi, s in zip(w, sittings))
    # total - sum(w^2) / total written as a sum over pairs (w_i times the others' sum): with
    # one sitting known almost exactly (a weight of 1e18) the subtraction cancels to 0.
    pairs = sum(wi * sum(w[:i] + w[i + 1:]) for i, wi in enumerate(w)) / total
    return max(0.0, (q - (len(sittings) - 1)) / pairs)


def _check(estimates: list[Estimate], between_sd: float | None) -> None:
    if not estimates:
        raise ValueError("nothing to pool: no estimate")
    for i, e in enumerate(estimates):
        if not (math.isfinite(e.log_ratio) and math.isfinite(e.se) and e.se >= 0 and e.df > 0):
            raise ValueError(f"estimate {i} ({e}): expected a finite log ratio, a standard "
                             "error >= 0 and degrees of freedom > 0")
    if between_sd is not None and not (math.isfinite(between_sd) and between_sd >= 0):
        raise ValueError(f"between_sd is {between_sd!r}; expected a finite sd >= 0 (log scale)")


def pool(estimates: list[Estimate], between_sd: float | None = None, between_from: str = "",
         confidence: float = 0.95, between_sittings: int | None = None) -> Pooled:
    """The pooled ratio of the estimates and its intervals (the module's method). between_sd:
    the host class's between-sitting sd from its A/A calibrations (calibrations.
    between_sitting_sd), measured over between_sittings sittings (None: taken as known
    exactly); None: FALLBACK_BETWEEN_SD, assumed. between_from says where it came from."""
    _check(estimates, between_sd)
    if not 0.5 < confidence < 1:
        raise ValueError(f"confidence must be between 0.5 and 1 (exclusive); got {confidence}")
    if between_sd is None:
        base, base_df, words = FALLBACK_BETWEEN_SD, math.inf, FALLBACK_FROM
    else:
        base, words = between_sd, between_from or f"given: {between_sd:.1%}"
        base_df = math.inf if between_sittings is None else max(between_sittings - 1, 1)
    sittings = by_sitting(estimates)
    excess = max(0.0, dl_tau2(sittings) - base**2)
    if excess > 0:
        words += (f"; widened to {math.sqrt(base**2 + excess):.1%} by the spread of these "
                  f"{len(sittings)} sittings")
    if base == 0 and excess == 0 and any(s.var == 0 for s in sittings):
        raise ValueError("a result with a standard error of 0 and no between-sitting sd: "
                         "nothing to weigh it by")
    mean, var, df = _random_effects(sittings, base**2, base_df, excess)
    ci = _interval(mean, var, df, confidence, sittings, base**2, base_df)
    tost = _interval(mean, var, df, 2 * confidence - 1, sittings, base**2, base_df)
    sd = math.sqrt(base**2 + excess)
    return Pooled(math.exp(mean), *ci, *tost, len(estimates), len(sittings), sd, words,
                  method_text(len(estimates), len(sittings), sd, words, df, confidence))


def _random_effects(sittings: list[_Sitting], tau2: float, tau2_df: float,
                    excess: float) -> tuple[float, float, float]:
    """The mean of the sittings' log ratios, its variance (each sitting's own plus tau^2 and the
    excess) and its Satterthwaite degrees of freedom: each sitting's variance on its df, tau^2
    on tau2_df, the sittings' excess spread on sittings - 1. Equal weights, for combine()'s
    reason: 1 / (variance + tau^2) would weigh by noisy standard errors whenever tau is small."""
    n = len(sittings)
    parts = [(s.var / n**2, s.df) for s in sittings]
    parts += [(tau2 / n, tau2_df), (excess / n, max(n - 1, 1))]
    return (sum(s.y for s in sittings) / n, sum(v for v, _ in parts), satterthwaite(parts))


def _interval(mean: float, var: float, df: float, confidence: float,
              sittings: list[_Sitting], tau2: float, tau2_df: float) -> tuple[float, float]:
    """The t interval of the mean at `confidence`, back-transformed, held inside the hull of
    the sittings' own intervals (each its variance + tau^2)."""
    half = stats.t_quantile(confidence, df) * math.sqrt(var)
    hull_low, hull_high = math.inf, -math.inf
    for s in sittings:
        own_df = satterthwaite([(s.var, s.df), (tau2, tau2_df)])
        own = stats.t_quantile(confidence, own_df) * math.sqrt(s.var + tau2)
        hull_low, hull_high = min(hull_low, s.y - own), max(hull_high, s.y + own)
    return math.exp(max(mean - half, hull_low)), math.exp(min(mean + half, hull_high))


def method_text(k: int, sittings: int, sd: float, words: str, df: float,
                confidence: float = 0.95) -> str:
    """The pooled estimate's method in one sentence."""
    dof = "a normal quantile" if math.isinf(df) else f"{df:.1f} degrees of freedom"
    return (f"pooled over {k} result{'s' * (k != 1)} from {sittings} sitting"
            f"{'s' * (sittings != 1)}: the results of a sitting averaged, the "
            "sittings' log ratios by a random-effects mean with a between-sitting "
            f"sd of {sd:.1%} ({words}); {confidence:.0%} CI: t interval with Satterthwaite "
            f"degrees of freedom ({dof}), never wider than the hull of the sittings' own "
            "intervals")
