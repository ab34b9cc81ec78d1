"""A recipe's regime checks ([[regime]]): the conditions under which its question means what
its page says, checked on the recorded runs once they are done (results/regime.py). Each names
a metric the engine records, how a run's series reduce to one number (a cost per transaction
is one already), the bound, which points it holds for, and why it matters:

    [[regime]]
    metric = "checkpoint_fill_pct"   # a series (metrics.REGIME_SERIES) or a cost (COST)
    statistic = "max"                # series only: median (default), max, min, slope, drift,
    #                                  fall (the most it fell from a higher earlier second)
    at_least = 80                    # or at_most; in the unit the pages show (%, KiB, ...)
    of = "baseline"                  # or "each" (the default): every point
    why = "the smallest redo log fills"

A recipe whose workload holds a read view ([workload] hold_read_view) may cut a series to
`window = "held"` (the seconds while the view was held), "released" (those after its
release) or "draining" (those after its release until the history list had drained), and has
one statistic more, "drain": the seconds purge took to drain the history list the view let
grow (metric history_list_length, no window; results/read_view.py).

`point = "threads"` instead of `of` holds one point (by its sweep value) to the condition, for
what the lab VM's guest saw (metrics.GUEST: its threads per core, write cache, fsyncs/s,
page-table isolation). metrics.RUN_FACTS are one number a run as well: the share of a scan's
bytes the device read, whether the redo log's device shares the data's physical disk.
A variant's [[regime]] replaces the main experiment's; `regime = []` drops them.
"""

import tomllib

from tuninglab.recipes.reader import Reader
from tuninglab.results.metrics import COST, GUEST, METRICS, REGIME_METRICS, RUN_FACTS
from tuninglab.results.read_view import HISTORY, WINDOWS

STATISTICS = ("median", "max", "min", "slope", "drift", "fall", "drain")
OF = ("each", "baseline")


def parse(top: Reader, sweep_values=None) -> tuple:
    """The [[regime]] conditions, each as (key, value) pairs (a Recipe is frozen and hashable;
    dict() of one is what the result file carries). sweep_values: the points a `point` may
    name (None: not checked)."""
    raw = top.data.get("regime", [])
    if not isinstance(raw, list) or not all(isinstance(c, dict) for c in raw):
        top.fail("regime", "expected an array of tables ([[regime]])")
    prefix = f"{top.where}." if top.where else ""
    held = _holds_view(top)
    return tuple(tuple(_condition(Reader(top.path, c, f"{prefix}regime[{i}]"),
                                  sweep_values, held).items())
                 for i, c in enumerate(raw))


def _holds_view(top: Reader) -> bool | None:
    """Whether the experiment's workload holds a read view (None: its table is not in this
    one, as in a variant's own regime read alone by declared())."""
    workload = top.data.get("workload")
    if not isinstance(workload, dict):
        return None
    return bool(workload.get("hold_read_view"))


def declared(text: str, variant: str = "") -> list[dict]:
    """The conditions a recipe's text declares for its main experiment or a variant, as a
    result file carries them (data.check holds a result to them: a condition dropped from a
    file would turn "regime not reached" into a verdict). UserError or TOMLDecodeError for a
    text that does not parse."""
    data = tomllib.loads(text)
    own = data.get("variants", {}).get(variant, {}) if variant else {}
    table = own if "regime" in own else data
    where = f"variants.{variant}" if table is own else ""
    return [dict(c) for c in parse(Reader("recipe.text", table, where))]


def _condition(t: Reader, sweep_values, held: bool | None = None) -> dict:
    t.only("metric", "statistic", "at_least", "at_most", "of", "point", "why", "window")
    metric = t.get("metric", str)
    if metric not in REGIME_METRICS:
        t.fail("metric", f"{metric!r} is not a metric the engine records; expected one of "
                         f"{', '.join(REGIME_METRICS)}")
    is_cost = metric in COST or metric in GUEST or metric in RUN_FACTS   # one number a run
    statistic = t.get("statistic", str, None)
    if is_cost and statistic is not None:
        t.fail("statistic", f"{metric} is one number per run already: leave statistic out")
    if not is_cost and (statistic or "median") not in STATISTICS:
        t.fail("statistic", f"expected one of {', '.join(STATISTICS)}, got {statistic!r}")
    bounds = [k for k in ("at_least", "at_most") if k in t.data]
    if len(bounds) != 1:
        t.fail("at_least", "expected exactly one of at_least and at_most")
    bound = t.get(bounds[0], (int, float))
    if isinstance(bound, bool):
        t.fail(bounds[0], f"expected a number, got {bound!r}")
    window = _window(t, metric, statistic, is_cost, held)
    of, point = _of(t, sweep_values)
    why = t.get("why", str)
    if not why.strip() or len(why) > 200:
        t.fail("why", "expected a short sentence (1 to 200 characters)")
    return {"metric": metric, "statistic": "value" if is_cost else (statistic or "median"),
            bounds[0]: float(bound), "of": of, **({"point": point} if point else {}),
            **({"window": window} if window else {}),
            "why": why, "unit": unit(metric, statistic)}


def _window(t: Reader, metric: str, statistic, is_cost: bool, held: bool | None) -> str | None:
    """The seconds a condition reads around a held read view (None: every one), and the drain
    statistic's own rules: both need a workload that holds a view."""
    window = t.get("window", str, None)
    if window is not None and window not in WINDOWS:
        t.fail("window", f"expected one of {', '.join(WINDOWS)}, got {window!r}")
    if window is not None and is_cost:
        t.fail("window", f"{metric} is one number per run, over all its seconds: leave window "
                         "out")
    if statistic == "drain":
        if metric != HISTORY:
            t.fail("statistic", f"drain is the seconds the history list takes to drain: "
                                f"expected metric = \"{HISTORY}\", got {metric!r}")
        if window is not None:
            t.fail("window", "drain reads the seconds after the release itself: leave window "
                             "out")
    if (window or statistic == "drain") and held is False:
        t.fail("window" if window else "statistic",
               "only a workload that holds a read view has these seconds: add [workload] "
               'hold_read_view (e.g. "20s"), or leave it out')
    return window


def _of(t, sweep_values) -> tuple[str, str | None]:
    """Which points a condition holds: each, the baseline, or the one point named by its sweep
    value."""
    if "point" in t.data:
        if "of" in t.data:
            t.fail("point", "give either of or point, not both")
        point = t.get("point", (str, int))
        values = None if sweep_values is None else [str(v) for v in sweep_values]
        if isinstance(point, bool) or not str(point).strip() or \
                (values is not None and str(point) not in values):
            t.fail("point", f"{point!r} is not a value of the sweep"
                            + (f" ({', '.join(values)})" if values else ""))
        return "point", str(point)
    of = t.get("of", str, "each")
    if of not in OF:
        t.fail("of", f"expected one of {', '.join(OF)}, got {of!r}")
    return of, None


def unit(metric: str, statistic: str | None) -> str:
    """The unit a condition's bound is in: the metric's as shown, per second for a slope (the
    end of its 95% interval on the bound's side: results/regime.slope_bound), %
    for a drift (the least trend over the run its 95% interval allows, as a share of its
    mean: results/regime.drift_pct)."""
    shown = METRICS[metric].unit
    if statistic == "drain":
        return "s"
    if statistic == "drift":
        return "%"
    return f"{shown} per second" if statistic == "slope" else shown
