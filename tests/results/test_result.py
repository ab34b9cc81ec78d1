"""Result, Point and Ratio (results/result.py): every committed result file loads through them,
each accessor returns what the document holds (or the default of a file written before the
field existed), and the one text of a comparison in each of its forms."""

import json

import pytest

from helpers import DATA, committed_results, make_doc
from tuninglab.results import document, stats
from tuninglab.results.ratio import Ratio
from tuninglab.results.result import Point, Result

FILES = committed_results()


def load(name: str) -> dict:
    return json.loads((DATA / name).read_text())


def finished(**changes) -> dict:
    doc = document.finish(make_doc())
    doc.update(changes)
    return doc


# --- every committed file -----------------------------------------------------------------------

def test_there_are_committed_results_to_read():
    assert len(FILES) > 50


@pytest.mark.parametrize("name", FILES)
def test_every_committed_result_reads_through_the_classes(name):
    doc = load(name)
    r = Result(doc)
    assert r.raw is doc
    assert (r.recipe, r.profile, r.started, r.host_id) == (
        doc["recipe"]["name"], doc["profile"], doc["started"], doc["host"]["id"])
    assert r.variant == doc.get("variant", "") and name.startswith(f"{r.recipe}/")
    assert r.metric == doc["workload"].get("metric", "tps")
    assert (r.design == "switchback") == document.switchback(doc)
    assert (r.design == "duet") == document.duet(doc)
    pct = doc["plan"].get("smallest_effect_pct")
    assert r.smallest_effect == (stats.DEFAULT_SMALLEST_EFFECT if pct is None else pct / 100)
    assert r.design in ("restart", "switchback", "duet") and r.date == doc["started"][:10]
    assert [p.id for p in r.points] == [p["id"] for p in doc["points"]]
    assert r.baseline_point.raw is document.point(doc, doc["sweep"]["baseline"])
    assert sum(p.is_baseline for p in r.points) == 1
    for p, raw in zip(r.points, doc["points"]):
        assert p.raw is raw and p.runs is raw["runs"] and p.value == raw["value"]
        assert p.values(r.metric) == [run["summary"][r.metric] for run in raw["runs"]]
        assert p.summary(r.metric).to_dict() == raw["stats"][r.metric]
        assert (p.ratio is None) == p.is_baseline
        texts = [p.ratio.text(), p.ratio.text(3, dots=True, grouped=True)] if p.ratio else []
        assert all(isinstance(t, str) and t for t in texts)
        for key in p.costs:
            assert p.cost(key).median == raw["stats"]["cost"][key]["median"]
            assert (p.cost_ratio(key) is None) == p.is_baseline


# --- accessors ---------------------------------------------------------------------------------

def test_accessors_return_what_the_document_holds():
    doc = finished(variant="tpcc", contribution={"description": "my box", "submitted":
                                                 "2026-11-22T00:00:00+00:00",
                                                 "tool": "data.submit"},
                   fleet={"run": "abcdef012345", "host": "db1"}, _file="data/x/y.json")
    r = Result(doc)
    assert (r.recipe, r.title, r.variant, r.experiment, r.profile) == (
        "doublewrite", "Doublewrite: ON vs OFF", "tpcc", "doublewrite:tpcc", "quick")
    assert (r.repeats, r.duration_s, r.design) == (3, 20.0, "restart")
    assert (r.tool, r.metric, r.shape, r.setting) == ("sysbench", "tps", "disk-bound",
                                                      "innodb_doublewrite")
    assert (r.baseline, r.baseline_point.value) == ("innodb_doublewrite=ON", "ON")
    assert r.point("innodb_doublewrite=OFF").value == "OFF"
    assert (r.host_id, r.cpu_model, r.server) == ("0123456789abcdef", "AMD EPYC",
                                                  "mariadb 10.11.19")
    assert (r.software["kernel"], r.memory, r.warm_up, r.labs) == ("6.1.0-28-amd64", None,
                                                                   None, [])
    assert (r.device("fsync_per_s"), r.device("nothing")) == (1234.5, None)
    assert (r.contributed, r.description, r.fleet_host, r.file) == (True, "my box", "db1",
                                                                    "data/x/y.json")
    assert r.finished == doc["finished"] and r.invalid == [] and r.methods is doc["methods"]
    assert Result.of(r) is r and Result.of(doc).raw is doc


def test_a_file_from_before_a_field_existed_reads_its_default():
    doc = finished()
    for key in ("variant", "contribution", "fleet", "memory", "invalid", "_file"):
        doc.pop(key, None)
    doc["plan"].pop("design", None)
    doc["plan"].pop("smallest_effect_pct", None)
    doc["workload"].pop("metric", None)
    doc["device_baseline"]["fsync_per_s"] = 0
    r = Result(doc)
    assert (r.variant, r.experiment, r.contributed, r.description, r.fleet_host) == (
        "", "doublewrite", False, None, None)
    assert (r.design, r.metric, r.memory, r.invalid, r.file) == (
        "restart", "tps", None, [], None)
    assert r.smallest_effect == stats.DEFAULT_SMALLEST_EFFECT
    assert r.device("fsync_per_s") is None  # 0: not measured


def test_a_point_reads_its_stats_runs_and_labs():
    doc = finished()
    on, off = Result(doc).points
    assert (on.is_baseline, off.is_baseline, on.ratio) == (True, False, None)
    assert off.summary("tps").median == doc["points"][1]["stats"]["tps"]["median"]
    assert off.summary("nothing") is None and off.costs == {} and off.cost("x") is None
    assert off.cost_ratio("fsyncs_per_trx") is None and off.regime_reached
    assert off.values("tps") == [1500.0, 1510.0, 1490.0]
    assert off.values("missing") == [None] * 3
    assert off.measured("write_bytes_per_trx") == [2048.0] * 3  # from the run's io
    assert off.io("io", "writes_per_trx") == [3.25] * 3 and off.io("array_io", "x") == [None] * 3
    assert off.labs == [] and off.trends == doc["points"][1].get("trends")
    doc["points"][1]["runs"][0]["lab"] = {"accelerator": "tcg"}
    doc["points"][1]["stats"]["regime"] = {"reached": False, "checks": []}
    assert Result(doc).labs == [{"accelerator": "tcg"}]
    assert not Point(doc["points"][1], "innodb_doublewrite=ON").regime_reached


def test_a_ratio_reads_the_comparison():
    raw = stats.Comparison(1.25, 1.1, 1.4, "faster", "faster", 1.15, 1.35).to_dict()
    r = Ratio.of(raw)
    assert (r.ratio, r.ci_low, r.ci_high, r.tost_low, r.tost_high) == (1.25, 1.1, 1.4, 1.15,
                                                                       1.35)
    assert (r.verdict, r.verdict_kind, r.to_dict()) == ("faster", "faster", raw)
    assert r.half_width_pct == pytest.approx(12.0)
    assert Ratio.of(None) is None
    assert Ratio.of({}) == Ratio(None, None, None, "", "", None, None)  # a hand-made dict
    flipped = r.flipped()
    assert (flipped.ratio, flipped.ci_low, flipped.ci_high) == pytest.approx((0.8, 1 / 1.4,
                                                                             1 / 1.1))
    assert (flipped.tost_low, flipped.tost_high) == pytest.approx((1 / 1.35, 1 / 1.15))
    assert (flipped.verdict_kind, flipped.verdict, r.verdict_kind) == ("slower",) * 2 + ("faster",)
    noisy = Ratio.of({**raw, "verdict": "too noisy to tell", "verdict_kind": "too noisy to tell"})
    assert noisy.flipped().verdict == "too noisy to tell"
    judged = r.judged(stats.REGIME_NOT_REACHED)
    assert (judged.verdict_kind, judged.verdict, judged.ratio) == ("regime not reached",) * 2 \
        + (1.25,)


def test_the_classes_only_read():
    r = Result(finished())
    for obj, name in ((r, "recipe"), (r.points[1], "value"), (r.points[1].ratio, "ratio")):
        with pytest.raises(AttributeError):
            setattr(obj, name, "x")


# --- the one text of a comparison --------------------------------------------------------------

EQUIVALENT = Ratio.of({"ratio": 1.0123, "ci_low": 0.98, "ci_high": 1.045, "verdict":
                    "equivalent within ±3%", "verdict_kind": "equivalent", "tost_low": 0.9901,
                    "tost_high": 1.0312})
FASTER = Ratio.of({"ratio": 1234.5678, "ci_low": 1100.0, "ci_high": 1400.25, "verdict": "faster",
                "verdict_kind": "faster", "tost_low": 1150.0, "tost_high": 1350.0})
FEW = Ratio.of(stats.Comparison(1.25, None, None, stats.TOO_FEW_REPEATS, stats.TOO_FEW_REPEATS,
                             None, None).to_dict())
NONE = Ratio.of(stats.Comparison(None, None, None, stats.NO_THROUGHPUT, stats.NO_THROUGHPUT,
                              None, None).to_dict())


@pytest.mark.parametrize("ratio, kwargs, text", [
    # the site's tables and hovers (describe.verdict_text), a cost's to other decimals
    (EQUIVALENT, {}, "ratio 1.01 [0.98, 1.04]: equivalent within ±3% (90% CI [0.990, 1.031])"),
    (FASTER, {}, "ratio 1234.57 [1100.00, 1400.25]: faster"),
    (EQUIVALENT, {"digits": 4}, "ratio 1.0123 [0.9800, 1.0450]: equivalent within ±3% "
                                "(90% CI [0.990, 1.031])"),
    (FEW, {}, "ratio 1.25: too few repeats"),
    (NONE, {}, "no throughput to compare"),
    # the claims' tables: x and the interval
    (EQUIVALENT, {"mark": "x", "with_verdict": False}, "x1.01 [0.98, 1.04]"),
    (FEW, {"mark": "x", "with_verdict": False}, "x1.25"),
    (NONE, {"mark": "x", "with_verdict": False}, "-"),
    (Ratio.of({"ratio": 2.0}), {"mark": "x"}, "x2.00"),  # a source's ratio: no verdict to say
    # the benchmarks
    (EQUIVALENT, {"digits": 3, "sep": ", ", "decided": False},
     "ratio 1.012 [0.980, 1.045], equivalent within ±3%"),
    # the terminal's cells (report.py, thousands grouped) and the fleet's (not grouped)
    (FASTER, {"digits": 3, "mark": "", "with_interval": False, "with_verdict": False,
              "grouped": True}, "1,234.568"),
    (FASTER, {"digits": 3, "with_ratio": False, "with_verdict": False, "dots": True,
              "grouped": True}, "1,100.000 .. 1,400.250"),
    (FASTER, {"digits": 3, "with_ratio": False, "with_verdict": False, "dots": True},
     "1100.000 .. 1400.250"),
    (FEW, {"digits": 3, "with_ratio": False, "with_verdict": False, "dots": True}, "-"),
    (NONE, {"digits": 3, "mark": "", "with_interval": False, "with_verdict": False}, "-"),
    (EQUIVALENT, {"with_ratio": False, "with_interval": False, "dots": True, "grouped": True},
     "equivalent within ±3% (90% CI 0.990 .. 1.031)"),
    (EQUIVALENT, {"with_ratio": False, "with_interval": False, "decided": False},
     "equivalent within ±3%"),
])
def test_the_text_of_a_comparison_in_each_form(ratio, kwargs, text):
    assert ratio.text(**kwargs) == text


def test_the_text_of_a_flipped_comparison_reads_the_other_way():
    assert FASTER.flipped().text(mark="x", with_verdict=False) == "x0.00 [0.00, 0.00]"
    ratio = Ratio.of({"ratio": 1.25, "ci_low": 1.1, "ci_high": 1.6, "verdict": "faster",
                   "verdict_kind": "faster"})
    assert ratio.flipped().text() == "ratio 0.80 [0.62, 0.91]: slower"


# --- compared_values ----------------------------------------------------------------------------

def compared(doc, point_id, metric):
    r = Result(doc)
    return r.compared_values(r.point(point_id), metric)


def _io_run(writes, cost=None):
    return {"repeat": 1, "summary": {"tps": 100.0, "io": {"writes_per_trx": writes},
                                     "cost": cost or {"fsyncs_per_trx": 1.0}}}


def test_compared_values_read_the_summary_then_its_io_then_its_cost():
    doc = {"sweep": {"baseline": "10"}, "plan": {"design": "restart"},
           "points": [{"id": "10", "value": "10", "runs": [_io_run(4.0), _io_run(4.2)]},
                      {"id": "5", "value": "5", "runs": [_io_run(6.0), _io_run(6.3)]}]}
    assert compared(doc, "5", "tps") == ([100.0, 100.0], [100.0, 100.0], False)
    assert compared(doc, "5", "writes_per_trx") == ([6.0, 6.3], [4.0, 4.2], False)
    assert compared(doc, "5", "fsyncs_per_trx")[0] == [1.0, 1.0]
    with pytest.raises(KeyError):
        compared(doc, "5", "redo_bytes_per_trx")
