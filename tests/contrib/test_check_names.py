"""data.check holds a result's name to the one document.final_path gives it, plain ASCII, and
its profile to the names recipes give theirs (issue 36: a hand-made file with profile "quické",
named with it, passed); `--path ""` (which is the current directory, .venv and all) and a
directory without results are refused, a directory of results has each checked."""

import json
from pathlib import Path

import pytest

from helpers import DATA
from tuninglab import cli
from tuninglab.contrib import check
from tuninglab.errors import UserError
from tuninglab.results import document

BASE = DATA / "doublewrite" / "20261121T233847Z-209a4cf4-quick.json"
PROFILE = ("profile: 'quické' is no profile name; expected lower-case ASCII letters, digits "
           "and dashes, as a recipe's [profiles] are named")


def quicke() -> dict:
    doc = json.loads(BASE.read_text())
    doc["profile"] = "quické"
    return doc


def write(tmp_path, doc, name) -> Path:
    path = tmp_path / "data" / "doublewrite" / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(doc))
    return path


def test_a_profile_no_recipe_could_name_named_into_the_file_is_refused(tmp_path):
    """The file as the old final_path named it: the profile in the name, a non-ASCII name."""
    path = write(tmp_path, quicke(), BASE.name.replace("-quick", "-quické"))
    assert check.check_file(path) == [
        f"{path}: {PROFILE}",
        f"{path}: (top): the file is doublewrite/{path.name}; expected "
        f"data/doublewrite/{BASE.name.replace('-quick', '-quick-')} (document.final_path: "
        "recipe/name, started, host/id, profile, variant)"]


def test_at_the_ascii_name_its_profile_is_still_refused(tmp_path):
    doc = quicke()
    path = write(tmp_path, doc, document.final_path(doc).name)
    assert path.name.isascii()
    assert check.check_file(path) == [f"{path}: {PROFILE}"]


def test_an_empty_path_is_refused_not_the_current_directory():
    with pytest.raises(UserError, match=r"^--path: an empty path; expected a result file or "
                                        r"a directory of result files"):
        check.result_files([""])


def test_data_check_with_an_empty_path_says_so(capsys):
    with pytest.raises(SystemExit) as info:
        cli.guard(cli.data_check, [""], print)
    assert info.value.code != 0
    out = capsys.readouterr()
    assert out.err.startswith("error: --path: an empty path") and out.out == ""


def test_a_directory_without_results_is_refused(tmp_path):
    (tmp_path / "notes.txt").write_text("x")
    with pytest.raises(UserError, match=f"--path {tmp_path}: a directory without result files"):
        check.result_files([tmp_path])


def test_a_directory_has_each_result_under_it_checked(tmp_path):
    good = write(tmp_path, json.loads(BASE.read_text()), BASE.name)
    bad = write(tmp_path, quicke(), "x.json")
    lines = []
    with pytest.raises(SystemExit):
        cli.data_check([str(tmp_path / "data")], lines.append)
    assert lines[-1] == "2 result files checked, 2 problems"  # its profile, its name
    assert all(line.startswith(f"{bad}: ") for line in lines[:-1]) and str(good) not in lines
