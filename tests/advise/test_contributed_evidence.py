"""Contributed evidence in advise's rows (issue 57): anyone can add it, so a row that rests on
it says so, and the project's own evidence comes first wherever there is some."""

import json
import random
import shutil

import pytest

from tuninglab.evidence import advice, result_files
from tuninglab.evidence import server_rows as rows
from tuninglab.evidence.topic_pages import topic_pages

CONTRIBUTED = {"submitted": "2026-11-30T00:00:00Z", "tool": "data.submit"}


@pytest.fixture
def data(committed_data, tmp_path, monkeypatch):
    """The committed results and contributed copies of the doublewrite ones, relabelled
    MariaDB 11.8 (where the project's whole-machine doublewrite results are left out here) and
    10.11."""
    target = tmp_path / "data"
    target.mkdir()
    for path in committed_data.iterdir():  # copies: data/'s readers never follow a link
        if path.is_dir() and path.name != "doublewrite":
            shutil.copytree(path, target / path.name)
    (target / "doublewrite").mkdir()
    rng = random.Random(7)
    for path in sorted((committed_data / "doublewrite").glob("*.json")):
        doc = json.loads(path.read_text())
        if not whole_machine_on_11(doc):
            (target / "doublewrite" / path.name).write_bytes(path.read_bytes())
        if doc.get("variant") or doc["server"]["version"].startswith("11"):
            continue
        for version in ("11.8.3", "10.11.19"):
            copy = json.loads(json.dumps(doc))
            copy["server"]["version"] = version
            copy["host"]["id"] = f"{rng.getrandbits(64):016x}"
            copy["contribution"] = CONTRIBUTED
            name = f"{path.stem}-{copy['host']['id'][:8]}-{version}.json"
            (target / "doublewrite" / name).write_text(json.dumps(copy))
    monkeypatch.setattr(result_files, "DATA_DIR", target)
    return target


def whole_machine_on_11(doc: dict) -> bool:
    """A project's doublewrite result of MariaDB 11.8 on a whole machine (not a duet's)."""
    return doc["server"]["version"].startswith("11") and doc["plan"].get("design") != "duet"


def rests_on():
    return advice.rests_on(next(m for m in topic_pages() if m["slug"] == "doublewrite"))


def test_a_row_that_rests_on_contributed_results_says_so(data):
    found = rows.evidence(rests_on(), "mariadb 11.8", "", {})
    assert found.host_class.startswith("contributed: ")
    assert found.closeness.startswith("contributed results, not the project's")
    assert found.counted() == f"{found.results} contributed results, counted as one sitting"


def test_the_projects_own_evidence_comes_before_contributed_evidence(data):
    found = rows.evidence(rests_on(), "mariadb 10.11", "", {})
    assert not found.host_class.startswith("contributed: ")
    assert "contributed" not in found.closeness


def test_a_duet_stands_in_only_where_nothing_measured_the_whole_machine(committed_data,
                                                                         monkeypatch, tmp_path):
    monkeypatch.setattr(result_files, "DATA_DIR", committed_data)
    whole = rows.evidence(rests_on(), "mariadb 11.8", "", {})
    assert not whole.host_class.startswith("duet, ")
    # without the whole machine's results, the project's evidence on 11.8 is a duet's
    data = tmp_path / "data"
    shutil.copytree(committed_data, data)
    for path in (data / "doublewrite").glob("*.json"):
        if whole_machine_on_11(json.loads(path.read_text())):
            path.unlink()
    monkeypatch.setattr(result_files, "DATA_DIR", data)
    found = rows.evidence(rests_on(), "mariadb 11.8", "", {})
    assert found.host_class.startswith("duet, ")
    assert found.closeness.startswith("a duet, each server on half the machine")
