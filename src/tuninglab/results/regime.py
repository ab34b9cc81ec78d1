"""Whether an experiment ran in the regime its question is about, from its own runs: the recipe's
[[regime]] conditions (recipes/regime.py), which the result file carries in "regime", checked on
each point's recorded series and costs. A point outside its regime, or a baseline outside its
own, gets the verdict "regime not reached" instead of faster or slower (document.point_stats).

A run's series reduces to one number by the condition's statistic (a slope to its 95%
interval's end on the bound's side: slope_bound), a cost per transaction is one already; a
point's value is the median over its runs. A run that held a read view may be read over the
seconds while it was held or after its release (the condition's window), or for the seconds
its history list took to drain (the drain statistic; results/read_view.py). A metric no run
recorded gives no value, and a condition without a value is not met: the regime is not shown,
so not reached.
"""

import math
import statistics

from tuninglab.results import read_view, timeseries
from tuninglab.results.metrics import COST, GUEST, METRICS, RUN_FACTS, decimals


def conditions(doc: dict) -> list[dict]:
    return doc.get("regime") or []


def check(doc: dict) -> dict:
    """{point id: {"reached": bool, "checks": [{"condition": i, "value": v, "ok": bool}]}}:
    each point's own checks (the "each" conditions, and the "baseline" ones for the baseline),
    and whether its comparison stands: its checks and the baseline's all met. Empty without
    conditions."""
    found = conditions(doc)
    if not found:
        return {}
    base = doc["sweep"]["baseline"]
    out = {}
    for p in doc["points"]:
        checks = []
        for i, c in enumerate(found):
            if concerns(c, p, base):
                value = point_value(p["runs"], c)
                checks.append({"condition": i, "value": value, "ok": met(value, c)})
        out[p["id"]] = {"reached": all(k["ok"] for k in checks), "checks": checks}
    for p in doc["points"]:  # a comparison needs the baseline in its regime too
        out[p["id"]]["reached"] = out[p["id"]]["reached"] and out[base]["reached"]
    return out


def concerns(c: dict, p: dict, base: str) -> bool:
    """Whether condition c holds point p: each point, the baseline, or its one point."""
    if c["of"] == "point":
        return str(p["value"]) == c["point"]
    return c["of"] == "each" or p["id"] == base


def check_of(p: dict, i: int) -> dict | None:
    """A point's check of condition i (as check() stored it in its stats), or None when the
    condition does not concern the point."""
    return next((k for k in p["stats"].get("regime", {}).get("checks", [])
                 if k["condition"] == i), None)


def met(value: float | None, c: dict) -> bool:
    if value is None:
        return False
    if "at_least" in c:
        return value >= c["at_least"]
    return value <= c["at_most"]


def point_value(runs: list, c: dict) -> float | None:
    """The median over the runs of each run's value (runs without one are left out)."""
    values = [v for v in (run_value(run, c) for run in runs) if v is not None]
    return _round(statistics.median(values)) if values else None


def run_value(run: dict, c: dict) -> float | None:
    """One run's number for a condition, in the unit its bound is in."""
    metric, statistic = c["metric"], c["statistic"]
    if metric in GUEST:
        return guest_value(run.get("lab") or {}, metric)
    if metric in RUN_FACTS:
        return fact_value(run, metric)
    if metric in COST:
        value = (run.get("summary", {}).get("cost") or {}).get(metric)
        return None if value is None else value * METRICS[metric].scale
    if statistic == "drain":
        return read_view.drain_seconds(run)
    series = run.get("series") or {}
    values = timeseries.fill_pct(series) if metric == "checkpoint_fill_pct" \
        else series.get(metric)
    values = read_view.window(values or [], run, c.get("window"))
    known = [v for v in values or [] if v is not None]
    if not known:
        return None
    scale = METRICS[metric].scale
    if statistic == "drift":
        return drift_pct(values)
    if statistic == "slope":
        return slope_bound(values, c, scale)
    if statistic == "fall":
        return largest_fall(known) * scale
    pick = {"median": statistics.median, "max": max, "min": min}[statistic]
    return pick(known) * scale


def guest_value(lab: dict, metric: str) -> float | None:
    """What the lab VM's guest saw of its machine, as a number (None: not recorded)."""
    if metric == "guest_threads_per_core":
        value = lab.get("threads_per_core")
    elif metric == "guest_write_cache":
        value = {"write back": 1, "write through": 0}.get(lab.get("write_cache"))
    elif metric == "guest_pti":
        return pti_value(lab)
    else:
        value = (lab.get("fio") or {}).get("fsync_per_s")
    return None if value is None else float(value)


def pti_value(lab: dict) -> float | None:
    """1 when the guest's kernel isolated the page tables, 0 when it did not, None when the run
    recorded neither sign. The kernel's meltdown file says "Mitigation: PTI" only on a CPU it
    thinks affected: on one it does not (TCG's AMD-branded CPU, a host that reports RDCL_NO),
    pti=on still turns isolation on but the file reads "Not affected"; the CPU flag "pti"
    (engine/lab/guest.py records it) shows it either way."""
    meltdown = (lab.get("vulnerabilities") or {}).get("meltdown")
    flag = lab.get("page_table_isolation")
    if meltdown is None and flag is None:
        return None
    return 1.0 if flag or meltdown == "Mitigation: PTI" else 0.0


def fact_value(run: dict, metric: str) -> float | None:
    """A run's storage or scan fact as a number (metrics.RUN_FACTS; None: not recorded)."""
    if metric == "logs_shared_disk":
        data = (run.get("storage") or {}).get("physical_disks")
        logs = (run.get("logs_storage") or {}).get("physical_disks")
        if not data or not logs:
            return None
        return 1.0 if set(data) & set(logs) else 0.0
    summary = run.get("summary") or {}
    if metric == "scan_seconds":
        seconds = summary.get("runtime_s")
        return None if seconds is None else _round(float(seconds))
    device = (summary.get("io") or {}).get("read_bytes")
    innodb = summary.get("scanned_bytes")
    if device is None or not innodb:
        return None
    return _round(device / innodb * 100)


def slope_bound(values: list, c: dict, scale: float) -> float | None:
    """A run's slope as far toward the bound as its 95% interval allows: the interval's low
    end for an at_least bound, its high end for at_most. A history list swings by hundreds
    from one second to the next, so a short run's point slope can pass a bound on noise alone;
    the interval's end passes only on a trend the run proves."""
    found = timeseries.slope(values)
    if found is None:
        return None
    low, high = found["ci95"]
    return (low if "at_least" in c else high) * scale


def largest_fall(known: list) -> float:
    """The most the series fell from a higher earlier second (0 for one that never fell): a
    redo log's checkpoint fill falls when a flush frees it, so a run whose fill fell by much
    held a whole checkpoint cycle, not only a log still filling."""
    peak, fall = known[0], 0.0
    for v in known:
        peak = max(peak, v)
        fall = max(fall, peak - v)
    return fall


def drift_pct(values: list) -> float | None:
    """The least trend the series shows over the run, as a share of its mean in %: the
    least-squares slope times the seconds, over the mean, less its 95% half-width (0 when the
    interval holds no trend). Per-second throughput moves 10-15% here: a 15 s run cannot prove
    itself flat, but a drift this far from 0 is a run still warming up or running down."""
    found = timeseries.slope(values)
    known = [v for v in values if v is not None]
    mean = statistics.fmean(known) if known else 0
    if found is None or mean <= 0:
        return None
    low, high = found["ci95"]
    least = 0.0 if low <= 0 <= high else min(abs(low), abs(high))
    return _round(least * len(values) / mean * 100)


def describe(c: dict) -> str:
    """A condition in words: 'the baseline's max checkpoint_fill_pct at least 80 %'."""
    whose = {"baseline": "the baseline's", "each": "each point's"}.get(
        c["of"], f"the {c.get('point')} point's")
    what = METRICS[c["metric"]].label
    how = "" if c["statistic"] in ("value", "slope", "drain", "fall") else f"{c['statistic']} "
    bound = (f"at least {c['at_least']:g}" if "at_least" in c else f"at most {c['at_most']:g}")
    if c["statistic"] == "slope":
        end = "low" if "at_least" in c else "high"
        what += f" slope (its 95% interval's {end} end)"
    if c["statistic"] == "fall":
        what += "'s largest fall (from a higher earlier second)"
    if c["statistic"] == "drain":
        what = (f"{what}'s drain (seconds from the read view's release to within "
                f"{read_view.DRAINED_SHARE:.0%} of its backlog)")
    what += WINDOW_WORDS.get(c.get("window"), "")
    unit = f" {c['unit']}" if c["unit"] else ""
    return f"{whose} {how}{what} {bound}{unit} ({c['why']})"


# How describe() names a condition's window (results/read_view.WINDOWS).
WINDOW_WORDS = {"held": " while the read view was held",
                "released": " after the read view's release",
                "draining": " while the history list drained after the release"}


def value_text(check: dict, unit: str = "") -> str:
    """A point's value for a condition as the tables show it: '895 KiB', or 'none'."""
    value = check["value"]
    if value is None:
        return "none"
    return f"{value:,.{decimals(value)}f}" + (f" {unit}" if unit else "")


def _round(value: float) -> float:
    """Four significant digits: enough to compare with a bound, and stable in the file."""
    if value == 0 or not math.isfinite(value):
        return value
    return float(f"{value:.4g}")
