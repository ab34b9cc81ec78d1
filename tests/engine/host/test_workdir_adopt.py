"""A work directory without the lab's mark is adopted only with the lab's own files in it (issue
77, item 3: a `--workdir` holding only runs/project/thesis.tex was adopted and the thesis removed
as "left by a failed run"); and --workdir is resolved in one place, an empty value refused
(item 8: `--workdir ''` ran, and lab.clean cleaned, ./work)."""

import json
from pathlib import Path

import pytest

from tuninglab import cli, files
from tuninglab.engine.host import workdir
from tuninglab.errors import UserError


def tree(root: Path) -> dict:
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*"))
            if p.is_file()}


def thesis_dir(tmp_path: Path) -> Path:
    place = tmp_path / "mine"
    (place / "runs" / "project").mkdir(parents=True)
    (place / "runs" / "project" / "thesis.tex").write_text("\\chapter{One}")
    return place


def test_a_bare_runs_folder_is_refused_and_loses_nothing(tmp_path):
    place = thesis_dir(tmp_path)
    before = tree(place)
    expected = (f"work directory {place}: holds runs but none of the lab's own files (a "
                "template's meta.json, a server root's manifest.json, lab-state.json, "
                "noise.json, the lab's .lock); a run removes what a failed run left in its work "
                "directory, so it takes a new or empty directory, or one the lab made "
                f"(.tuninglab-workdir): pass --workdir {place / 'tuninglab-work'}")
    with pytest.raises(UserError) as held:
        with workdir.held(place):
            pass
    assert str(held.value) == expected
    with pytest.raises(UserError) as cleaned:
        cli.lab_clean(str(place), say=lambda line: None)
    assert str(cleaned.value) == expected
    with pytest.raises(UserError) as dry:
        workdir.check_usable(place)  # what a dry run says
    assert str(dry.value) == expected
    assert tree(place) == before and not workdir.is_marked(place)


@pytest.mark.parametrize("proof", [
    "templates/0123abcd/meta.json", "servers/mariadb-11.8-0123abcd/manifest.json",
    "lab-state.json", "noise.json", "dynamic-variables.json",
    "server-roots-tests/servers/mysql-9.7-0123abcd/manifest.json",
    "lab-tests/.tuninglab-workdir",
])
def test_a_directory_with_the_labs_own_files_is_adopted(tmp_path, proof):
    place = thesis_dir(tmp_path)
    (place / proof).parent.mkdir(parents=True, exist_ok=True)
    (place / proof).write_text(json.dumps({}))
    with workdir.held(place):
        assert workdir.is_marked(place)


@pytest.mark.parametrize("content, adopted", [
    (b"4242", True), (b"4242\n", True),
    (b"", False), (b"pid=4242", False), (b"locked by make\n", False), (b"1" * 11, False),
])
def test_the_labs_lock_file_is_proof_only_holding_a_pid(tmp_path, content, adopted):
    """What held() leaves in .lock: the last run's pid (an earlier version's work directory
    holds nothing else of its own when its first run was killed before a template was built)."""
    place = thesis_dir(tmp_path)
    (place / ".lock").write_bytes(content)
    assert (workdir.foreign(place) is None) is adopted


def test_a_proof_that_is_a_link_proves_nothing(tmp_path):
    place = thesis_dir(tmp_path)
    elsewhere = tmp_path / "noise.json"
    elsewhere.write_text("{}")
    (place / "noise.json").symlink_to(elsewhere)
    assert "none of the lab's own files" in workdir.foreign(place)


def test_the_lock_no_longer_adopts_a_directory_that_holds_other_files(tmp_path):
    """An earlier rule adopted any directory with a .lock, whatever else it held."""
    place = thesis_dir(tmp_path)
    (place / ".lock").write_text("4242")
    (place / "notes.txt").write_text("mine")
    assert workdir.foreign(place).startswith(
        f"work directory {place}: holds files the lab did not make (notes.txt); ")


def test_the_checkouts_own_work_directory_is_the_labs(monkeypatch, tmp_path):
    """./work in the checkout is the lab's by definition: commands that hold no run write
    there (lab.servers --build, the fleet's archives, the tests' own work directories)."""
    monkeypatch.setattr(files, "WORK_DIR", thesis_dir(tmp_path))
    assert workdir.foreign(files.WORK_DIR) is None


def test_an_empty_directory_is_adopted(tmp_path):
    with workdir.held(tmp_path / "new") as wd:
        assert workdir.is_marked(wd)


# --- one resolver for --workdir -----------------------------------------------------------------

def test_chosen_takes_the_option_then_the_environment_then_the_checkouts_work(monkeypatch,
                                                                            tmp_path):
    monkeypatch.delenv("TUNINGLAB_WORKDIR", raising=False)
    assert workdir.chosen(None) == files.WORK_DIR
    assert workdir.chosen(str(tmp_path)) == tmp_path and workdir.chosen(tmp_path) == tmp_path
    monkeypatch.setenv("TUNINGLAB_WORKDIR", str(tmp_path / "env"))
    assert workdir.chosen(None) == tmp_path / "env"
    assert workdir.chosen(str(tmp_path)) == tmp_path


@pytest.mark.parametrize("value", ["", " ", "\t"])
def test_an_empty_workdir_is_refused(value):
    with pytest.raises(UserError) as caught:
        workdir.chosen(value)
    assert str(caught.value) == ("--workdir: expected a directory, got an empty value; leave "
                                 "--workdir out for ./work (or $TUNINGLAB_WORKDIR)")


@pytest.mark.parametrize("value", ["", "  "])
def test_an_empty_environment_variable_is_refused(monkeypatch, value):
    monkeypatch.setenv("TUNINGLAB_WORKDIR", value)
    with pytest.raises(UserError) as caught:
        workdir.chosen(None)
    assert str(caught.value) == ("$TUNINGLAB_WORKDIR is set but empty: set it to a directory, "
                                 "or unset it for ./work")
