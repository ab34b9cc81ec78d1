"""Costs per transaction (issue 17, item 4): document.point_stats summarises each cost the runs
measured and compares it to the baseline's in words for amounts; results from before the costs
keep their statistics as stored; the terminal prints a cost table per point."""

import copy
import json
import re

import pytest

from helpers import COSTS, DATA, REAL, committed_results, with_costs
from tuninglab.results import document, report, stats
from tuninglab.results.metrics import COST, METRICS, decimals, ratio_decimals
from tuninglab.results.result import Result

ON, OFF = (p["id"] for p in REAL["points"])  # the baseline, then the other point
# OFF: 20% less server CPU, no fsync at all, the rest as the baseline's.
CHEAPER = {OFF: {"server_cpu_us_per_trx": 0.8, "fsyncs_per_trx": 0.0}}


def costs_of(doc: dict) -> list[dict | None]:
    return [c["stats"].get("cost") for c in document.point_stats(doc)]


def runs_cost(doc: dict, point_id: str, key: str) -> list[float]:
    return [run["summary"]["cost"][key] for run in document.point(doc, point_id)["runs"]]


# --- point_stats ---------------------------------------------------------------------------------

def test_each_cost_is_summarised_and_compared_to_the_baseline():
    doc = with_costs(REAL, CHEAPER)
    base, off = costs_of(doc)
    assert list(base) == list(off) == list(COST) == list(COSTS)
    for key in COST:
        assert base[key] == {**stats.summarize(runs_cost(doc, ON, key)).to_dict(), "ratio": None}
        compared = stats.compare_cost(runs_cost(doc, OFF, key), runs_cost(doc, ON, key))
        assert off[key] == {**stats.summarize(runs_cost(doc, OFF, key)).to_dict(),
                            "ratio": compared.to_dict()}
    kinds = {key: off[key]["ratio"]["verdict_kind"] for key in COST}
    assert kinds.pop("server_cpu_us_per_trx") == stats.LESS
    assert off["server_cpu_us_per_trx"]["ratio"]["ratio"] == pytest.approx(0.8)
    assert kinds.pop("fsyncs_per_trx") == stats.ZERO_COST
    assert off["fsyncs_per_trx"]["median"] == 0.0
    assert set(kinds.values()) == {stats.EQUIVALENT}


def test_the_throughput_statistics_are_those_without_costs():
    with_cost = document.point_stats(with_costs(REAL, CHEAPER))
    for computed, stored in zip(with_cost, REAL["points"]):
        assert {k: v for k, v in computed["stats"].items() if k != "cost"} == stored["stats"]
        assert computed.get("trends") == stored.get("trends")


def test_the_costs_use_the_documents_margin():
    doc = with_costs(REAL)
    doc["plan"]["smallest_effect_pct"] = 5.0
    assert costs_of(doc)[1]["redo_bytes_per_trx"]["ratio"]["verdict"] == "equivalent within ±5%"
    doc["plan"]["smallest_effect_pct"] = 0.5  # narrower than the 90% interval of a ±1% spread
    assert costs_of(doc)[1]["redo_bytes_per_trx"]["ratio"]["verdict"] == stats.TOO_NOISY


def test_a_cost_missing_from_one_run_is_compared_in_none():
    doc = with_costs(REAL)
    del document.point(doc, OFF)["runs"][2]["summary"]["cost"]["log_fsyncs_per_trx"]
    document.point(doc, ON)["runs"][0]["summary"]["cost"]["redo_bytes_per_trx"] = None
    base, off = costs_of(doc)
    assert "log_fsyncs_per_trx" in base and "log_fsyncs_per_trx" not in off
    assert "redo_bytes_per_trx" not in base and "redo_bytes_per_trx" not in off  # the baseline's
    assert len(off) == len(COST) - 2


def test_runs_without_costs_at_one_point_give_it_none():
    doc = with_costs(REAL)
    for run in document.point(doc, OFF)["runs"]:
        del run["summary"]["cost"]
    base, off = costs_of(doc)
    assert list(base) == list(COST) and off is None


def test_a_cost_that_is_no_object_is_the_runs_fault():
    doc = with_costs(REAL)
    document.point(doc, OFF)["runs"][0]["summary"]["cost"] = 5
    with pytest.raises(TypeError, match="summary/cost is int, not an object"):
        document.point_stats(doc)


# --- what finish and recompute store -------------------------------------------------------------

def test_a_finished_result_with_costs_is_valid_and_names_the_method():
    doc = document.recompute(with_costs(REAL, CHEAPER))
    assert document.validate(doc) == []
    assert doc["methods"]["cost"] == stats.COST_METHOD
    assert document.methods(doc) == {**document.methods(), "cost": stats.COST_METHOD}
    assert [p["stats"].get("cost") for p in doc["points"]] == costs_of(doc)


@pytest.mark.parametrize("path, value", [
    (("server_cpu_us_per_trx", "ratio", "verdict_kind"), stats.FASTER),  # a speed's word
    (("server_cpu_us_per_trx", "ratio", "extra"), 1),
    (("server_cpu_us_per_trx", "median"), "812"),
])
def test_the_schema_checks_the_stored_costs(path, value):
    doc = document.recompute(with_costs(REAL, CHEAPER))
    target = doc["points"][1]["stats"]["cost"]
    for key in path[:-1]:
        target = target[key]
    target[path[-1]] = value
    assert [p.split(":")[0] for p in document.validate(doc)] == \
        ["points/1/stats/cost/" + "/".join(path[:-1] if path[-1] == "extra" else path)]


def test_the_schema_knows_only_the_costs_of_the_metric_table():
    doc = document.recompute(with_costs(REAL))
    doc["points"][0]["stats"]["cost"]["joules_per_trx"] = doc["points"][0]["stats"]["cost"][
        "server_cpu_us_per_trx"]
    assert [p.split(":")[0] for p in document.validate(doc)] == ["points/0/stats/cost"]
    schema = document.schema()["$defs"]["point"]["properties"]["stats"]["properties"]["cost"]
    assert schema["propertyNames"]["enum"] == list(COST)


def test_results_from_before_the_costs_keep_their_statistics():
    """A committed file whose runs measured no costs gets no "cost" when recomputed; no
    committed file changes when recomputed."""
    for name in committed_results():
        doc = json.loads((DATA / name).read_text())
        if not any("cost" in r["summary"] for p in doc["points"] for r in p["runs"]):
            assert all("cost" not in c["stats"] for c in document.point_stats(doc)), name
            assert "cost" not in document.methods(doc), name
        assert document.recompute(copy.deepcopy(doc)) == doc, name


# --- the terminal --------------------------------------------------------------------------------

def cost_part(table: str) -> str:
    return table[table.index("cost per transaction"):table.index("over time")]


def test_the_report_prints_a_cost_table_per_point():
    doc = document.recompute(with_costs(REAL, CHEAPER))
    part = cost_part(report.results_table(doc))
    base, off = part.split("\n\n")[1:3]
    assert base.splitlines()[0] == f"{ON} (baseline)"
    # the geometric mean, which the ratio compares (Point.centre), not the median
    assert base.splitlines()[1].split() == ["cost", "gmean", "95%", "CI"]
    # 850 µs shown in ms, 2400 bytes in KiB, each to about 3 significant digits
    assert re.search(r"^server CPU ms +0\.850 +0\.84\d \.\. 0\.85\d$", base, re.M)
    assert re.search(r"^redo KiB +2\.34 +2\.3\d \.\. 2\.3\d$", base, re.M)
    assert re.search(r"^fsyncs +0\.0500 +0\.04\d\d \.\. 0\.05\d\d$", base, re.M)
    assert off.splitlines()[0] == OFF
    assert re.search(r"^server CPU ms +0\.680 +0\.67\d \.\. 0\.68\d +0\.800 +0\.79\d \.\. "
                     r"0\.80\d +less$", off, re.M)
    assert re.search(r"^fsyncs +0\.0 +0\.0 \.\. 0\.0 +- +- +zero in a repeat: not "
                     r"compared$", off, re.M)
    assert re.search(r"^host CPU ms .* equivalent within ±3%$", off, re.M)
    legend = " ".join(part.split("\n"))
    assert "cost verdicts: less or more when the 95% CI excludes 1 (\"more, by less than 3%\" " \
           "when the 90% CI lies inside the margin too); equivalent within ±3% when the 90% " \
           "CI lies inside 0.971 .. 1.030" in legend
    # the 90% interval that decided the equivalence, under the table
    tost = Result(doc).points[1].cost_ratio("host_cpu_us_per_trx").tost_text(dots=True)
    assert f"each equivalence's 90% CI, which decided it: host CPU ms {tost}" in " ".join(
        off.split("\n"))


def test_the_cost_tables_fit_100_columns():
    # The widest a table gets: 23 MiB written a transaction, 120 ms of CPU, a ratio of a
    # fortieth, and every kind of verdict beside.
    wide = {"host_cpu_us_per_trx": 100.0, "server_write_bytes_per_trx": 1000.0}
    doc = with_costs(REAL, {ON: wide, OFF: {**wide, "fsyncs_per_trx": 0.0,
                                            "server_cpu_us_per_trx": 1.25,
                                            "log_fsyncs_per_trx": 0.025}})
    part = cost_part(report.results_table(document.recompute(doc)))
    for shown in ("23,43", "120", "0.0250", "zero in a repeat", "more", "less", "equivalent"):
        assert shown in part
    assert max(map(len, part.splitlines())) <= 100


@pytest.mark.parametrize("shown, digits", [(0.85, 3), (12.3, 1), (120.0, 0), (23438.0, 0),
                                           (0.05, 4), (0.00001, 4), (0.0, 1)])
def test_costs_are_shown_to_about_three_significant_digits(shown, digits):
    assert decimals(shown) == digits


@pytest.mark.parametrize("ratio, digits", [(0.976, 3), (1.25, 3), (9.99, 3), (40.0, 1),
                                           (0.025, 4), (None, 3)])
def test_a_costs_ratio_keeps_the_throughputs_decimals_near_one(ratio, digits):
    assert ratio_decimals(ratio, 3) == digits


def test_a_result_without_costs_prints_no_cost_table():
    table = report.results_table(REAL)
    assert "cost" not in table
    assert report.cost_tables(REAL) == ""
    assert all(m.short for m in map(METRICS.get, COST))
