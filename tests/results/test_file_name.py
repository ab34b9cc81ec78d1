"""A result file's name (document.final_path) is plain ASCII letters, digits and dashes
whatever text the document holds (issue 36: a profile "quické" went into the name, which git
quotes, and CI's pattern then skipped the file), and one directory under data/; the names of
the committed results are the ones they have."""

import json
import re

import pytest

from helpers import committed_results
from tuninglab.results import document

PLAIN = re.compile(r"[A-Za-z0-9-]+\.json")


def doc(**changes) -> dict:
    out = {"recipe": {"name": "doublewrite"}, "started": "2026-11-21T23:24:43+00:00",
           "host": {"id": "0123456789abcdef"}, "profile": "quick", "run_id": "0badc0de"}
    out.update(changes)
    return out


@pytest.mark.parametrize("profile, part", [
    ("quické", "quick-"), ("../../etc", "------etc"), ('a"b\\c', "a-b-c"),
    ("x\ny", "x-y"), ("", "-"), ("\u202equick", "-quick")])
def test_any_profile_text_gives_an_ascii_name(tmp_path, profile, part):
    path = document.final_path(doc(profile=profile), tmp_path)
    assert path.parent == tmp_path / "doublewrite"
    assert path.name == f"20261121T232443Z-01234567-{part}-0badc0de.json"
    assert PLAIN.fullmatch(path.name) and path.name.isascii()


def test_a_recipe_name_or_variant_cannot_leave_data(tmp_path):
    path = document.final_path(doc(recipe={"name": "../.."}, variant="x/../y"), tmp_path)
    assert path.parent == tmp_path / "-----"
    assert path.name == "20261121T232443Z-01234567-quick-x----y-0badc0de.json"


@pytest.mark.parametrize("name", committed_results())
def test_a_committed_result_keeps_its_name(committed_data, name):
    path = committed_data / name
    assert document.final_path(json.loads(path.read_text()), committed_data) == path
