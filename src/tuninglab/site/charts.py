"""Plotly figures (as plain dicts) of result files: a recipe's results as bars per host (with
the values normalised by each host's device), one result's per-second series as lines, and a
RAID result's IO per transaction. Labels, units and scales come from results.metrics, the swept
setting's name from results.labels; every text from a data file is escaped (describe.esc).

Every figure has a title saying what it compares. A figure with nothing to show (no value, or
one flat line) carries instead "empty": a sentence saying why, which the page shows as text.
"""

import math
import statistics
import textwrap

from tuninglab.evidence.result_files import latest_per_host
from tuninglab.evidence.risks import risked
from tuninglab.results import stats, timeseries
from tuninglab.results.labels import setting_label, setting_title, setting_value
from tuninglab.results.metrics import METRICS, SCAN, SYSBENCH, TPCC, axis_title, decimals
from tuninglab.results.result import Point, Result
from tuninglab.site.describe import (
    TICK_CHARS,
    baseline_text,
    distinct_names,
    esc,
    host_description,
    server_text,
    shorten,
    software_text,
    uncapped,
)

# Series computed from others when charted, not stored.
DERIVED = {"checkpoint_fill_pct": timeseries.fill_pct}


def _stat_for(point: Point, metric: str) -> stats.Summary | None:
    """The point's summary of a metric: stored, or computed from its runs' summaries."""
    stored = point.summary(metric)
    if stored is not None:
        return stored
    values = point.run_values(metric)  # a cost's too (summary["cost"]): a cost chart has bars
    if not values or any(v is None for v in values):
        return None
    return stats.summarize(values)


# Metrics that can be divided by the host's device: (baseline field, per how many, unit). The
# result's own baseline is used (measured where its runs live), not a sandbox run's, which
# measures the very configuration under test and would divide its effect away.
# The unit is also the y axis title, so it stays within metrics.AXIS_CHARS.
NORMALISE = {"tps": ("fsync_per_s", 1000, "transactions/s per 1000 fsync/s"),
             "new_order_tpm": ("fsync_per_s", 1000, "new-order trx/min per 1000 fsync/s")}


# Hosts a results chart draws one by one; the others are drawn as one aggregate series, so a
# page stays light however many people contribute.
MAX_HOSTS = 20


def results_bars(docs: list[dict | Result], metric: str) -> dict:
    """Median per point with its 95% interval as error bars, one series per host (its latest
    result), so different machines stand side by side; beyond MAX_HOSTS, the project's own
    hosts and the latest contributions, then one series for all the others. For a throughput
    chart whose hosts all have a device baseline, the figure also carries the values divided
    by it ("normalise": what the page's toggle swaps in), comparing the settings' effect
    rather than raw speed."""
    label, unit = METRICS[metric].label, METRICS[metric].unit
    docs = [Result.of(d) for d in docs]
    setting = docs[-1].setting if docs else ""
    hover = _hovertemplate(setting, label, unit, ".1f")
    shown, others = split_hosts(latest_per_host(docs))
    traces, normalised = [], []
    for doc, name in zip(shown, distinct_names(shown)):
        trace, divided = _host_trace(doc, esc(name), metric, hover)
        traces.append(trace)
        normalised.append(divided)
    if others:
        trace, divided = _others_trace([_host_trace(d, "", metric, hover) for d in others],
                                       hover)
        traces.append(trace)
        normalised.append(divided)
    empty = _no_bars(traces, label, unit)
    if empty:
        return empty_chart(empty)
    title = axis_title(metric)
    figure = {"data": traces, "layout": {
        "title": chart_title(label, setting, workload_text(docs[-1])),
        "barmode": "group", "xaxis": setting_axis(setting, traces),
        "yaxis": value_axis(title),
        "showlegend": True, "legend": LEGEND}}
    if metric in NORMALISE and normalised and None not in normalised \
            and not any(fsync_free(doc) for doc in shown):
        per_unit = NORMALISE[metric][2]
        figure["normalise"] = {
            "raw": _mode([[t["y"], t["error_y"]["array"], t["error_y"]["arrayminus"]]
                          for t in traces], title, hover),
            "normalised": _mode(normalised, per_unit,
                                _hovertemplate(setting, label, per_unit, ".2f"))}
    return figure


# Throughput divided by the device's fsync rate means something where transactions wait for
# flushes; a load with fewer fsyncs than this per transaction (read-only, CPU-bound) is not
# bound by them, and its chart offers no such toggle.
FSYNC_BOUND = 0.2


def fsync_free(doc: Result) -> bool:
    """Whether the result's baseline made fewer than FSYNC_BOUND fsyncs per transaction (a
    result that did not count them is not known to be)."""
    cost = doc.baseline_point.cost("fsyncs_per_trx")
    return cost is not None and cost.median < FSYNC_BOUND


# Below the plot, across: a phone has no room beside it.
LEGEND = {"orientation": "h", "y": -0.25}
# A title's lines, for plotly, which draws a title on the lines it is given (the image
# download): no longer than a phone's chart is wide. The page joins them again (charts.js
# showTitle) and wraps them at its own width.
TITLE_CHARS = 40


def chart_title(what: str, setting: str, *notes: str) -> dict:
    """A chart's title: what it shows by which setting, on one line if it fits, else the
    setting on a line of its own; under it in small type the notes (the workload, what is
    drawn). Lines short enough for plotly, which draws a title as given (the image download);
    the page joins them again and wraps them at its width. Plain text in, escaped line by
    line: a wrap never cuts an entity."""
    main = [f"{_capital(what)} by {setting_label(setting)}"]
    if len(main[0]) > TITLE_CHARS:
        main = [f"{_capital(what)} by", setting_label(setting)]
    lines = [esc(line) for part in main for line in
             textwrap.wrap(part, TITLE_CHARS, max_lines=2, placeholder="\u2026")]
    # <sup> is about two thirds the size: a line of it holds half as much again.
    lines += [f"<sup>{esc(line)}</sup>" for line in textwrap.wrap(
        "; ".join(notes), TITLE_CHARS * 3 // 2, max_lines=3, placeholder="\u2026")]
    return {"text": "<br>".join(lines), "font": {"size": 15}}


def _capital(text: str) -> str:
    return text[:1].upper() + text[1:]


def workload_text(doc: dict) -> str:
    """The workload in a few words: "sysbench oltp_read_write, 4 threads" (without the
    threads where they are what the chart sweeps)."""
    r = Result.of(doc)
    tool, threads = r.tool, r.workload.get("threads")
    if r.setting == "workload.threads":
        threads = None
    if tool == SCAN:
        return "full table scan"
    what = "TPC-C-like workload" if tool == TPCC else \
        shorten(f"{tool or SYSBENCH} {r.workload.get('script') or ''}".strip(), 40)
    return what + (f", {threads} thread{'s' if threads != 1 else ''}" if threads else "")


def setting_axis(setting: str, traces: list) -> dict:
    """The x axis of bars by setting, its labels the swept values. automargin: a long label
    (O_DIRECT_NO_FSYNC) pushes the margin rather than being clipped."""
    axis = {"title": {"text": esc(shorten(setting_title(setting)))}, "type": "category",
            "automargin": True}
    values = list(dict.fromkeys(x for trace in traces for x in trace["x"]))
    # A long value is broken after its commas (mount options). Values are escaped
    # already; an entity holds no comma, so none is cut.
    broken = [",<br>".join(x.split(",")) if len(x) > TICK_CHARS else x for x in values]
    if broken != values:
        axis.update(tickvals=values, ticktext=broken)
    return axis


def value_axis(title: str, rangemode: str = "nonnegative") -> dict:
    """A metric's y axis. Every metric is an amount that cannot fall below 0, but an error
    bar's interval can reach below it, and plotly would stretch the axis to show that:
    "nonnegative" stops at 0 ("tozero" also starts a line chart's axis there)."""
    return {"title": {"text": esc(title)}, "rangemode": rangemode, "automargin": True}


def empty_chart(sentence: str) -> dict:
    """A figure with nothing to draw: the fences and the page show the sentence instead."""
    return {"data": [], "layout": {}, "empty": sentence}


def _no_bars(traces: list, label: str, unit: str) -> str | None:
    values = {y for trace in traces for y in trace["y"]}
    if not values:
        return f"No {label} was recorded in these results: nothing to draw."
    if values == {0}:
        return f"{_capital(label)} was {_quantity(0, unit)} at every setting: nothing to draw."
    return None


def _quantity(value: float, unit: str) -> str:
    """A value with its unit in a sentence, to about 3 significant digits as metrics.decimals
    gives them, but never a small value rounded to 0.0000: "0 pages/s", "0.0000153 MiB"."""
    digits = 0 if float(value).is_integer() else max(0, 2 - math.floor(math.log10(abs(value))))
    return f"{value:,.{digits}f}" + ("%" if unit == "%" else f" {unit}")


def split_hosts(hosts: list[Result]) -> tuple[list[Result], list[Result]]:
    """(drawn one by one, aggregated): every host whose latest result is the project's own,
    then the latest contributions up to MAX_HOSTS; both oldest first."""
    if len(hosts) <= MAX_HOSTS:
        return hosts, []
    own = [r for r in hosts if not r.contributed]
    contributed = [r for r in hosts if r.contributed]
    room = max(MAX_HOSTS - len(own), 0)
    recent = contributed[len(contributed) - room:] if room else []
    keep = {id(d) for d in own + recent}
    return ([d for d in hosts if id(d) in keep], [d for d in hosts if id(d) not in keep])


def _host_trace(r: Result, name: str, metric: str, hover: str) -> tuple[dict, list | None]:
    """One host's bars, and its [y, up, down] divided by its device (None: not normalisable)."""
    scale = METRICS[metric].scale
    # A disk-bound result without the memory model says so in every bar's hover, so that it
    # is never silently charted beside capped ones (the verdicts' table says it at length).
    about = "<br>".join(esc(text) for text in (
        host_description(r), software_text(r), baseline_text(r),
        f"{r.profile} result of {r.date}",
        *(["memory not capped: the OS may have cached the data"] if uncapped(r) else []),
        *([f"click for its file: {r.file}"] if r.file else [])))
    xs, ys, up, down, verdicts = [], [], [], [], []
    for point in r.points:
        s = _stat_for(point, metric)
        if not s:
            continue
        median = s.median * scale
        xs.append(esc(point.value))
        ys.append(median)
        up.append((s.ci_high * scale - median) if s.ci_high is not None else 0)
        down.append((median - s.ci_low * scale) if s.ci_low is not None else 0)
        kind, risk = risked(r.setting, point.value)   # a gain that costs safety is never bare
        verdicts.append(esc(comparison_text(r, point, metric))
                        + (f"<br>{esc(kind)}: risks {esc(risk)}" if risk else ""))
    noisy = [too_wide(y, u, d) for y, u, d in zip(ys, up, down)]
    verdicts = [v + (f"<br>{NOISY_TEXT}" if n else "") for v, n in zip(verdicts, noisy)]
    # The host's text once per trace (meta), not once per bar. tl_host: charts.js gives a
    # host one colour on every chart of a page, whatever the charts' order of hosts.
    trace = {"type": "bar", "name": name, "x": xs, "y": ys,
             "error_y": {"type": "data", "array": up, "arrayminus": down, "visible": True},
             "customdata": verdicts, "meta": about, "hovertemplate": hover, "tl_host": name}
    if any(noisy):  # faint and hatched: a height its own interval does not vouch for
        trace["marker"] = {"opacity": [0.35 if n else 1.0 for n in noisy],
                           "pattern": {"shape": ["/" if n else "" for n in noisy]}}
    if r.file:
        trace["tl_file"] = esc(r.file)  # charts.js opens it on a click on a bar
    divided = None
    if metric in NORMALISE:
        field, per, _ = NORMALISE[metric]
        baseline = r.device(field)
        if baseline is not None:
            divided = [[v * per / baseline for v in values] for values in (ys, up, down)]
    return trace, divided


# A bar whose 95% interval reaches below half its height or above twice it: its height says
# less than the interval around it, and a plain bar would read as a measurement.
NOISY_TEXT = "too noisy to read: its 95% interval is wider than the value itself"


def too_wide(value: float, up: float, down: float) -> bool:
    return value > 0 and (down >= value / 2 or up >= value)


def _others_trace(host_traces: list, hover: str) -> tuple[dict, list | None]:
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
             "hovertemplate": hover, "tl_host": "other hosts"}
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


def comparison_text(doc: dict, point: Point, metric: str) -> str:
    """A bar's comparison to the baseline in the chart's own metric (Result.comparison): the
    throughput's ratio and faster or slower on a throughput chart, the bytes' ratio and less or
    more on a bytes chart, lower or higher latency on a latency chart; "baseline" for the
    baseline, "" where the runs cannot give one. Plain text: the caller escapes it."""
    if point.is_baseline:
        return "baseline"
    ratio = Result.of(doc).comparison(point, metric)
    return "" if ratio is None else ratio.text(mark=RATIO_MARK)


# What a hover's ratio is of: the bar is the median of the runs, the ratio that of their
# geometric means, and the two can disagree (1,499 vs 1,508 tps beside a ratio of 1.09).
RATIO_MARK = "ratio of geometric means "


def _hovertemplate(setting: str, label: str, unit: str, number: str) -> str:
    """A bar's hover: the setting and value, the metric with its unit (the bar: the median of
    the runs), the comparison in that metric (customdata) and the host (meta)."""
    return (esc(setting_value(setting, "%{x}")) + "<br>" + esc(label) + " (median of the runs)"
            ": %{y:" + number + "} " + esc(unit) + "<br>%{customdata}<br>%{meta}"
            "<extra></extra>")


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
    r = Result.of(doc)
    scale, setting = METRICS[metric].scale, r.setting
    traces = []
    for point in r.points:
        run = point.runs[0]
        values = series_values(run["series"], metric)
        if values is None:
            continue
        traces.append({"type": "scatter", "mode": "lines",
                       "name": esc(setting_value(setting, point.value)),
                       "x": run["series"]["t"],
                       "y": [None if v is None else v * scale for v in values]})
    flat = _flat(r, metric, traces)
    if flat:
        return empty_chart(flat)
    drawn = [abs(v) for trace in traces for v in trace["y"] if v is not None]
    for trace in traces:
        trace["hovertemplate"] = (f"{trace['name']}<br>%{{x}} s: {esc(label)} "
                                  f"%{{y:,.{decimals(max(drawn))}f}} {esc(unit)}<extra></extra>")
    return {"data": traces, "layout": {
        "title": chart_title(f"{label} over time,", setting, workload_text(doc),
                             server_text(doc), "the first run at each setting"),
        "xaxis": {"title": {"text": "seconds into the measured phase"}, "automargin": True},
        "yaxis": value_axis(axis_title(metric), "tozero"), "legend": LEGEND}}


def _flat(r: Result, metric: str, traces: list) -> str | None:
    """Why a series chart would show nothing: no value at all, no two seconds of one run (a
    line needs two), or one value throughout (a flat line on an axis plotly centres on it,
    -1..1 for 0); None when there is a shape to see."""
    m = METRICS[metric]
    counts = [sum(v is not None for v in trace["y"]) for trace in traces]
    drawn = {v for trace in traces for v in trace["y"] if v is not None}
    if not drawn:
        return f"No {m.label} was recorded in this result: nothing to draw."
    if max(counts) < 2:
        return f"At most one second of {m.label} was sampled a run here: too few for a line."
    if len(drawn) > 1:
        return None
    everywhere = {v * m.scale for point in r.points for run in point.runs
                  for v in series_values(run.get("series") or {}, metric) or []
                  if v is not None}
    runs = "every run" if everywhere == drawn else "the first run at every setting"
    return f"{_capital(m.label)} stayed at {_quantity(drawn.pop(), m.unit)} in {runs}: " \
        "nothing to draw."


def series_values(series: dict, metric: str) -> list | None:
    """A run's per-second values of a metric: stored, or derived from others (DERIVED)."""
    return DERIVED[metric](series) if metric in DERIVED else series.get(metric)
