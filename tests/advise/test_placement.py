"""Where a host stands among the guide's host classes (advise/placement.py), read against the
committed results; and the calibration's refusals, before anything runs."""

import copy
import json

import pytest

from tuninglab import cli
from tuninglab.advise import placement
from tuninglab.errors import UserError
from tuninglab.evidence import result_files


@pytest.fixture
def committed(committed_data, monkeypatch):
    monkeypatch.setattr(result_files, "DATA_DIR", committed_data)
    return committed_data


def a_result(data) -> dict:
    path = sorted((data / "flush-log-at-trx-commit").glob("*.json"))[-1]
    return json.loads(path.read_text())


def test_a_host_of_a_known_class_is_placed_in_it(committed):
    lines = placement.placement(a_result(committed))
    assert len(lines) == 1 and "of the guide's results are of" in lines[0]


def test_a_new_kind_of_host_is_told_the_closest_classes_and_how_they_differ(committed):
    doc = copy.deepcopy(a_result(committed))
    doc["host"]["cores"] = 96
    lines = placement.placement(doc)
    assert "none of the guide's results are of it yet" in lines[0]
    assert 1 <= len(lines) - 1 <= 3
    assert all("cores: " in line and "96 here" in line for line in lines[1:])


def test_the_classes_count_the_projects_own_results_only(committed):
    found = placement.classes()
    assert found and all(n >= 1 for n, _ in found.values())
    assert not any(name.startswith(("contributed", "lab VM")) for name in found)


def test_calibrate_takes_no_server_of_the_readers():
    with pytest.raises(UserError, match="takes no --socket, --host or --on"):
        cli.advise(calibrate=True, socket="/s")
