"""A bounded steady-state warm-up ([measure] steady, the default): after the recipe's warm-up,
the load goes on while its throughput still trends, up to a bound (Measure.warmup_bound), and
the measured seconds (or a switchback's blocks) start once it does not.

"Still trends": over the last window (the recipe's warm-up, at most 20 s), the least-squares
slope's 95% interval excludes zero and the drift it makes over the window is more than
MAX_DRIFT of their mean. Per-second throughput moves 10-15% here, so a window cannot prove the
load flat; it can show that it is still clearly climbing or falling, as a buffer pool that
fills from disk does. A steady load costs no second more than the recipe's warm-up.

Plain Python: the lab VM's guest runs this without scipy."""

import math
import statistics

from tuninglab.recipes.model import Measure

MAX_DRIFT = 0.02
Z_975 = statistics.NormalDist().inv_cdf(0.975)


def t_975(df: int) -> float:
    """Student's t 97.5% quantile: the Cornish-Fisher expansion around the normal one
    (Abramowitz and Stegun 26.7.5), within 0.004 of the exact value from 3 degrees of freedom
    on; a window of at least MIN_STEADY_WINDOW_S seconds has 3 or more."""
    z, v = Z_975, float(df)
    terms = ((z ** 3 + z) / 4,
             (5 * z ** 5 + 16 * z ** 3 + 3 * z) / 96,
             (3 * z ** 7 + 19 * z ** 5 + 17 * z ** 3 - 15 * z) / 384,
             (79 * z ** 9 + 776 * z ** 7 + 1482 * z ** 5 - 1920 * z ** 3 - 945 * z) / 92160)
    return z + sum(term / v ** (k + 1) for k, term in enumerate(terms))


def drift(tps: list[float], window: int) -> tuple[float, bool]:
    """The last `window` seconds' drift (the slope times the window, as a fraction of their
    mean) and whether its slope is significant at 5%; (0, False) for too few seconds."""
    ys = [float(v) for v in tps[-window:]]
    n = len(ys)
    mean = statistics.fmean(ys) if ys else 0.0
    if n < 3 or mean <= 0:
        return 0.0, False
    xs = list(range(n))
    slope, intercept = statistics.linear_regression(xs, ys)
    residual = sum((y - (intercept + slope * x)) ** 2 for x, y in zip(xs, ys))
    centre = statistics.fmean(xs)
    spread = sum((x - centre) ** 2 for x in xs)
    se = math.sqrt(residual / (n - 2) / spread)
    significant = abs(slope) > t_975(n - 2) * se
    return slope * n / mean, significant


def trending(tps: list[float], window: int) -> bool:
    """Whether the load is still clearly climbing or falling (too few seconds: yes)."""
    if len(tps) < window:
        return True
    change, significant = drift(tps, window)
    return significant and abs(change) > MAX_DRIFT


def ready(tps: list[float], measure: Measure) -> bool:
    """Whether the measured seconds may start after these seconds of load: the recipe's
    warm-up is done and the load no longer trends, or the bound is reached."""
    if len(tps) >= measure.warmup_bound:
        return True
    return len(tps) >= measure.warmup and not trending(tps, measure.steady_window)


def outcome(tps: list[float], measure: Measure) -> dict:
    """What a run's summary records of its warm-up: how long it took, whether the load had
    stopped trending by then, and the bound it was allowed."""
    return {"seconds": len(tps), "steady": not trending(tps, measure.steady_window),
            "bound_s": measure.warmup_bound}
