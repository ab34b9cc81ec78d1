"""Plotly figures (as plain dicts) of result files: a recipe's results as bars per host (with
the values normalised by each host's device), one result's per-second series as lines, and a
RAID result's IO per transaction. Labels, units and scales come from results.metrics; every text
from a data file is escaped (describe.esc).
"""

import statistics

from tuninglab.results import stats, timeseries
from tuninglab.results.metrics import METRICS
from tuninglab.site.describe import (
    baseline_text,
    device,
    esc,
    host_description,
    host_name,
    software_text,
    uncapped,
    verdict_text,
)
from tuninglab.site.result_files import latest_per_host

# Series computed from others when charted, not stored.
DERIVED = {"checkpoint_fill_pct": timeseries.fill_pct}


def _stat_for(point: dict, metric: str):
    """The point's summary of a metric, computed from its runs' summaries."""
    if metric in point["stats"]:
        return point["stats"][metric]
    values = [run["summary"].get(metric, run["summary"]["io"].get(metric))
              for run in point["runs"]]
    if not values or any(v is None for v in values):
        return None
    return stats.summarize(values).to_dict()


# Metrics that can be divided by the host's device: (baseline field, per how many, unit). The
# result's own baseline is used (measured where its runs live), not a sandbox run's, which
# measures the very configuration under test and would divide its effect away.
NORMALISE = {"tps": ("fsync_per_s", 1000, "transactions/s per 1000 fsync/s"),
             "new_order_tpm": ("fsync_per_s", 1000,
                               "new-order transactions/min per 1000 fsync/s")}


# Hosts a results chart draws one by one; the others are drawn as one aggregate series, so a
# page stays light however many people contribute.
MAX_HOSTS = 20


def results_bars(docs: list[dict], metric: str) -> dict:
    """Median per point with its 95% interval as error bars, one series per host (its latest
    result), so different machines stand side by side; beyond MAX_HOSTS, the project's own
    hosts and the latest contributions, then one series for all the others. For a throughput
    chart whose hosts all have a device baseline, the figure also carries the values divided
    by it ("normalise": what the page's toggle swaps in), comparing the settings' effect
    rather than raw speed."""
    label, unit = METRICS[metric].label, METRICS[metric].unit
    shown, others = split_hosts(latest_per_host(docs))
    names = [host_name(doc) for doc in shown]
    traces, normalised = [], []
    for doc, name in zip(shown, names):
        if names.count(name) > 1:  # two machines described alike: tell them apart
            contributed = ", contributed" if doc.get("contribution") else ""
            name = f"{name} ({doc['host']['id'][:8]}{contributed})"
        trace, divided = _host_trace(doc, esc(name), metric, unit)
        traces.append(trace)
        normalised.append(divided)
    if others:
        trace, divided = _others_trace([_host_trace(d, "", metric, unit) for d in others],
                                       unit)
        traces.append(trace)
        normalised.append(divided)
    setting = esc(docs[-1]["sweep"]["setting"]) if docs else ""
    title = f"{label} ({unit})"
    figure = {"data": traces, "layout": {
        "barmode": "group", "xaxis": {"title": {"text": setting}, "type": "category"},
        "yaxis": {"title": {"text": title}},
        "showlegend": True, "legend": {"orientation": "h", "y": -0.25}}}
    if metric in NORMALISE and normalised and None not in normalised:
        per_unit = NORMALISE[metric][2]
        figure["normalise"] = {
            "raw": _mode([[t["y"], t["error_y"]["array"], t["error_y"]["arrayminus"]]
                          for t in traces], title, _hovertemplate(unit, ".1f")),
            "normalised": _mode(normalised, per_unit, _hovertemplate(per_unit, ".2f"))}
    return figure


def split_hosts(hosts: list[dict]) -> tuple[list[dict], list[dict]]:
    """(drawn one by one, aggregated): every host whose latest result is the project's own,
    then the latest contributions up to MAX_HOSTS; both oldest first."""
    if len(hosts) <= MAX_HOSTS:
        return hosts, []
    own = [d for d in hosts if not d.get("contribution")]
    contributed = [d for d in hosts if d.get("contribution")]
    room = max(MAX_HOSTS - len(own), 0)
    recent = contributed[len(contributed) - room:] if room else []
    keep = {id(d) for d in own + recent}
    return ([d for d in hosts if id(d) in keep], [d for d in hosts if id(d) not in keep])


def _host_trace(doc: dict, name: str, metric: str, unit: str) -> tuple[dict, list | None]:
    """One host's bars, and its [y, up, down] divided by its device (None: not normalisable)."""
    scale = METRICS[metric].scale
    # A disk-bound result without the memory model says so in every bar's hover, so that it
    # is never silently charted beside capped ones (the verdicts' table says it at length).
    about = "<br>".join(esc(text) for text in (
        host_description(doc), software_text(doc), baseline_text(doc),
        f"{doc['profile']} result of {doc['started'][:10]}",
        *(["memory not capped: the OS may have cached the data"] if uncapped(doc) else [])))
    xs, ys, up, down, hover = [], [], [], [], []
    for point in doc["points"]:
        s = _stat_for(point, metric)
        if not s:
            continue
        median = s["median"] * scale
        xs.append(esc(point["value"]))
        ys.append(median)
        up.append((s["ci_high"] * scale - median) if s["ci_high"] is not None else 0)
        down.append((median - s["ci_low"] * scale) if s["ci_low"] is not None else 0)
        hover.append(esc(verdict_text(point)))
    # The host's text once per trace (meta), not once per bar.
    trace = {"type": "bar", "name": name, "x": xs, "y": ys,
             "error_y": {"type": "data", "array": up, "arrayminus": down, "visible": True},
             "customdata": hover, "meta": about, "hovertemplate": _hovertemplate(unit, ".1f")}
    divided = None
    if metric in NORMALISE:
        field, per, _ = NORMALISE[metric]
        baseline = device(doc, field)
        if baseline is not None:
            divided = [[v * per / baseline for v in values] for values in (ys, up, down)]
    return trace, divided


def _others_trace(host_traces: list, unit: str) -> tuple[dict, list | None]:
    """The hosts not drawn one by one, as one series: per setting, the median of their
    medians, the error bars spanning the middle half of the hosts (quartiles)."""
    xs = list(dict.fromkeys(x for trace, _ in host_traces for x in trace["x"]))
    ys, up, down, counts = _spread(xs, [(t["x"], t["y"]) for t, _ in host_traces])
    trace = {"type": "bar", "name": f"{len(host_traces)} other hosts (median)", "x": xs,
             "y": ys, "error_y": {"type": "data", "array": up, "arrayminus": down,
                                  "visible": True},
             "customdata": counts,
             "meta": "the median of these hosts' latest results; error bars: the middle half "
                     "of the hosts (quartiles)",
             "hovertemplate": _hovertemplate(unit, ".1f")}
    divided = None
    if all(d is not None for _, d in host_traces):
        divided = list(_spread(xs, [(t["x"], d[0]) for t, d in host_traces])[:3])
    return trace, divided


def _spread(xs: list, hosts: list) -> tuple[list, list, list, list]:
    """Per setting x, over the hosts' (xs, ys): the median, the error bars up to the quartiles,
    and how many hosts have a value."""
    by_x = {x: [] for x in xs}
    for host_xs, host_ys in hosts:
        for x, y in zip(host_xs, host_ys):
            by_x[x].append(y)
    ys, up, down, counts = [], [], [], []
    for x in xs:
        q1, median, q3 = _quartiles(sorted(by_x[x]))
        ys.append(median)
        up.append(q3 - median)
        down.append(median - q1)
        counts.append(f"{len(by_x[x])} hosts")
    return ys, up, down, counts


def _quartiles(values: list[float]) -> tuple[float, float, float]:
    if len(values) == 1:
        return values[0], values[0], values[0]
    q1, median, q3 = statistics.quantiles(values, n=4, method="inclusive")
    return q1, median, q3


def _hovertemplate(unit: str, number: str) -> str:
    return ("%{x}: %{y:" + number + "} " + esc(unit) +
            "<br>%{customdata}<br>%{meta}<extra></extra>")


def _mode(values: list, title: str, hovertemplate: str) -> dict:
    """One state of the toggle, as the arguments of Plotly.update: per-trace arrays
    (values: [y, error up, error down] per trace) and the y axis title."""
    return {"traces": {"y": [v[0] for v in values],
                       "error_y.array": [v[1] for v in values],
                       "error_y.arrayminus": [v[2] for v in values],
                       "hovertemplate": [hovertemplate] * len(values)},
            "layout": {"yaxis.title.text": title}}


def series_lines(doc: dict, metric: str) -> dict:
    """A per-second metric over the measured phase: the first repeat of every point."""
    label, unit = METRICS[metric].label, METRICS[metric].unit
    scale = METRICS[metric].scale
    traces = []
    for point in doc["points"]:
        run = point["runs"][0]
        values = series_values(run["series"], metric)
        if values is None:
            continue
        traces.append({"type": "scatter", "mode": "lines", "name": esc(point["value"]),
                       "x": run["series"]["t"],
                       "y": [None if v is None else v * scale for v in values]})
    return {"data": traces, "layout": {
        "xaxis": {"title": {"text": "seconds into the measured phase"}},
        "yaxis": {"title": {"text": f"{label} ({unit})"}},
        "legend": {"orientation": "h", "y": -0.25}}}


def series_values(series: dict, metric: str) -> list | None:
    """A run's per-second values of a metric: stored, or derived from others (DERIVED)."""
    return DERIVED[metric](series) if metric in DERIVED else series.get(metric)


# What a RAID run's IO-per-transaction chart shows: (trace name, summary key, io field).
IO_TRACES = (
    ("writes to the array", "array_io", "writes_per_trx"),
    ("writes at the members (sum)", "io", "writes_per_trx"),
    ("reads from the array", "array_io", "reads_per_trx"),
    ("reads at the members (sum)", "io", "reads_per_trx"),
)


def io_bars(doc: dict) -> dict:
    """IO requests per transaction at the array and at its members, median over repeats: how
    the level and chunk size turn one page write into member IOs, on any storage."""
    traces = []
    for name, where, field in IO_TRACES:
        xs, ys = [], []
        for point in doc["points"]:
            values = [run["summary"].get(where, {}).get(field) for run in point["runs"]]
            if values and all(v is not None for v in values):
                xs.append(esc(point["value"]))
                ys.append(stats.summarize(values).median)
        if xs:
            traces.append({"type": "bar", "name": esc(name), "x": xs, "y": ys,
                           "hovertemplate": "%{x}: %{y:.1f} IOs per transaction<extra>"
                                            + esc(name) + "</extra>"})
    return {"data": traces, "layout": {
        "barmode": "group",
        "xaxis": {"title": {"text": esc(doc["sweep"]["setting"])}, "type": "category"},
        "yaxis": {"title": {"text": "IO requests per transaction"}},
        "legend": {"orientation": "h", "y": -0.25}}}
