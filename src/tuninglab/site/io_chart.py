"""A RAID run's chart of IO requests per transaction, at the array and at its members: how
the level and chunk size turn one page write into member IOs, on any storage (the part of a
lab VM's RAID result that carries over to real disks)."""

from tuninglab.results import stats
from tuninglab.results.labels import setting_value
from tuninglab.results.result import Result
from tuninglab.site.charts import (LEGEND, chart_title, empty_chart, setting_axis, value_axis,
                                   workload_text)
from tuninglab.site.describe import esc


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
    r = Result.of(doc)
    traces, setting = [], r.setting
    for name, where, field in IO_TRACES:
        xs, ys = [], []
        for point in r.points:
            values = point.io(where, field)
            if values and all(v is not None for v in values):
                xs.append(esc(point.value))
                ys.append(stats.summarize(values).median)
        if xs:
            traces.append({"type": "bar", "name": esc(name), "x": xs, "y": ys,
                           "hovertemplate": esc(setting_value(setting, "%{x}")) +
                           "<br>%{y:.1f} IOs per transaction<extra>" + esc(name) + "</extra>"})
    if not traces:
        return empty_chart("No IO requests were counted in this result: nothing to draw.")
    return {"data": traces, "layout": {
        "title": chart_title("IO requests per transaction", setting, workload_text(doc),
                        "the median of the repeats"),
        "barmode": "group", "xaxis": setting_axis(setting, traces),
        "yaxis": value_axis("IO requests per transaction"), "legend": LEGEND}}
