"""Statistics for benchmark repeats: median, 95% intervals, ratio to a baseline.

Each point of an experiment is run N times (typically 3-10). We report the
median (robust to one odd repeat) with a 95% interval of the geometric mean,
and compare points by the ratio of geometric means: throughput effects are
multiplicative, so the log scale makes "x% faster" symmetric and lets two
groups with different spreads be compared with Welch's t interval.

The interval is computed on the log scale too (a t interval of the mean of the
log values, back-transformed), so it never holds impossible values: for 2
repeats of 4,954 and 7,183 tps the linear interval of the mean runs from -8,093
to 20,230 tps, the log one from 563 to 63,198 (as wide, as 2 repeats deserve,
but above 0). A repeat of 0 (a stalled run) has no logarithm: then the interval
is the linear t interval of the mean, clipped at 0.

A ratio's verdict says how sure it is. "faster" or "slower" when its 95% interval lies above or
below 1. Otherwise "equivalent within ±X%" when two one-sided tests at 5% each (TOST: the 90%
interval) put it inside 1/(1+X) to 1+X, X being the recipe's smallest effect worth knowing; else
"too noisy to tell". An interval of ±20% across 1 used to read "no detectable difference",
which readers took for "no difference": it now reads "too noisy to tell", and only an interval
narrower than the effect worth knowing says that the settings are alike.

A switchback result (one server, the settings switched between blocks, a round holding one block
of each point in a random order) pairs each point's block with the baseline's block of the same
round: its interval is the paired t interval of the mean log ratio (compare_paired), which
leaves out what the two blocks of a round share (that minute's neighbours, the server's state).

A cost per transaction (CPU time, bytes, fsyncs) is compared the same way (compare_cost), but in
words that fit an amount rather than a speed: "less" or "more", "equivalent within ±X%", "too
noisy to tell". A cost can really be 0 in a repeat (no fsync at all): with no logarithm to
compare, its verdict says so rather than guessing.
"""

from __future__ import annotations

import math
import statistics
from dataclasses import asdict, dataclass
from typing import Iterable

from scipy.stats import t as student_t

SUMMARY_METHOD = ("median of repeats; 95% CI: Student t interval of the geometric mean (t "
                  "interval of the mean of log values, back-transformed); with a repeat of "
                  "0, the t interval of the mean clipped at 0")
RATIO_METHOD = ("ratio of geometric means; 95% CI: Welch t interval on log values; faster or "
                "slower when the 95% CI excludes 1, equivalent within the recipe's smallest "
                "effect worth knowing X when two one-sided Welch tests at 5% each reject a "
                "larger effect (the 90% CI lies inside 1/(1+X) to 1+X), otherwise too noisy "
                "to tell")
PAIRED_METHOD = ("switchback: ratio of geometric means of the blocks; 95% CI: paired t interval "
                 "of the mean log ratio of a point's block to the baseline's block of the same "
                 "round; faster or slower when the 95% CI excludes 1, equivalent within the "
                 "recipe's smallest effect worth knowing X when the 90% CI lies inside "
                 "1/(1+X) to 1+X (two one-sided paired t tests at 5% each), otherwise too "
                 "noisy to tell; costs per transaction likewise")
COST_METHOD = ("costs per transaction: median of repeats and its 95% CI as for the primary "
               "metric; ratio of geometric means to the baseline's, 95% CI: Welch t interval on "
               "log values; less or more when the 95% CI excludes 1, equivalent within the "
               "recipe's smallest effect worth knowing X when the 90% CI lies inside 1/(1+X) "
               "to 1+X (two one-sided Welch tests at 5% each), otherwise too noisy to tell; "
               "not compared when a repeat measured 0 (no logarithm)")

# The kinds of verdict, each its own text but EQUIVALENT, whose text names the margin
# (equivalent_text): pages and tests match the kind (Comparison.verdict_kind), not the text.
FASTER = "faster"
SLOWER = "slower"
EQUIVALENT = "equivalent"
TOO_NOISY = "too noisy to tell"
TOO_FEW_REPEATS = "too few repeats"
NO_THROUGHPUT = "no throughput to compare"  # a repeat of 0: no logarithm (document._ratio)
# A cost is an amount, not a speed: less or more of it (compare_cost).
LESS = "less"
MORE = "more"
ZERO_COST = "zero in a repeat: not compared"  # no logarithm; short enough for a table cell
# The experiment did not run in the situation its question is about (results/regime.py): the
# ratio is kept, but it answers another question, so it says neither faster nor slower.
REGIME_NOT_REACHED = "regime not reached"
RATIO_VERDICTS = (FASTER, SLOWER, EQUIVALENT, TOO_NOISY, TOO_FEW_REPEATS, NO_THROUGHPUT,
                  REGIME_NOT_REACHED)
COST_VERDICTS = (LESS, MORE, EQUIVALENT, TOO_NOISY, TOO_FEW_REPEATS, ZERO_COST)
VERDICTS = RATIO_VERDICTS + (LESS, MORE, ZERO_COST)  # every kind, each once
# The smallest effect worth knowing of a recipe that names none (recipes' [measure]
# smallest_effect), and of results from before it was recorded: a ratio within ±3% is below
# what one host's run-to-run noise and a reader's decision care about.
DEFAULT_SMALLEST_EFFECT_PCT = 3.0
DEFAULT_SMALLEST_EFFECT = DEFAULT_SMALLEST_EFFECT_PCT / 100  # exactly 0.03


def equivalent_text(margin: float) -> str:
    """The equivalence verdict, naming its margin: 0.03 -> 'equivalent within ±3%'."""
    return f"{EQUIVALENT} within ±{margin * 100:g}%"


# The kinds that name a direction, as a reader sees them: FASTER or SLOWER, LESS or MORE.
DIRECTIONS = (FASTER, SLOWER, LESS, MORE)
# A latency is a cost, compared by compare_cost, but "less latency" reads oddly: the shown words
# (never the kinds, which pages and tests match).
LATENCY_WORDS = ((LESS, "lower latency"), (MORE, "higher latency"))


def under_margin_text(said: str, margin: float, shown: bool) -> str:
    """A direction whose effect is under the smallest effect worth knowing: 'faster, by less
    than 3%' when the equivalence test's interval shows it (shown), 'faster, perhaps by less
    than 3%' when only the ratio lies under the margin and its interval reaches past it."""
    by = "by less than" if said != LESS else "by under"  # never "less, by less than"
    return f"{said}, {'' if shown else 'perhaps '}{by} {margin * 100:g}%"


@dataclass(frozen=True)
class Summary:
    n: int
    median: float
    mean: float
    stdev: float | None  # sample stdev (n-1); None when n < 2
    ci_low: float | None  # interval of the geometric mean (SUMMARY_METHOD); None when n < 2
    ci_high: float | None

    def half_width_pct(self) -> float | None:
        """CI half-width as % of the median; None without a CI or when the
        median is 0 (a stalled point has no meaningful relative width)."""
        if self.ci_low is None or self.ci_high is None or self.median == 0:
            return None
        return (self.ci_high - self.ci_low) / 2 / abs(self.median) * 100

    def to_dict(self) -> dict:
        return asdict(self)


@dataclass(frozen=True)
class Comparison:
    ratio: float | None  # exp(mean(log x) - mean(log base)); None when not compared
    ci_low: float | None  # the 95% interval; None when either group has n < 2
    ci_high: float | None
    verdict: str  # the text: the kind, or equivalent_text(margin)
    verdict_kind: str  # one of VERDICTS
    tost_low: float | None  # the equivalence test's interval (90% for a 95% confidence)
    tost_high: float | None

    def to_dict(self) -> dict:
        return asdict(self)


def _clean(values: Iterable[float], name: str, positive: bool = False) -> list[float]:
    """Floats from `values`, or ValueError naming the argument and the repeat."""
    if isinstance(values, (str, bytes)):  # would otherwise iterate characters
        raise ValueError(f"{name}: expected a sequence of numbers, got a string")
    out = []
    for i, v in enumerate(values):
        try:
            x = float(v)
        except (TypeError, ValueError):
            raise ValueError(f"{name}[{i}] is {v!r}, not a number") from None
        if not math.isfinite(x):
            raise ValueError(f"{name}[{i}] is {x}; every repeat must be a finite number")
        if positive and x <= 0:
            raise ValueError(
                f"{name}[{i}] is {x}; ratios use logarithms, so every value must be > 0"
            )
        out.append(x)
    if not out:
        raise ValueError(f"{name}: empty sequence; need at least one repeat")
    return out


def t_quantile(confidence: float, df: float) -> float:
    """Two-sided Student t quantile, e.g. t(0.975, df) for 95%."""
    if not 0 < confidence < 1:  # also rejects NaN
        raise ValueError(f"confidence must be between 0 and 1 (exclusive), got {confidence}")
    return float(student_t.ppf((1 + confidence) / 2, df))


def summarize(values: Iterable[float], confidence: float = 0.95) -> Summary:
    """Median, mean, sample stdev and the 95% interval of the repeats (SUMMARY_METHOD).

    Zero is accepted: a stalled run can really measure 0 tps."""
    xs = _clean(values, "values")
    n = len(xs)
    # statistics.* sums exactly, so identical repeats give a zero-width CI
    # instead of one off by rounding.
    mean = float(statistics.mean(xs))
    median = float(statistics.median(xs))
    if n < 2:
        t_quantile(confidence, 1)  # still reject a bad confidence level
        return Summary(n, median, mean, None, None, None)
    sd = float(statistics.stdev(xs))
    t = t_quantile(confidence, n - 1)
    if min(xs) == max(xs):
        low = high = xs[0]  # exp(log(x)) can be x +- 1 ulp: the point itself, exactly
    elif min(xs) > 0:
        low, high = _log_interval(xs, t)
    else:
        half = t * sd / math.sqrt(n)
        # Clipped at 0 when every repeat is >= 0 (a stalled run): no metric here is negative.
        low, high = mean - half, mean + half
        if min(xs) >= 0:
            low = max(low, 0.0)
    return Summary(n, median, mean, sd, low, high)


def _log_interval(xs: list[float], t: float) -> tuple[float, float]:
    """The t interval of the mean of log values, back-transformed: an interval of the
    geometric mean, always > 0."""
    logs = [math.log(x) for x in xs]
    centre = statistics.mean(logs)
    half = t * statistics.stdev(logs) / math.sqrt(len(logs))
    return math.exp(centre - half), math.exp(centre + half)


def ratio_half_width_pct(ratio: dict) -> float:
    """A comparison's (Comparison.to_dict) 95% interval half-width, as % of its ratio."""
    return (ratio["ci_high"] - ratio["ci_low"]) / 2 / ratio["ratio"] * 100


def compare(
    values: Iterable[float],
    baseline: Iterable[float],
    confidence: float = 0.95,
    higher_is_better: bool = True,
    margin: float = DEFAULT_SMALLEST_EFFECT,
) -> Comparison:
    """Ratio of geometric means of `values` to `baseline`, with a Welch interval at
    `confidence` and a verdict: faster or slower when that interval excludes 1, equivalent
    when the equivalence test's interval (at 2 * confidence - 1, 90% for 95%: two one-sided
    tests at 1 - confidence each) lies inside 1/(1+margin) to 1+margin, else too noisy."""
    check_levels(confidence, margin)
    above, below = (FASTER, SLOWER) if higher_is_better else (SLOWER, FASTER)
    return _compare(values, baseline, confidence, margin, above, below)


def compare_cost(
    values: Iterable[float],
    baseline: Iterable[float],
    confidence: float = 0.95,
    margin: float = DEFAULT_SMALLEST_EFFECT,
) -> Comparison:
    """compare() for a cost per transaction, lower being cheaper: the same ratio, intervals
    and tests, with verdicts for amounts: less or more when the 95% interval excludes 1,
    equivalent within ±margin, else too noisy. A repeat of 0 on either side (a point that made
    no fsync) has no logarithm: not compared (ZERO_COST), as document._ratio does for a
    throughput of 0. A negative cost is no measure: ValueError."""
    check_levels(confidence, margin)
    xs, bs = _clean(values, "values"), _clean(baseline, "baseline")
    if min(xs + bs) == 0:  # only when none is negative: those fail in _compare
        return Comparison(None, None, None, ZERO_COST, ZERO_COST, None, None)
    return _compare(xs, bs, confidence, margin, MORE, LESS)


def compared(values: Iterable[float], baseline: Iterable[float], margin: float,
             paired: bool = False, cost: bool = False) -> Comparison:
    """A comparison as every reader of a result makes it: paired by round (a switchback's)
    or not, as a cost (less or more) or as throughput (faster or slower)."""
    if paired:
        return compare_paired(values, baseline, margin=margin, cost=cost)
    return (compare_cost if cost else compare)(values, baseline, margin=margin)


def compare_paired(
    values: Iterable[float],
    baseline: Iterable[float],
    confidence: float = 0.95,
    margin: float = DEFAULT_SMALLEST_EFFECT,
    cost: bool = False,
) -> Comparison:
    """compare() (or, with cost, compare_cost()) for paired values: values[i] and baseline[i]
    were measured together (the same switchback round). The interval is the paired t interval
    of the mean of log(values[i] / baseline[i]), at n - 1 degrees of freedom; the equivalence
    test is the same at 2 * confidence - 1. The ratio is that of the geometric means, as in
    compare()."""
    check_levels(confidence, margin)
    xs, bs = _clean(values, "values"), _clean(baseline, "baseline")
    if len(xs) != len(bs):
        raise ValueError(f"paired values: {len(xs)} values but {len(bs)} baseline values")
    above, below = (MORE, LESS) if cost else (FASTER, SLOWER)
    if cost and min(xs + bs) == 0:
        return Comparison(None, None, None, ZERO_COST, ZERO_COST, None, None)
    diffs = [math.log(x) - math.log(b) for x, b in
             zip(_clean(xs, "values", positive=True), _clean(bs, "baseline", positive=True))]
    diff = statistics.mean(diffs)
    if len(diffs) < 2:
        return Comparison(math.exp(diff), None, None, TOO_FEW_REPEATS, TOO_FEW_REPEATS, None,
                          None)
    se = statistics.stdev(diffs) / math.sqrt(len(diffs))
    lo, hi = (math.exp(diff + sign * t_quantile(confidence, len(diffs) - 1) * se)
              for sign in (-1, 1))
    tost_lo, tost_hi = (math.exp(diff + sign * t_quantile(2 * confidence - 1, len(diffs) - 1) * se)
                        for sign in (-1, 1))
    return _verdict(math.exp(diff), (lo, hi), (tost_lo, tost_hi), margin, above, below)


def check_levels(confidence: float, margin: float) -> None:
    if not 0.5 < confidence < 1:  # also rejects NaN
        raise ValueError("confidence must be between 0.5 and 1 (exclusive): the equivalence "
                         f"test uses 2 * confidence - 1; got {confidence}")
    if not 0 < margin < 1:
        raise ValueError(f"margin must be a fraction between 0 and 1 (exclusive), 0.03 for "
                         f"3%; got {margin!r}")


def _compare(values: Iterable[float], baseline: Iterable[float], confidence: float,
             margin: float, above: str, below: str) -> Comparison:
    """The comparison of compare(), with `above` the verdict when the 95% interval lies above
    1 and `below` when it lies below."""
    lx = [math.log(x) for x in _clean(values, "values", positive=True)]
    lb = [math.log(x) for x in _clean(baseline, "baseline", positive=True)]
    diff = statistics.mean(lx) - statistics.mean(lb)
    ratio = math.exp(diff)
    if len(lx) < 2 or len(lb) < 2:
        return Comparison(ratio, None, None, TOO_FEW_REPEATS, TOO_FEW_REPEATS, None, None)
    return _verdict(ratio, _welch_interval(lx, lb, diff, confidence),
                    _welch_interval(lx, lb, diff, 2 * confidence - 1), margin, above, below)


def judged(ratio: float, interval: tuple, tost: tuple, margin: float,
           cost: bool = False) -> Comparison:
    """The verdict of a comparison already made (a pooled one): its ratio, 95% interval and
    equivalence test's interval; faster or slower, or for a cost (lower is cheaper) more or
    less."""
    above, below = (MORE, LESS) if cost else (FASTER, SLOWER)
    return _verdict(ratio, interval, tost, margin, above, below)


def _verdict(ratio: float, interval: tuple, tost: tuple, margin: float, above: str,
             below: str) -> Comparison:
    """The comparison of a ratio given its 95% interval and its equivalence test's interval."""
    (lo, hi), (tost_lo, tost_hi) = interval, tost
    if lo > 1:
        kind = above
    elif hi < 1:
        kind = below
    elif 1 / (1 + margin) < tost_lo and tost_hi < 1 + margin:  # symmetric on the log scale
        kind = EQUIVALENT
    else:
        kind = TOO_NOISY
    verdict = equivalent_text(margin) if kind == EQUIVALENT else kind
    return Comparison(ratio, lo, hi, verdict, kind, tost_lo, tost_hi)


def _welch_interval(lx: list[float], lb: list[float], diff: float,
                    confidence: float) -> tuple[float, float]:
    """The Welch t interval of the ratio of geometric means (from the log values): each group
    keeps its own variance (a tuned setting often changes the spread too), with the
    Welch-Satterthwaite degrees of freedom."""
    vx = statistics.variance(lx) / len(lx)
    vb = statistics.variance(lb) / len(lb)
    se2 = vx + vb
    if se2 == 0:
        # Both groups constant: no sampling noise to speak of, the interval is the point
        # itself and the verdict follows from the ratio alone.
        return math.exp(diff), math.exp(diff)
    df = se2**2 / (vx**2 / (len(lx) - 1) + vb**2 / (len(lb) - 1))
    half = t_quantile(confidence, df) * math.sqrt(se2)
    return math.exp(diff - half), math.exp(diff + half)
