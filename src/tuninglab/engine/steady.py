"""A bounded steady-state check for a switchback's warm-up ([measure] steady = true): after
the recipe's warm-up, the load goes on while its throughput still trends, up to a bound, and
the blocks start once it does not. Off by default: `invoke bench --only noise` measures
whether it helps on a host (README: Noise control).

"Still trends": over the last WINDOW_S seconds, the least-squares slope's 95% interval excludes
zero and the drift it makes over the window is more than MAX_DRIFT of their mean. Per-second
throughput moves 10-15% here, so a window cannot prove the load flat; it can show that it is
still clearly climbing or falling."""

import math
import statistics

from scipy.stats import t as student_t

from tuninglab.recipes.model import STEADY_WINDOW_S, Measure

WINDOW_S = STEADY_WINDOW_S
MAX_DRIFT = 0.02


def drift(tps: list[float]) -> tuple[float, bool]:
    """The last WINDOW_S seconds' drift (the slope times the window, as a fraction of their
    mean) and whether its slope is significant at 5%; (0, False) for too few seconds."""
    ys = [float(v) for v in tps[-WINDOW_S:]]
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
    significant = abs(slope) > student_t.ppf(0.975, n - 2) * se
    return slope * n / mean, significant


def trending(tps: list[float]) -> bool:
    """Whether the load is still clearly climbing or falling (too few seconds: yes)."""
    if len(tps) < WINDOW_S:
        return True
    change, significant = drift(tps)
    return significant and abs(change) > MAX_DRIFT


def bound(warmup: float) -> int:
    """The most seconds of warm-up a steady-state check may take (Measure.warmup_bound)."""
    return Measure(warmup, 1, 1).warmup_bound


def ready(tps: list[float], warmup: float) -> bool:
    """Whether the blocks may start after these seconds of load: the recipe's warm-up is done
    and the load no longer trends, or the bound is reached."""
    return len(tps) >= bound(warmup) or (len(tps) >= warmup and not trending(tps))
