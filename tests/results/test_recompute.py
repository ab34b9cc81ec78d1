"""document.point_stats and document.recompute: the statistics finish() stores, computed from the
runs alone, so that the site and data.check can recompute any file's (issue 16)."""

import copy
import json

from helpers import DATA, committed_results, make_doc
from tuninglab.results import document, stats


def test_finish_stores_what_point_stats_computes():
    doc = document.finish(make_doc())
    computed = document.point_stats(doc)
    assert [p["stats"] for p in doc["points"]] == [c["stats"] for c in computed]
    assert [p.get("trends") for p in doc["points"]] == [c.get("trends") for c in computed]
    assert doc["methods"] == {"summary": stats.SUMMARY_METHOD, "ratio": stats.RATIO_METHOD}


def test_point_stats_leaves_the_document_as_it_is():
    doc = make_doc()
    before = copy.deepcopy(doc)
    document.point_stats(doc)
    assert doc == before


def test_recompute_replaces_forged_statistics_trends_and_methods():
    doc = document.finish(make_doc())
    fresh = copy.deepcopy(doc)
    doc["points"][0]["stats"]["tps"]["median"] = -5
    doc["points"][1]["stats"]["ratio"] = {"ratio": 62, "ci_low": 60, "ci_high": 64,
                                          "verdict": "faster", "verdict_kind": "faster"}
    doc["points"][1]["stats"]["mib_per_s"] = doc["points"][1]["stats"]["tps"]
    doc["points"][0]["trends"] = {"runs": 9}
    doc["methods"]["summary"] = "median of repeats; 95% CI: Student t interval of the mean"
    assert document.recompute(doc) == fresh


def test_trends_are_dropped_where_the_runs_have_no_series_to_give_them():
    doc = document.finish(make_doc())
    for point in doc["points"]:
        point["trends"] = {"runs": 3}
        for run in point["runs"]:
            run["series"] = {}
    document.recompute(doc)
    assert all("trends" not in p for p in doc["points"])


def test_a_stored_interval_of_two_far_apart_repeats_stays_above_zero():
    doc = document.finish(make_doc(on_tps=(4954.0, 7183.0), off_tps=(6000.0, 6100.0)))
    doc["plan"]["repeats"] = 2
    tps = doc["points"][0]["stats"]["tps"]
    assert 0 < tps["ci_low"] < 4954 and tps["ci_high"] > 7183


def test_every_committed_result_stores_the_statistics_of_its_runs():
    """The one-off recomputation of the committed files: each holds what its runs give."""
    for name in committed_results():
        doc = json.loads((DATA / name).read_text())
        stored = [(p["stats"], p.get("trends")) for p in doc["points"]]
        computed = [(c["stats"], c.get("trends")) for c in document.point_stats(doc)]
        assert stored == computed, name
        assert doc["methods"]["summary"] == stats.SUMMARY_METHOD, name
        assert doc["methods"]["ratio"] == document.methods(doc)["ratio"], name
        for p in doc["points"]:  # the verdicts of issue 17, each with its kind
            ratio = p["stats"]["ratio"]
            assert ratio is None or ratio["verdict_kind"] in stats.VERDICTS, name
