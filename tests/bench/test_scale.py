"""The scale benchmark's inputs and its measure, without building the site."""

import json

import pytest

from helpers import DATA
from tuninglab import files
from tuninglab.bench import scale
from tuninglab.evidence import result_files
from tuninglab.results import document


@pytest.fixture(autouse=True)
def committed_sources(monkeypatch, committed_data):
    """The project's results the bench copies are the committed ones, never a user's own."""
    monkeypatch.setattr(files, "DATA_DIR", committed_data)


def test_generated_results_are_valid_and_each_from_its_own_host(tmp_path):
    assert scale.generate(tmp_path, 40) == 40
    files = sorted(tmp_path.rglob("*.json"))
    docs = [json.loads(p.read_text()) for p in files]
    assert len(files) == 40 and len({d["host"]["id"] for d in docs}) == 40
    assert all(document.validate(d) == [] for d in docs)
    assert all(d["contribution"]["tool"] == "data.submit" for d in docs)
    assert not any(result_files.future(d) for d in docs)  # the site would chart none of them
    assert not any(str(DATA) in str(p) for p in files)


def test_the_heaviest_page_is_the_one_with_the_most_figure_data(tmp_path):
    # As the fence writes them: the figure's JSON HTML-escaped in an attribute.
    for name, figures in (("a", ["{&quot;x&quot;:1}"]), ("b", ["{&quot;x&quot;:12}", "{}"])):
        page = tmp_path / "topics" / name / "index.html"
        page.parent.mkdir(parents=True)
        page.write_text("".join(f'<div data-figure="{f}"></div>' for f in figures))
    assert scale.heaviest_page(tmp_path) == ("b", len("{&quot;x&quot;:12}") + 2)


def test_host_files_are_counted_apart_from_the_host_lists(tmp_path):
    group = tmp_path / "assets" / "hosts" / "doublewrite" / "_main"
    group.mkdir(parents=True)
    (group / "index.json").write_text("x" * 10)
    (group / "aaaaaaaaaaaaaaaa.json").write_text("x" * 300)
    (group / "bbbbbbbbbbbbbbbb.json").write_text("x" * 200)
    assert scale.host_files(tmp_path) == {"files": 2, "largest": 300, "largest_index": 10}


def test_all_results_can_come_from_one_recipe(tmp_path):
    assert scale.generate(tmp_path, 5, "doublewrite") == 5
    assert [p.name for p in tmp_path.iterdir()] == ["doublewrite"]
