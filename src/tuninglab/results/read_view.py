"""A run that held a read view over its first seconds ([workload] hold_read_view,
engine/measure/read_view.py), read from its per-second series: the seconds while the view was
held, those after its release, and how long purge took to drain the history list it let grow.

A run's summary["read_view"] records the second of the measured phase at which the view was
released (released_at_s): the series' seconds 1 to that one were held, the rest released.
Standard library only.
"""

import statistics

# Which seconds of a run a regime check reads ([[regime]] window): every one (None), those
# while the view was held, those after its release, those after its release until the history
# list had drained.
WINDOWS = ("held", "released", "draining")
# The history list has drained once it is back within this share of the backlog the view let
# grow (above its level when the view opened): its level under the load swings by thousands
# from one second to the next, so "back to where it was" is a band, not a value.
DRAINED_SHARE = 0.1
HISTORY = "history_list_length"


def released_index(run: dict) -> int | None:
    """The index in the run's series of its first second after the release (seconds 1..s were
    held, indices 0..s-1); None for a run that held no view or never released it."""
    found = (run.get("summary") or {}).get("read_view") or {}
    at = found.get("released_at_s")
    return None if at is None else int(round(at))


def window(values: list, run: dict, name: str | None) -> list | None:
    """A run's series cut to a window (None: the whole series; None back when the run has no
    such window: it held no view, or never drained)."""
    if name is None:
        return values
    start = released_index(run)
    if start is None or start >= len(values):
        return None
    if name == "held":
        return values[:start]
    if name == "released":
        return values[start:]
    seconds = drain_seconds(run)
    return None if seconds is None else values[start:start + seconds]


def window_mean(run: dict, series: str, name: str) -> float | None:
    """The mean of one of a run's per-second series over a window: what a windowed metric
    (metrics.WINDOWED, tps_draining) compares; None when the run has no such window or no
    value in it."""
    return _mean(window((run.get("series") or {}).get(series) or [], run, name))


def drain_seconds(run: dict) -> int | None:
    """Seconds from the view's release until the history list was back within DRAINED_SHARE
    of the backlog it grew while held (1: at the first second after the release); None when it
    never was within the run, or the run held no view or sampled no history list."""
    history = (run.get("series") or {}).get(HISTORY)
    start = released_index(run)
    if not history or start is None:
        return None
    level, peak = backlog(history[:start])
    if level is None:
        return None
    bound = level + DRAINED_SHARE * max(peak - level, 0)
    for i, value in enumerate(history[start:], 1):
        if value is not None and value <= bound:
            return i
    return None


def backlog(held: list) -> tuple:
    """(the history list's level as the view opened, its level at the release): its first and
    last known values over the held seconds; (None, None) without two."""
    known = [v for v in held if v is not None]
    if len(known) < 2:
        return None, None
    return known[0], known[-1]


def run_summary(run: dict) -> dict | None:
    """A held view's run in a few numbers: the backlog it let grow, how long the drain took
    and the throughput while the view was held, while it drained and after it was released;
    None for a run that held no view."""
    start = released_index(run)
    if start is None:
        return None
    series = run.get("series") or {}
    level, peak = backlog((series.get(HISTORY) or [])[:start])
    return {"backlog": None if level is None else peak - level,
            "drain_s": drain_seconds(run),
            **{f"tps_{name}": window_mean(run, "tps", name) for name in WINDOWS}}


def _mean(values: list | None) -> float | None:
    known = [v for v in values or [] if v is not None]
    return round(statistics.fmean(known), 1) if known else None


def point_summary(runs: list) -> dict | None:
    """A point's held-view runs in the numbers of run_summary, each the median over its runs
    (drained_runs: how many drained within the run); None when no run held a view. For the
    table of what the series show (timeseries.point_trends)."""
    found = [s for s in (run_summary(run) for run in runs) if s]
    if not found:
        return None
    out = {key: _median([s[key] for s in found]) for key in found[0]}
    out["drained_runs"] = sum(s["drain_s"] is not None for s in found)
    return out


def _median(values: list):
    known = [v for v in values if v is not None]
    return statistics.median(known) if known else None
