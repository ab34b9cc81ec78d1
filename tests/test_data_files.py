"""Every result file committed under data/ matches the schema and its recipe."""

import json
from pathlib import Path

import pytest

from tuninglab import recipe, results

DATA = Path(__file__).resolve().parents[1] / "data"
FILES = sorted(p for p in DATA.rglob("*.json") if "historical" not in p.parts)


def test_there_are_result_files():
    assert FILES, f"no result files under {DATA}"


@pytest.mark.parametrize("path", FILES, ids=lambda p: str(p.relative_to(DATA)))
def test_result_file_is_valid(path):
    doc = json.loads(path.read_text())
    assert results.validate(doc) == []
    assert path.parent.name == doc["recipe"]["name"]
    assert doc["recipe"]["name"] in recipe.list_names()
    for point in doc["points"]:
        assert len(point["runs"]) == doc["plan"]["repeats"]
        for run in point["runs"]:
            assert len(run["series"]["tps"]) >= doc["plan"]["duration_s"] - 1
