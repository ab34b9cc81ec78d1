"""Plotly figures (as plain dicts) from result files and transcribed historical tables.

Every text that comes from a data file is HTML-escaped: plotly renders a few tags in labels,
and contributed files must not be able to inject any.

The result files drawn are those under data/, or under $TUNINGLAB_DATA_DIR when it is set (the
browser test builds the site from a copy with a hostile file added). Only the site reads it:
recipes still write to document.DATA_DIR, and the transcribed historical tables always come
from the project's data/historical/.
"""

import csv
import datetime as dt
import html
import json
import os
import statistics
import tomllib
from functools import lru_cache
from pathlib import Path

from tuninglab.results import document
from tuninglab.results import stats
from tuninglab.results import timeseries

DATA_DIR = Path(os.environ.get("TUNINGLAB_DATA_DIR") or document.DATA_DIR)
HISTORICAL_DIR = document.DATA_DIR / "historical"
METRICS = {
    "tps": ("throughput", "transactions/s"),
    "new_order_tpm": ("new-order throughput", "new-order transactions/min"),
    "mib_per_s": ("scan rate (InnoDB reads)", "MiB/s"),
    "runtime_s": ("scan runtime", "s"),
    "disk_read_bytes": ("disk reads", "MiB/s"),
    "write_bytes_per_trx": ("bytes written per transaction", "KiB"),
    "read_bytes_per_trx": ("bytes read per transaction", "KiB"),
    "latency_p95_ms": ("p95 latency", "ms"),
    "checkpoint_age_bytes": ("checkpoint age", "MiB"),
    "history_list_length": ("history list length", "undo log records"),
    "dirty_pages": ("dirty pages", "pages"),
    "disk_write_bytes": ("disk writes", "MiB/s"),
    "resync_pct": ("RAID rebuild progress", "%"),
    "pages_flushed": ("pages flushed", "pages/s"),
    "checkpoint_fill_pct": ("checkpoint age / redo capacity", "%"),
    "tpcc_retries": ("transactions retried (deadlock, lock wait timeout)", "per second"),
}
# Series computed from others when charted, not stored.
DERIVED = {"checkpoint_fill_pct": timeseries.fill_pct}
# Metrics stored in bytes, shown in KiB or MiB; the others are stored as shown.
SCALE = {"write_bytes_per_trx": 1 / 1024, "read_bytes_per_trx": 1 / 1024,
         "checkpoint_age_bytes": 1 / 2**20, "disk_write_bytes": 1 / 2**20,
         "disk_read_bytes": 1 / 2**20}


def esc(text) -> str:
    # Plotly reads &lt; &gt; &amp; and numeric references in labels, but not &quot;: a quote
    # becomes &#34;, which shows as the quote it is.
    return html.escape(str(text), quote=True).replace("&quot;", "&#34;")


@lru_cache(maxsize=64)
def _load_results(directory: str, _stamp: float) -> tuple:
    docs = []
    for path in sorted(Path(directory).glob("*.json")):
        docs.append(json.loads(path.read_text()))
    return tuple(docs)


def results_for(recipe: str, variant: str | None = "", data_dir: Path = DATA_DIR,
                listing: bool = False) -> list[dict]:
    """Result files of a recipe's main experiment or of one variant (None: all), oldest
    first. A result marked invalid (its TPC-C-like data broke a consistency condition) is
    never charted: only a listing (the Results page) gets it."""
    directory = Path(data_dir) / recipe
    if not directory.is_dir():
        return []
    stamp = max((p.stat().st_mtime for p in directory.glob("*.json")), default=0)
    docs = _load_results(str(directory), stamp)
    return [d for d in docs if (variant is None or d.get("variant", "") == variant)
            and (listing or not d.get("invalid"))]


def series_name(doc: dict) -> str:
    host = doc["host"]
    server = doc["server"]
    return esc(f"{host.get('cpu_model') or 'unknown CPU'} ({host['id'][:8]}), "
               f"{server['flavor']} {server['version']}, {doc['profile']}, {doc['started'][:10]}")


def _stat_for(point: dict, metric: str):
    """The point's summary of a metric, computed from its runs' summaries."""
    if metric in point["stats"]:
        return point["stats"][metric]
    values = [run["summary"].get(metric, run["summary"]["io"].get(metric))
              for run in point["runs"]]
    if not values or any(v is None for v in values):
        return None
    return stats.summarize(values).to_dict()


# Texts below are plain (unescaped): callers escape them where they put them on the page.

def _hardware(doc: dict) -> list[str]:
    host = doc["host"]
    parts = [host.get("cpu_model") or "unknown CPU"]
    if host.get("cores"):
        parts.append(f"{host['cores']} cores")
    if host.get("memory_bytes"):
        parts.append(f"{host['memory_bytes'] / 2**30:.0f} GiB")
    return parts


def host_description(doc: dict) -> str:
    """The machine a result ran on: CPU, cores, memory and virtualisation."""
    virtualization = doc["host"].get("virtualization")
    return ", ".join(_hardware(doc) + ([f"virtualised ({virtualization})"]
                                       if virtualization and virtualization != "none" else []))


def server_text(doc: dict) -> str:
    return f"{doc['server']['flavor']} {doc['server']['version']}"


def software_text(doc: dict) -> str:
    software = doc.get("software", {})
    return (f"{server_text(doc)}, sysbench {software.get('sysbench') or '?'}, "
            f"kernel {software.get('kernel') or '?'}")


def shorten(text: str, limit: int = 60) -> str:
    """Cut before escaping, so an entity is never cut in half; hovers keep the whole text."""
    return text if len(text) <= limit else text[:limit - 1].rstrip() + "\u2026"


def host_name(doc: dict) -> str:
    """A host's series name: the contributor's own description, else its hardware and server."""
    described = (doc.get("contribution") or {}).get("description")
    return shorten(described or ", ".join(_hardware(doc) + [server_text(doc)]))


def _started(doc: dict) -> dt.datetime:
    return dt.datetime.fromisoformat(doc["started"])


def latest_per_host(docs: list[dict]) -> list[dict]:
    """Each host's latest result (hosts are told apart by their salted id), oldest first: a
    machine rerunning a recipe replaces its own bars, not another machine's."""
    latest = {}
    for doc in docs:
        held = latest.get(doc["host"]["id"])
        if held is None or _started(doc) >= _started(held):
            latest[doc["host"]["id"]] = doc
    return sorted(latest.values(), key=_started)


def device(doc: dict, field: str) -> float | None:
    """A device baseline measure of the result, None when it was not measured (or is 0)."""
    value = (doc.get("device_baseline") or {}).get(field)
    return value if isinstance(value, (int, float)) and value > 0 else None


def baseline_text(doc: dict) -> str:
    fsync, iops = device(doc, "fsync_per_s"), device(doc, "randwrite_16k_iops")
    if fsync is None:
        return "device baseline: fsync/s not measured, so throughput cannot be normalised"
    writes = "random 16K writes not measured" if iops is None else \
        f"{iops:,.0f} random 16K writes/s"
    return f"device baseline (fio): {fsync:,.0f} fsync/s, {writes}"


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
    label, unit = METRICS[metric]
    shown, others = split_hosts(latest_per_host(docs))
    names = [host_name(doc) for doc in shown]
    traces, normalised = [], []
    for doc, name in zip(shown, names):
        if names.count(name) > 1:  # two machines described alike: tell them apart
            name = f"{name} ({doc['host']['id'][:8]})"
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
    scale = SCALE.get(metric, 1)
    about = "<br>".join(esc(text) for text in (
        host_description(doc), software_text(doc), baseline_text(doc),
        f"{doc['profile']} result of {doc['started'][:10]}"))
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


def verdict_text(point: dict) -> str:
    ratio = point["stats"].get("ratio")
    if ratio is None:
        return "baseline"
    if ratio.get("ratio") is None:
        return ratio.get("verdict", "")
    low, high = ratio["ci_low"], ratio["ci_high"]
    interval = f" [{low:.2f}, {high:.2f}]" if low is not None else ""
    return f"ratio {ratio['ratio']:.2f}{interval}: {ratio['verdict']}"


def series_lines(doc: dict, metric: str) -> dict:
    """A per-second metric over the measured phase: the first repeat of every point."""
    label, unit = METRICS[metric]
    scale = SCALE.get(metric, 1)
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


def historical_source(slug: str, base: Path = HISTORICAL_DIR) -> dict:
    path = Path(base) / slug / "source.toml"
    if not path.is_file():
        raise ValueError(f"no historical source '{slug}' ({path} does not exist)")
    return tomllib.loads(path.read_text())


def historical_table(slug: str, table: str, base: Path = HISTORICAL_DIR):
    """(metadata of the table, rows as dicts) of a transcribed CSV."""
    source = historical_source(slug, base)
    meta = next((t for t in source.get("tables", []) if t["file"] == table), None)
    if meta is None:
        raise ValueError(f"historical source '{slug}' lists no table '{table}'")
    with open(Path(base) / slug / table, newline="") as f:
        rows = list(csv.DictReader(f))
    return source, meta, rows


def historical_bars(slug: str, table: str, columns=None, base: Path = HISTORICAL_DIR) -> dict:
    """The printed numbers as grouped bars, the printed ratios in the hover."""
    source, meta, rows = historical_table(slug, table, base)
    if meta.get("kind") != "table":
        raise ValueError(f"{slug}/{table} holds claims, not a table: use kind = \"claims\"")
    columns = columns or meta["value_columns"]
    label_col = meta["label_column"]
    missing = set(meta.get("missing_values", [])) | {""}
    units = {meta.get("column_units", {}).get(c, meta["unit"]) for c in columns}
    if len(units) > 1:
        raise ValueError(f"{slug}/{table}: columns {columns} have different units; chart one")
    unit = units.pop()
    traces = []
    for column in columns:
        if column not in meta["value_columns"]:
            raise ValueError(f"{slug}/{table} has no value column '{column}' "
                             f"(columns: {', '.join(meta['value_columns'])})")
        ratio_col = next((r for r in meta.get("ratio_columns", []) if r.startswith(column)), None)
        kept = [r for r in rows if r[column].strip() not in missing]
        traces.append({
            "type": "bar", "name": esc(column), "x": [esc(r[label_col]) for r in kept],
            "y": [float(r[column]) for r in kept],
            "customdata": [esc(f"ratio {r[ratio_col]}" if ratio_col and r[ratio_col] else "")
                           for r in kept],
            "hovertemplate": "%{x}: %{y} " + esc(unit) +
                             "<br>%{customdata}<extra>" + esc(column) + "</extra>"})
    s = source["source"]
    return {"data": traces, "layout": {
        "barmode": "group", "xaxis": {"type": "category"},
        "yaxis": {"title": {"text": esc(unit)}},
        "title": {"text": f"{esc(meta['caption'])}<br><sup>{esc(s['author'] or s['venue'] or s['title'])}, "
                          f"{esc(s['year'])}: {esc(meta['metric'])}</sup>", "font": {"size": 15}},
        "legend": {"orientation": "h", "y": -0.25}}}


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


def functional_only(doc: dict) -> str | None:
    """Why a result shows a mechanism but not the hardware's speed, or None if it does."""
    labs = [run["lab"] for p in doc["points"] for run in p["runs"] if "lab" in run]
    if not labs:
        return None
    reasons = []
    if any(lab["accelerator"] == "tcg" for lab in labs):
        reasons.append("the lab VM ran under TCG, an emulated CPU")
    if any(lab["shared_physical_device"] for lab in labs):
        reasons.append("its disks shared one physical device of the host")
    return "; ".join(reasons) or None


def by_kernel(data_dir: Path = DATA_DIR) -> list[dict]:
    """Every result file grouped by the kernel its runs measured on: the host's, or the lab
    VM's guest kernel (with its accelerator). Newest first within a kernel."""
    groups = {}
    for directory in result_dirs(data_dir):
        for doc in results_for(directory.name, variant=None, data_dir=data_dir):
            labs = [r["lab"] for p in doc["points"] for r in p["runs"] if "lab" in r]
            kernels = {(lab.get("kernel", "?"), f"lab VM ({lab['accelerator']})")
                       for lab in labs} or {(doc["software"]["kernel"], "host")}
            for kernel, where in kernels:
                group = groups.setdefault((kernel, where), {"kernel": kernel, "where": where,
                                                            "recipes": set(), "results": 0,
                                                            "latest": ""})
                group["recipes"].add(doc["recipe"]["name"])
                group["results"] += 1
                group["latest"] = max(group["latest"], doc["started"][:10])
    return [{**g, "recipes": sorted(g["recipes"])}
            for _, g in sorted(groups.items(), key=lambda kv: kv[0])]


def result_dirs(data_dir: Path) -> list[Path]:
    """A data directory's recipe directories (the transcribed sources are not results)."""
    return sorted(p for p in Path(data_dir).iterdir() if p.is_dir() and p.name != "historical")


def results_index(data_dir: Path | None = None) -> list[dict]:
    """One row per result file, by recipe and variant, newest first: where it ran, on what
    software, and whether the project ran it or someone contributed it. Free text is cut at
    200 characters: a table row, not the file."""
    data_dir = data_dir or DATA_DIR  # at call time, so a test can point it elsewhere
    rows = []
    for directory in result_dirs(data_dir):
        for doc in sorted(results_for(directory.name, variant=None, data_dir=data_dir,
                                      listing=True), key=_started, reverse=True):
            contribution = doc.get("contribution")
            rows.append({
                "recipe": directory.name, "variant": doc.get("variant", ""),
                "profile": doc["profile"], "started": doc["started"][:16].replace("T", " "),
                "host": f"{shorten(host_description(doc), 200)}; id {doc['host']['id'][:8]}",
                "software": software_text(doc),
                "contributed": contribution is not None,
                "submitted": str((contribution or {}).get("submitted", ""))[:10],
                "description": shorten((contribution or {}).get("description", ""), 200),
                "invalid": shorten("; ".join(doc.get("invalid", [])), 300)})
    return sorted(rows, key=lambda r: (r["recipe"], r["variant"]))  # stable: newest first
