"""Each chart speaks of its own metric (issue 37, item 6): a bar's hover gives the comparison in
the chart's metric (less or more for bytes and costs, lower or higher latency for a latency,
faster or slower only for the throughput) and says what the bar and the ratio are of; a host's
series carries the key that gives it one colour on every chart of a page (charts.js); the site's
tables show the geometric mean the ratio compares."""

import copy
import html
import re

import pytest

from helpers import HOST_B, result, with_costs
from tuninglab.results import document, stats
from tuninglab.results.result import Result
from tuninglab.site import charts, result_tables

ON, OFF = "innodb_doublewrite=ON", "innodb_doublewrite=OFF"


def customdata(figure: dict, trace: int = 0) -> list[str]:
    """Each bar's comparison (its first line: a risky point's risk follows it)."""
    return [html.unescape(c).split("<br>")[0] for c in figure["data"][trace]["customdata"]]


def test_a_durability_trading_bar_says_what_it_risks_under_its_comparison():
    """doublewrite OFF: its gain never shows without the torn page it risks (issue 78)."""
    base, off = charts.results_bars([result()], "tps")["data"][0]["customdata"]
    assert "risks" not in base
    assert html.unescape(off).split("<br>")[1] == \
        "not crash-safe: risks a page torn by a crash mid-write, which InnoDB cannot repair"


def scaled(doc: dict, point: int, where: tuple, factor: float) -> dict:
    """doc with each run of a point's value at where (keys into its summary) times factor."""
    doc = copy.deepcopy(doc)
    for run in doc["points"][point]["runs"]:
        place = run["summary"]
        for key in where[:-1]:
            place = place[key]
        place[where[-1]] *= factor
    return document.recompute(doc)


def test_the_throughput_chart_gives_the_throughputs_comparison():
    figure = charts.results_bars([result()], "tps")
    base, off = customdata(figure)
    assert base == "baseline"
    assert off == "ratio of geometric means " + Result(result()).points[1].ratio.text(mark="")
    assert figure["data"][0]["hovertemplate"].split("<br>")[1] == \
        "throughput (median of the runs): %{y:.1f} transactions/s"


def test_a_bytes_chart_says_less_or_more_of_its_own_bytes():
    """direct-io's case: the throughput fell by half while the bytes written rose 1.18x; the
    bytes chart's hover said "ratio 0.49 slower", the throughput's."""
    doc = scaled(scaled(result(), 1, ("tps",), 0.49), 1, ("io", "write_bytes_per_trx"),
                 1.18 * 195000 / 100000)
    assert Result(doc).points[1].ratio.verdict_kind == stats.SLOWER
    figure = charts.results_bars([doc], "write_bytes_per_trx")
    _, off = customdata(figure)
    assert re.fullmatch(r"ratio of geometric means 1\.1\d \[1\.\d\d, 1\.\d\d\]: more", off)
    assert "slower" not in off and "faster" not in off and "0.49" not in off
    assert figure["data"][0]["hovertemplate"].split("<br>")[1].startswith(
        "bytes written per transaction (median of the runs): ")


def test_the_committed_doublewrite_bytes_chart_says_less():
    _, off = customdata(charts.results_bars([result()], "write_bytes_per_trx"))
    assert off.startswith("ratio of geometric means 0.51 [0.51, 0.52]: less")


def test_a_latency_chart_says_lower_or_higher_latency():
    lower = scaled(result(), 1, ("latency_p95_ms",), 0.5)
    _, off = customdata(charts.results_bars([lower], "latency_p95_ms"))
    assert off.endswith(": lower latency") and "faster" not in off
    higher = scaled(result(), 1, ("latency_p95_ms",), 2.0)
    _, off = customdata(charts.results_bars([higher], "latency_p95_ms"))
    assert off.endswith(": higher latency")
    figure = charts.results_bars([higher], "latency_p95_ms")
    assert figure["data"][0]["hovertemplate"].split("<br>")[1].startswith(
        "p95 latency (median of the runs): ")


def test_a_cost_chart_draws_the_cost_and_says_less_or_more():
    doc = document.recompute(with_costs(result(), {OFF: {"host_cpu_us_per_trx": 1.2}}))
    figure = charts.results_bars([doc], "host_cpu_us_per_trx")
    trace = figure["data"][0]
    assert trace["y"] == pytest.approx([1.2, 1.44], rel=0.02)  # ms: the runs' costs
    _, off = customdata(figure)
    stored = Result(doc).points[1].cost_ratio("host_cpu_us_per_trx")
    assert off == "ratio of geometric means " + stored.text(mark="")
    assert off.endswith(": more")


def test_a_cost_under_the_margin_says_so_in_its_hover():
    doc = document.recompute(with_costs(result(), {OFF: {"server_cpu_us_per_trx": 1.02}}))
    _, off = customdata(charts.results_bars([doc], "server_cpu_us_per_trx"))
    assert off == "ratio of geometric means 1.02 [1.01, 1.03]: more, by less than 3%"


def test_a_hosts_series_carries_one_colour_key_on_every_chart():
    """charts.js colours a series by its tl_host, so a host keeps its colour on every chart of a
    page, whichever other hosts a chart has and in whatever order."""
    xeon = result(HOST_B, "2026-11-23T00:00:00+00:00")
    xeon["host"]["cpu_model"] = "Intel Xeon"
    one = charts.results_bars([result(), xeon], "tps")
    other = charts.results_bars([xeon], "write_bytes_per_trx")
    keys = {t["name"]: t["tl_host"] for t in one["data"]}
    assert len(set(keys.values())) == 2 and all(name == key for name, key in keys.items())
    [alone] = other["data"]
    assert alone["tl_host"] == keys[alone["name"]]
    assert "marker" not in alone  # the colour is the page's (charts.js), by theme


def test_the_verdicts_table_shows_the_geometric_mean_beside_the_ratio():
    doc = copy.deepcopy(result())
    doc["points"][0]["runs"][0]["summary"]["tps"] = 700.0  # one slow repeat of the baseline
    doc = document.recompute(doc)
    out = result_tables.verdicts(doc)
    r = Result(doc)
    on, off = r.points
    assert "geometric mean tps" in out and "median tps" not in out
    cells = re.findall(r'<td data-label="geometric mean tps">([^<]*)</td>', out)
    assert cells == [f"{on.centre('tps'):,.0f}", f"{off.centre('tps'):,.0f}"]
    assert cells[0] != f"{on.summary('tps').median:,.0f}"  # the median: 1,258
    assert "what the ratios compare" in out
