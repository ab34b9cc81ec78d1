"""What a chart says about itself: a title naming what it compares, axes in a reader's words
with units, legends and tooltips naming the setting, axes that start at 0, and a sentence
instead of a chart when there is nothing to draw."""

import copy
import html
import json
import re

import pytest

from helpers import REAL, result, spec
from tuninglab.evidence import result_files
from tuninglab.recipes.load import list_names, load_all
from tuninglab.recipes.model import SWEPT_TABLES
from tuninglab.results import labels
from tuninglab.results.metrics import AXIS_CHARS, METRICS, axis_title
from tuninglab.site import charts, fence, hostviews, io_chart
from tuninglab.results.result import Result


def figure_of(out: str) -> dict:
    return json.loads(html.unescape(re.search(r'data-figure="([^"]*)"', out).group(1)))


def swept(setting: str, values: list[str]) -> dict:
    """The real doublewrite result, as if it had swept another setting over other values."""
    doc = result()
    doc["sweep"]["setting"] = setting
    for point, value in zip(doc["points"], values):
        point["value"] = value
    return doc


def title_lines(figure: dict) -> list[str]:
    return figure["layout"]["title"]["text"].split("<br>")


# The label table

def test_every_key_a_recipe_may_sweep_has_a_readers_name():
    keys = {f"{table}.{key}" for table, keys in SWEPT_TABLES.items() for key in keys}
    assert keys <= set(labels.SETTINGS)
    for key in keys:
        assert "." not in labels.setting_label(key) and "_" not in labels.setting_label(key)


def test_every_recipes_sweep_is_named_by_the_table_or_is_a_server_option():
    for name in list_names():
        for recipe in load_all(name):
            setting = recipe.sweep.setting
            if recipe.sweep.table:
                assert setting in labels.SETTINGS, setting
            else:  # innodb_flush_method: as a reader types it in my.cnf
                assert labels.setting_label(setting) == setting


def test_a_setting_is_named_with_the_unit_its_values_lack():
    assert labels.setting_title("storage.read_ahead_kb") == "read-ahead (KiB)"
    assert labels.setting_value("storage.read_ahead_kb", "128") == "read-ahead = 128 KiB"
    assert labels.setting_title("raid.chunk") == "RAID chunk size"  # "64K" says its unit
    assert labels.setting_value("innodb_purge_threads", "4") == "innodb_purge_threads = 4"


def test_every_axis_title_fits_a_phones_chart():
    for key in METRICS:
        assert len(axis_title(key)) <= AXIS_CHARS, axis_title(key)
    for _, _, per_unit in charts.NORMALISE.values():
        assert len(per_unit) <= AXIS_CHARS, per_unit
    assert axis_title("new_order_tpm") == "new-order transactions/min"
    assert axis_title("tps") == "throughput (transactions/s)"


# Results bars

def test_a_results_chart_says_what_it_compares_on_which_workload():
    figure = charts.results_bars([result()], "tps")
    assert title_lines(figure) == ["Throughput by innodb_doublewrite",
                                   "<sup>sysbench oltp_write_only, 4 threads</sup>"]
    assert figure["layout"]["xaxis"]["title"]["text"] == "innodb_doublewrite"


@pytest.mark.parametrize("setting, values, axis, hover", [
    ("storage.read_ahead_kb", ["128", "4096"], "read-ahead (KiB)", "read-ahead = %{x} KiB"),
    ("raid.chunk", ["64K", "512K"], "RAID chunk size", "RAID chunk size = %{x}"),
    ("lab.kernel", ["cloud-amd64", "rt-amd64"], "kernel flavour", "kernel flavour = %{x}"),
    ("workload.commit", ["statement", "100"], "COMMIT every", "COMMIT every = %{x}"),
])
def test_a_lab_settings_axis_title_and_tooltip_are_in_a_readers_words(setting, values, axis,
                                                                       hover):
    figure = charts.results_bars([swept(setting, values)], "tps")
    assert figure["layout"]["xaxis"]["title"]["text"] == axis
    assert title_lines(figure)[0] == f"Throughput by {axis.split(' (')[0]}"
    assert figure["data"][0]["hovertemplate"].startswith(hover + "<br>throughput (median of the "
                                                         "runs): %{y:.1f} "
                                                         "transactions/s<br>")


def test_throughput_axes_never_run_below_zero_and_grow_their_margins():
    figure = charts.results_bars([result()], "tps")
    yaxis, xaxis = figure["layout"]["yaxis"], figure["layout"]["xaxis"]
    assert yaxis["rangemode"] == "nonnegative" and yaxis["automargin"] is True
    assert xaxis["automargin"] is True
    assert yaxis["title"]["text"] == "throughput (transactions/s)"


def test_the_tpcc_throughput_axis_is_titled_short_enough_to_show_whole():
    doc = result(workload={**REAL["workload"], "tool": "tpcc", "script": "tpcc",
                           "metric": "new_order_tpm"})
    for point in doc["points"]:
        point["stats"]["new_order_tpm"] = point["stats"]["tps"]
    figure = charts.results_bars([doc], "new_order_tpm")
    assert figure["layout"]["yaxis"]["title"]["text"] == "new-order transactions/min"
    assert title_lines(figure) == ["New-order throughput by", "innodb_doublewrite",
                                   "<sup>TPC-C-like workload, 4 threads</sup>"]
    normalised = figure["normalise"]["normalised"]
    assert normalised["layout"]["yaxis.title.text"] == "new-order trx/min per 1000 fsync/s"


def test_long_titles_are_broken_into_lines_that_fit_a_phone():
    figure = charts.results_bars([swept("innodb_flush_log_at_trx_commit", ["1", "2"])],
                                 "write_bytes_per_trx")
    lines = title_lines(figure)
    assert lines[:2] == ["Bytes written per transaction by", "innodb_flush_log_at_trx_commit"]
    assert all(len(line) <= charts.TITLE_CHARS for line in lines[:2])


def test_long_category_labels_are_broken_after_their_commas():
    doc = swept("storage.mount_options", ["defaults", "noatime,logbufs=8,logbsize=256k"])
    xaxis = charts.results_bars([doc], "tps")["layout"]["xaxis"]
    assert xaxis["tickvals"] == ["defaults", "noatime,logbufs=8,logbsize=256k"]
    assert xaxis["ticktext"] == ["defaults", "noatime,<br>logbufs=8,<br>logbsize=256k"]
    assert "tickvals" not in charts.results_bars([result()], "tps")["layout"]["xaxis"]


def test_results_with_no_value_of_the_metric_are_a_sentence():
    figure = charts.results_bars([result()], "runtime_s")
    assert figure["data"] == [] and figure["empty"] == (
        "No scan runtime was recorded in these results: nothing to draw.")


# Time series

def test_series_legends_name_the_setting_and_tooltips_give_units_and_seconds():
    figure = charts.series_lines(result(), "history_list_length")
    assert [t["name"] for t in figure["data"]] == ["innodb_doublewrite = ON",
                                                   "innodb_doublewrite = OFF"]
    hover = figure["data"][0]["hovertemplate"]
    assert hover.startswith("innodb_doublewrite = ON<br>%{x} s: history list length %{y:,.")
    assert hover.endswith("f} undo log records<extra></extra>")
    layout = figure["layout"]
    assert layout["yaxis"]["rangemode"] == "tozero"
    assert layout["yaxis"]["title"]["text"] == "history list length (undo records)"
    # The server it ran is named: a time series shows one result's server, never a pool.
    notes = "sysbench oltp_write_only, 4 threads; MariaDB 10.11.19; the"
    assert title_lines(figure) == ["History list length over time, by", "innodb_doublewrite",
                                   f"<sup>{notes}</sup>",
                                   "<sup>first run at each setting</sup>"]


def test_a_lab_settings_series_legend_carries_its_unit():
    figure = charts.series_lines(swept("storage.read_ahead_kb", ["128", "4096"]), "tps")
    assert [t["name"] for t in figure["data"]] == ["read-ahead = 128 KiB",
                                                   "read-ahead = 4096 KiB"]


def flat(metric: str, value, first_only: bool = False) -> dict:
    doc = copy.deepcopy(result())
    for point in doc["points"]:
        for run in point["runs"]:
            if run is point["runs"][0] or not first_only:
                run["series"][metric] = [value] * len(run["series"]["t"])
    return doc


def test_a_series_that_never_moves_is_a_sentence_saying_so():
    figure = charts.series_lines(flat("pages_flushed", 0), "pages_flushed")
    assert figure["data"] == [] and figure["empty"] == (
        "Pages flushed stayed at 0 pages/s in every run: nothing to draw.")
    # Only the runs charted were flat: the sentence says which.
    figure = charts.series_lines(flat("dirty_pages", 40, first_only=True), "dirty_pages")
    assert figure["empty"] == ("Dirty pages stayed at 40 pages in the first run at every "
                               "setting: nothing to draw.")
    # A small value keeps its digits: 16 bytes are not "0.0000 MiB".
    figure = charts.series_lines(flat("checkpoint_age_bytes", 16), "checkpoint_age_bytes")
    assert "stayed at 0.0000153 MiB in every run" in figure["empty"]


def test_a_series_of_one_second_a_run_or_of_none_is_a_sentence():
    doc = copy.deepcopy(result())
    for point in doc["points"]:
        for run in point["runs"]:
            run["series"] = {"t": [1], "tps": [100.0 + point["runs"].index(run)]}
    assert charts.series_lines(doc, "tps")["empty"] == (
        "At most one second of throughput was sampled a run here: too few for a line.")
    assert charts.series_lines(doc, "dirty_pages")["empty"] == (
        "No dirty pages was recorded in this result: nothing to draw.")


def test_the_fence_shows_the_sentence_instead_of_a_chart(monkeypatch):
    monkeypatch.setattr(result_files, "results_for",
                        lambda name, variant="": [Result(flat("pages_flushed", 0))])
    out = fence.plotly_fence(spec(kind="series", recipe="doublewrite", metric="pages_flushed"),
                             "plotly", "", {}, None)
    assert out == ('<p class="tl-empty">Pages flushed stayed at 0 pages/s in every run: '
                   'nothing to draw.</p>')
    # A host's view carries the same sentence for the page to show when a reader picks it.
    view = hostviews.views(flat("pages_flushed", 0))["series:pages_flushed"]
    assert view["figure"]["empty"].startswith("Pages flushed stayed at 0")


def test_a_charted_series_keeps_its_chart(monkeypatch):
    monkeypatch.setattr(result_files, "results_for", lambda name, variant="": [Result(result())])
    out = fence.plotly_fence(spec(kind="series", recipe="doublewrite", metric="tps"),
                             "plotly", "", {}, None)
    assert 'class="tl-chart"' in out and "tl-empty" not in out
    assert figure_of(out)["layout"]["title"]["text"].startswith("Throughput over time")


# IO per transaction

def test_io_bars_are_titled_and_an_empty_one_is_a_sentence():
    figure = io_chart.io_bars(swept("raid.level", ["10", "0"]))
    assert title_lines(figure)[:2] == ["IO requests per transaction by", "RAID level"]
    assert figure["layout"]["xaxis"]["title"]["text"] == "RAID level"
    assert figure["data"][0]["hovertemplate"].startswith("RAID level = %{x}<br>")
    assert figure["layout"]["yaxis"]["rangemode"] == "nonnegative"
    doc = result()
    for point in doc["points"]:
        for run in point["runs"]:
            run["summary"].pop("io", None)
    assert io_chart.io_bars(doc)["empty"].startswith("No IO requests were counted")


def test_a_threads_sweeps_workload_leaves_the_threads_to_the_axis():
    doc = result()
    doc["sweep"]["setting"] = "workload.threads"
    assert charts.workload_text(doc) == "sysbench oltp_write_only"
    assert labels.setting_title("workload.threads") == "client threads"
