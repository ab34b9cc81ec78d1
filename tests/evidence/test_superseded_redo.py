"""A result whose points set the redo log's size and whose runs measured the fresh log's first
pass (before the engine wrote it over: engine/server/datadir.write_over) is superseded; one whose
runs record the log written over, or that leaves the log's size alone, is not
(evidence/superseded.py)."""

import copy
import json

from helpers import DATA
from tuninglab.evidence.superseded import superseded_why
from tuninglab.results import document, redo

FIRST_PASS = DATA / "redo-size" / "20261127T135908Z-848e4704-full-176d447b.json"
NO_SIZE = DATA / "doublewrite" / "20261123T083311Z-a1011588-quick-5cbc0881.json"
REASON = "its redo log was new at the run's size and never written: the runs measured its first"


def load(path) -> dict:
    return json.loads(path.read_text())


def written_over(doc: dict) -> dict:
    doc = copy.deepcopy(doc)
    for p in doc["points"]:
        for run in p["runs"]:
            run["redo_written_over_bytes"] = 1 << 30
    return doc


def test_a_first_pass_over_a_fresh_log_is_superseded_and_says_why():
    doc = load(FIRST_PASS)
    assert redo.sizes_log(doc) and not redo.written_over(doc)
    assert superseded_why(doc).startswith(REASON)


def test_a_log_written_over_before_the_runs_is_current_and_said_so():
    doc = written_over(load(FIRST_PASS))
    assert superseded_why(doc) is None
    assert document.design_text(doc).endswith(
        "; a redo log the server made at the run's size was written over once before it, as a "
        "server's is after its first wrap")


def test_a_result_that_leaves_the_log_size_alone_is_not_affected():
    doc = load(NO_SIZE)
    assert not redo.sizes_log(doc) and superseded_why(doc) is None
    assert "written over" not in document.design_text(doc)
