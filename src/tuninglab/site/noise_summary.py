"""Run-to-run noise of every result file, for the notebook docs/notebooks/noise.ipynb: per
point, the coefficient of variation (CV) of its repeats' primary metric (Result.metric:
tps, new-order TPM or a scan's MiB/s) and of its runs' per-second series; what was skipped
and why; and the figure, drawn by the site's own charts.js like a plotly fence's.

Results are read as the site reads them (result_files: statistics recomputed, format
characters made visible); every text from a data file is escaped in the figure (esc).
"""

import math
import statistics
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

from tuninglab.evidence import result_files
from tuninglab.results import stats
from tuninglab.results.metrics import METRICS
from tuninglab.results.result import Point as ResultPoint
from tuninglab.results.result import Result
from tuninglab.site.describe import esc, lab_text
from tuninglab.site.fence import embed

# Why a result file or a point gives no CV: the notebook says how many, for each.
INVALID = "result files marked invalid (a consistency check failed after the run, or " \
          "its runs give no statistics)"
FUTURE = "result files dated in the future"
FEW = "points with fewer than 2 repeats"
MISSING = "points with a repeat that lacks the value of its metric"
NOTHING = "points whose repeats all measured 0"


@dataclass(frozen=True)
class Point:
    recipe: str
    variant: str
    setting: str
    where: str  # the machine the runs measured: a host, or a lab VM on it
    shape: str  # dataset shape: cpu-bound or disk-bound
    design: str  # restart or switchback
    metric: str
    repeats: int
    cv: float  # between repeats, % of their mean
    per_second_cv: float | None  # median over the runs of the per-second CV, %
    seconds: float | None  # median length of the runs' per-second series


def cv(values: list[float]) -> float | None:
    """Standard deviation / mean, in %: None for fewer than 2 values or a mean of 0."""
    if len(values) < 2 or statistics.mean(values) <= 0:
        return None
    return statistics.stdev(values) / statistics.mean(values) * 100


def where(doc: dict) -> str:
    """A short name of the machine a result measured (plain text: escape it to show it)."""
    r = Result.of(doc)
    name = f"{r.cpu_model or 'unknown CPU'}, {r.host_id[:8]}"
    if r.contributed:
        name += ", contributed"
    lab = lab_text(doc)
    return f"{lab.split(',')[0]} on {name}" if lab else name


@dataclass(frozen=True)
class Noise:
    points: list[Point]
    skipped: Counter  # {why: how many result files or points}
    files: int  # result files read
    used: int  # of which at least one point gives a CV


def collect(data_dir: Path | None = None) -> Noise:
    """Every point that gives a CV, over every recipe's results (variants included), and
    what was skipped, for each reason."""
    data_dir = Path(data_dir or result_files.DATA_DIR)
    points, skipped, files, used = [], Counter(), 0, 0
    for directory in result_files.result_dirs(data_dir):
        for r in result_files.results_for(directory.name, variant=None, data_dir=data_dir,
                                          listing=True):
            files += 1
            if r.invalid:
                skipped[INVALID] += 1
            elif result_files.future(r):
                skipped[FUTURE] += 1
            else:
                mine = [_point(directory.name, r, p, skipped) for p in r.points]
                points += filter(None, mine)
                used += any(mine)
    return Noise(points, skipped, files, used)


def _point(recipe: str, r: Result, p: ResultPoint, skipped: Counter) -> Point | None:
    metric = r.metric
    values = p.values(metric)
    reason = (FEW if len(values) < 2 else
              MISSING if not all(_number(v) for v in values) else
              NOTHING if cv(values) is None else None)
    if reason:
        skipped[reason] += 1
        return None
    series = [[v for v in run.get("series", {}).get(metric) or [] if _number(v)]
              for run in p.runs]
    within = [c for c in map(cv, series) if c is not None]
    return Point(recipe, r.variant, str(p.value), where(r), r.shape or "?", r.design,
                 metric, len(values), cv(values),
                 statistics.median(within) if within else None,
                 statistics.median(map(len, series)) if within else None)


def _number(value) -> bool:
    return isinstance(value, (int, float)) and math.isfinite(value)


def median_by(points: list[Point], key: str) -> dict[str, tuple]:
    """{each value of the field key: (how many points, their median between-repeat CV, the
    median of their per-second CVs or None)}."""
    groups = {}
    for p in points:
        groups.setdefault(getattr(p, key), []).append(p)
    return {k: (len(g), statistics.median(p.cv for p in g), _median(p.per_second_cv for p in g))
            for k, g in sorted(groups.items())}


def _median(values) -> float | None:
    known = [v for v in values if v is not None]
    return statistics.median(known) if known else None


def equivalence_cv(repeats: int, margin: float = stats.DEFAULT_SMALLEST_EFFECT) -> float:
    """The largest between-repeat CV (%) at which two settings that measure exactly alike,
    each over `repeats` repeats, are found equivalent within ±margin: the 90% Welch interval
    of their ratio (stats.compare's equivalence test) is then just as wide as the margin."""
    t = stats.t_quantile(0.90, 2 * repeats - 2)
    return math.log(1 + margin) / (t * math.sqrt(2 / repeats)) * 100


def figure(points: list[Point], by: str) -> dict:
    """Each point's between-repeat CV, one row for each value of the field `by` (recipe, or
    where: the machine), a box spanning the middle half of the row's points."""
    rows = sorted({getattr(p, by) for p in points})
    text = [esc(f"{p.recipe} {p.variant or 'main'}: {p.setting}; {p.where}; {p.repeats} "
                f"repeats ({p.design}), {METRICS[p.metric].label}") for p in points]
    # Dots, not a box plot: the site's plotly.js bundle has no box trace (plotly_bundle).
    trace = {"type": "scatter", "mode": "markers", "name": "points", "showlegend": False,
             "marker": {"opacity": 0.6},
             "x": [p.cv for p in points], "y": [esc(getattr(p, by)) for p in points],
             "text": text, "hovertemplate": "%{text}: CV %{x:.1f}%<extra></extra>"}
    return {"data": [trace], "layout": {
        "height": 140 + 28 * len(rows),
        "xaxis": {"title": {"text": "between-repeat CV of the primary metric "
                                    "(% of the mean)"}, "rangemode": "tozero"},
        "yaxis": {"title": {"text": {"recipe": "recipe", "where": "machine"}.get(by, by)},
                  "type": "category", "automargin": True,
                  "categoryorder": "array", "categoryarray": [esc(r) for r in rows][::-1]}}}


def show(fig: dict):
    """The figure as a notebook output: on the site, the markup of a plotly fence, which the
    site's charts.js draws with its own plotly.js; in JupyterLab, Plotly's own mime type."""
    from IPython.display import display
    display({"text/html": embed(fig), "application/vnd.plotly.v1+json": fig,
             "text/plain": "a Plotly figure (drawn on the site)"}, raw=True)
