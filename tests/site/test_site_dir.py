"""A build empties its site directory first (MkDocs' --clean), so it refuses one that holds what
no build made (issue 57: `--site-dir DIR` emptied a full folder without a word, and `--site-dir
data` deleted every result file)."""

import subprocess
import sys

import pytest

from helpers import REPO
from tuninglab.errors import UserError
from tuninglab.site import builder, site_dir


def refusal(path, default=None) -> str:
    with pytest.raises(UserError) as info:
        site_dir.check(path, default or builder.SITE_DIR)
    return str(info.value)


def test_a_new_or_empty_folder_or_the_checkouts_own_site_is_accepted(tmp_path):
    site_dir.check(tmp_path / "new", builder.SITE_DIR)
    site_dir.check(tmp_path, builder.SITE_DIR)
    (tmp_path / "kept.txt").write_text("x")
    site_dir.check(tmp_path, default=tmp_path)   # the default site/ is the build's own


def test_a_full_folder_no_build_marked_is_refused_and_kept(tmp_path):
    (tmp_path / "notes.txt").write_text("mine")
    assert refusal(tmp_path) == (
        f"--site-dir {tmp_path}: not empty, and no build of the guide marked it as its own "
        "(.tuninglab-site); a build empties its site directory first: name a new or empty "
        "folder, or empty this one yourself")
    assert (tmp_path / "notes.txt").read_text() == "mine"


def test_a_folder_a_build_marked_may_be_built_again(tmp_path):
    (tmp_path / "index.html").write_text("<html>")
    site_dir.mark(tmp_path)
    site_dir.check(tmp_path, builder.SITE_DIR)


@pytest.mark.parametrize("name", ["data", "data/doublewrite", "docs", "recipes", "src", ".git"])
def test_a_folder_of_the_checkout_is_refused(name):
    assert f"inside the checkout's {name.split('/')[0]}/" in refusal(REPO / name)


def test_the_checkout_and_a_folder_that_holds_it_are_refused():
    assert "holds this checkout" in refusal(REPO)
    assert "holds this checkout" in refusal(REPO.parent)
    assert "holds this checkout" in refusal("/")


def test_a_file_is_refused(tmp_path):
    (tmp_path / "f").write_text("x")
    assert refusal(tmp_path / "f") == f"--site-dir {tmp_path / 'f'}: not a folder"


@pytest.mark.integration  # runs invoke
def test_the_command_line_refuses_data_and_removes_nothing(tmp_path):
    before = sorted(p.name for p in (REPO / "data").rglob("*"))  # named, not read
    done = subprocess.run([sys.executable, "-m", "invoke", "docs.build", "--site-dir", "data"],
                          cwd=REPO, capture_output=True, text=True, timeout=120)
    assert done.returncode == 2
    assert done.stderr.startswith("error: --site-dir data: inside the checkout's data/")
    assert sorted(p.name for p in (REPO / "data").rglob("*")) == before  # named, not read
