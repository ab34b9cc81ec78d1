"""lab.noise for real, in small: the three A/A experiments run (switchback, restart, duet),
their figures are stored in the work directory, their A/A comparisons are kept as a
calibration record under data/, and the next result and dry run of this host use the
figures."""

import json

import pytest

from helpers import fixture_recipe, run_options, run_recipe, servers_under
from tuninglab import calibrate
from tuninglab.engine.measure import noise
from tuninglab.engine.run import runner
from tuninglab.results import calibrations

pytestmark = pytest.mark.integration


def test_the_calibration_is_stored_and_carried_by_later_results(recipes_dir, shared_workdir,
                                                                tmp_path, monkeypatch):
    monkeypatch.setattr(calibrate, "SHAPES", {"switchback": {"full": (2, 2, 3)},
                                          "restart": {"full": (1, 2, 2)},
                                          "duet": {"full": (1, 6, 2)}})
    monkeypatch.setattr(calibrate, "RECIPE", calibrate.RECIPE.replace(
        'shape = "cpu-bound"', 'shape = "cpu-bound"\ntables = 2\ntable_size = 2000\n'
                               'buffer_pool_size = "32M"'))
    lines = []
    figures = calibrate.calibrate(shared_workdir, say=lines.append,
                                  data_dir=tmp_path / "calibrated")
    stored = json.loads((shared_workdir / noise.FILE).read_text())
    assert stored == figures
    assert figures["switchback"]["rounds"] == 3 and figures["restart"]["repeats"] == 2
    assert figures["switchback"]["round_log_ratio_sd_pct"] >= 0
    assert figures["restart"]["run_to_run_sd_pct"] >= 0
    assert any("an A/B of 5 minutes" in line for line in lines)
    assert servers_under(shared_workdir) == []
    (record,) = calibrations.load_all(tmp_path / "calibrated")  # valid, or ValueError
    assert set(record["designs"]) == {"switchback", "restart", "duet"}
    assert figures["duet"]["halves"] == 4 and figures["duet"]["batch_s"] == 1
    assert len(record["designs"]["duet"]["point_first"]) == 4
    assert len(calibrations.aa_estimates(record, duet=True)) == 1
    assert record["host"]["id"] == figures["host_id"]
    assert len(record["designs"]["switchback"]["point_values"]) == 3

    fixture_recipe(recipes_dir, "tiny-switchback")
    dry = []
    runner.run("tiny-switchback", run_options(recipes_dir, shared_workdir, tmp_path / "data",
                                              dry_run=True), say=dry.append)
    assert any(line.startswith("expected precision: about ±") for line in dry)
    _, doc = run_recipe("tiny-switchback", recipes_dir, shared_workdir, tmp_path / "data")
    assert doc["noise"] == figures
    # the duet alone again: its figures replaced, the others' kept
    again = calibrate.calibrate(shared_workdir, say=lines.append, designs="duet",
                                data_dir=tmp_path / "calibrated")
    assert again["switchback"] == figures["switchback"] and again["duet"]["halves"] == 4
    assert len(calibrations.load_all(tmp_path / "calibrated")) == 2
    (shared_workdir / noise.FILE).unlink()  # the other tests' results carry none
