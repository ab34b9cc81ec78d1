"""workload.commit read back on the real server: each run records the server's COMMIT and
INSERT counters (engine/run/repeat.py), and data.check finds them to be its point's
(contrib/readback.py)."""

import pytest

from helpers import fixture_recipe, run_recipe
from tuninglab.contrib import design, experiment

pytestmark = pytest.mark.integration


def test_each_run_records_the_commits_its_point_gives(recipes_dir, tmp_path, monkeypatch):
    fixture_recipe(recipes_dir, "tiny-commit")
    _, doc = run_recipe("tiny-commit", recipes_dir, tmp_path / "wd", tmp_path / "data")
    got = {p["value"]: p["runs"][0]["statements"] for p in doc["points"]}
    assert got["statement"]["com_commit"] == 0 < got["statement"]["com_insert"]
    assert got["10"]["com_insert"] / got["10"]["com_commit"] == pytest.approx(10, rel=0.1)
    assert 0 < got["1s"]["com_commit"] < got["10"]["com_commit"]
    monkeypatch.setattr(design, "RECORDS_FALLBACK_FROM", "2000-01-01T00:00:00+00:00")
    assert [line for line in experiment.check_experiment(doc) if "statements" in line] == []
