"""The per-second series of one run, reduced to the few numbers that explain an InnoDB setting:
does purge keep up (the slope of the history list length), does throughput dip (and did the dips
start with the redo log nearly full), how full did the redo log get.

Standard library only, plus tuninglab.stats for the t quantile: the lab VM imports engine code
and has no scipy, so stats (which needs scipy) is imported only inside slope().
"""

import math
import statistics

from tuninglab.results import read_view


def slope(values, t=None) -> dict | None:
    """Least-squares slope per second, with its 95% t interval; None with fewer than 3 points.

    Seconds whose value (or time) is None are skipped, but the others keep their own time, so a
    gap does not bend the line. "growing" is True only when the whole interval is above zero:
    noise around a flat history list is not purge falling behind.
    """
    times = range(1, len(values) + 1) if t is None else t
    points = [(float(x), float(y)) for x, y in zip(times, values)
              if x is not None and y is not None]
    n = len(points)
    if n < 3:  # two points always fit a line exactly: no residuals, no interval
        return None
    xs, ys = zip(*points)
    try:
        per_s, intercept = statistics.linear_regression(xs, ys)
    except statistics.StatisticsError:  # every point at the same second: no slope
        return None
    mean_x = statistics.fmean(xs)
    sxx = math.fsum((x - mean_x) ** 2 for x in xs)
    sse = math.fsum((y - intercept - per_s * x) ** 2 for x, y in points)
    from tuninglab.results.stats import t_quantile  # here: stats needs scipy (see the docstring)
    half = t_quantile(0.95, n - 2) * math.sqrt(sse / (n - 2) / sxx)  # t × standard error
    low, high = per_s - half, per_s + half
    return {"per_s": per_s, "ci95": [low, high], "n": n, "growing": low > 0}


def dips(tps, age=None, capacity=None, near=0.8, drop=0.5) -> dict:
    """Throughput dips: runs of consecutive seconds below drop × the run's median tps.

    A stall (a sync flush, a full redo log) hides in the mean but shows here. A second without a
    tps value is not a dip second, so it also ends the dip it interrupts. near_capacity counts the
    dips that started while checkpoint age >= near × capacity, the sign of a redo log too small
    for the write rate; it is None without age and capacity series (or when they hold no value),
    and a dip whose first second lacks either is not counted.
    """
    known = [v for v in tps if v is not None]
    median = statistics.median(known) if known else 0
    runs = _runs([v is not None and v < drop * median for v in tps])
    depth = 0
    if runs:  # a dip exists only below a positive median, so the division is safe
        worst = min(tps[i] for a, b in runs for i in range(a, b))
        depth = round(100 * (median - worst) / median, 1)
    return {
        "count": len(runs),
        "depth_pct": depth,
        "seconds": sum(b - a for a, b in runs),
        "near_capacity": _near_capacity(runs, age, capacity, near),
    }


def summarize_run(series: dict) -> dict:
    """The run's time-series findings, beside its throughput: a scan has no tps series, and a
    server without a metric records None for it, so each finding is None when its input is."""
    history = series.get("history_list_length")
    tps = series.get("tps")
    age, capacity = series.get("checkpoint_age_bytes"), series.get("checkpoint_max_age_bytes")
    fills = [a / c for a, c in _both_known(age, capacity)]
    return {
        "history_slope": slope(history, series.get("t")) if history else None,
        "dips": dips(tps, age, capacity) if tps and any(v is not None for v in tps) else None,
        "checkpoint_fill_max": round(max(fills), 3) if fills else None,
    }


def _runs(flags) -> list[tuple[int, int]]:
    """(start, stop) of each run of consecutive True flags, stop exclusive."""
    runs, start = [], None
    for i, flag in enumerate([*flags, False]):  # the sentinel closes a run at the end
        if flag and start is None:
            start = i
        elif not flag and start is not None:
            runs.append((start, i))
            start = None
    return runs


def _both_known(age, capacity) -> list[tuple[float, float]]:
    """(age, capacity) for the seconds where both are known and the capacity is positive."""
    if age is None or capacity is None:
        return []
    return [(a, c) for a, c in zip(age, capacity) if a is not None and c is not None and c > 0]


def _near_capacity(runs, age, capacity, near) -> int | None:
    if not _both_known(age, capacity):  # not sampled on this server: unknown, not zero
        return None
    count = 0
    for start, _ in runs:
        a = age[start] if start < len(age) else None
        c = capacity[start] if start < len(capacity) else None
        if a is not None and c is not None and c > 0 and a >= near * c:
            count += 1
    return count


def shows_anything(trends: dict | None) -> bool:
    """Whether a point's trends (point_trends) hold any finding: a timed scan's runs have
    series with no seconds of load, so every finding is None."""
    return bool(trends) and any(v is not None for k, v in trends.items() if k != "runs")


def point_trends(runs: list) -> dict | None:
    """The findings of a point's runs, for its verdict: the median history slope and how many
    runs saw the history list keep growing, the median number and depth of throughput dips
    (and how many started with the redo log nearly full), and the fullest the redo log got."""
    found = [summarize_run(run["series"]) for run in runs if run.get("series")]
    if not found:
        return None
    slopes = [f["history_slope"] for f in found if f["history_slope"]]
    dipped = [f["dips"] for f in found if f["dips"]]
    near = [d["near_capacity"] for d in dipped if d["near_capacity"] is not None]
    fills = [f["checkpoint_fill_max"] for f in found if f["checkpoint_fill_max"] is not None]
    held = read_view.point_summary(runs)  # a held view's backlog and drain, where one was held
    return ({"read_view": held} if held else {}) | {
        "runs": len(found),
        "history_slope_per_s": _median([s["per_s"] for s in slopes], 2),
        "history_growing_runs": sum(s["growing"] for s in slopes) if slopes else None,
        "history_end": _median([_last(run["series"].get("history_list_length"))
                                for run in runs if run.get("series")], 0),
        "dips": _median([d["count"] for d in dipped], 1),
        "dip_depth_pct": _median([d["depth_pct"] for d in dipped], 1),
        "dips_near_capacity": sum(near) if near else None,
        "checkpoint_fill_max": max(fills) if fills else None,
    }


def fill_pct(series: dict) -> list | None:
    """Checkpoint age as a percentage of the redo capacity, second by second."""
    age, capacity = series.get("checkpoint_age_bytes"), series.get("checkpoint_max_age_bytes")
    if age is None or capacity is None:
        return None
    return [round(100 * a / c, 1) if a is not None and c else None
            for a, c in zip(age, capacity)]


def _last(values):
    known = [v for v in values or [] if v is not None]
    return known[-1] if known else None


def _median(values, digits: int):
    known = [v for v in values if v is not None]
    return round(statistics.median(known), digits) if known else None
