"""Every result file committed under data/ matches the schema and its recipe."""

import json

import pytest

from helpers import DATA, committed_results
from tuninglab.recipes.load import list_names, load_all
from tuninglab.results import document
from tuninglab.results.result import Result

FILES = committed_results()  # <recipe>/<file>.json: never a result a user's own run added


def test_there_are_result_files():
    assert FILES, f"no result files under {DATA}"


@pytest.mark.parametrize("name", FILES)
def test_result_file_is_valid(committed_data, name):
    path = committed_data / name
    doc = json.loads(path.read_text())
    assert document.validate(doc) == []
    assert path.parent.name == doc["recipe"]["name"]
    assert doc["recipe"]["name"] in list_names()
    assert doc.get("variant", "") in {r.variant for r in load_all(doc["recipe"]["name"])}
    metric = Result(doc).metric
    for point in doc["points"]:
        assert len(point["runs"]) == Result(doc).rounds  # a duet runs each point twice a repeat
        assert metric in point["stats"]
        for run in point["runs"]:
            assert run["summary"][metric] > 0
            if metric in ("tps", "new_order_tpm"):  # a timed run has a sample every second
                assert len(run["series"]["tps"]) >= doc["plan"]["duration_s"] - 1
            else:  # a scan read the whole dataset
                assert run["summary"]["rows"] == \
                    doc["dataset"]["tables"] * doc["dataset"]["table_size"]
