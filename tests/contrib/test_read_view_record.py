"""data.check's rule on a held read view's record (contrib/read_view.py), on a made result of an
experiment that holds one and of one that does not."""

import dataclasses

from helpers import make_doc
from tuninglab.contrib import read_view
from tuninglab.recipes.model import Measure, Workload


@dataclasses.dataclass
class Experiment:
    workload: Workload
    measure: Measure


HELD = Experiment(Workload("sysbench", "oltp_update_index", 16, (), 15.0), Measure(5, 30, 2))
PLAIN = Experiment(Workload("sysbench", "oltp_write_only", 4), Measure(5, 20, 3))


def doc_with(record):
    doc = make_doc()
    for p in doc["points"]:
        for run in p["runs"]:
            if record is not None:
                run["summary"]["read_view"] = dict(record)
    return doc


def test_every_run_records_the_view_its_recipe_holds():
    assert read_view.check_runs(doc_with({"hold_s": 15.0, "released_at_s": 15.0}), HELD) == []
    assert read_view.check_runs(doc_with(None), PLAIN) == []


def test_a_missing_moved_or_unasked_view_is_named():
    missing = read_view.check_runs(doc_with(None), HELD)
    assert len(missing) == 6 and missing[0].startswith("points/0/runs/0/summary/read_view: "
                                                       "missing")
    moved = read_view.check_runs(doc_with({"hold_s": 15.0, "released_at_s": 25.0}), HELD)
    assert "released_at_s: 25.0; expected the second the view was released, from 15 to 16.5" \
        in moved[0]
    other = read_view.check_runs(doc_with({"hold_s": 10.0, "released_at_s": None}), HELD)
    assert any("hold_s: 10.0; expected 15" in p for p in other)
    assert any("released_at_s: None" in p for p in other)
    unasked = read_view.check_runs(doc_with({"hold_s": 15.0, "released_at_s": 15.0}), PLAIN)
    assert "the recipe holds no read view" in unasked[0]
