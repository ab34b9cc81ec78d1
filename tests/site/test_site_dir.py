"""A build empties its site directory first (MkDocs' --clean), so it refuses one that holds what
no build made (issue 57: `--site-dir DIR` emptied a full folder without a word, and `--site-dir
data` deleted every result file)."""

import errno
import os
import pathlib
import subprocess
import sys
import traceback

import pytest
from mkdocs import utils as mkdocs_utils

from helpers import REPO
from tuninglab import cli
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


# --- an empty --site-dir, a full or read-only one (issue 77, item 8) ---------------------------

def test_an_empty_site_dir_is_refused_and_nothing_is_built(monkeypatch):
    monkeypatch.setattr(builder.subprocess, "run", lambda *a, **k: pytest.fail("built"))
    for value in ("", "  "):
        with pytest.raises(UserError) as info:
            cli.docs_build(value)
        assert str(info.value) == ("--site-dir: expected a folder, got an empty value; leave "
                                   "--site-dir out to build into site/")


def test_the_site_dir_given_or_the_default(tmp_path):
    assert site_dir.chosen(None, builder.SITE_DIR) == builder.SITE_DIR
    assert site_dir.chosen(str(tmp_path), builder.SITE_DIR) == tmp_path


def traceback_of(write) -> str:
    """What a build prints when a write fails: the traceback, as MkDocs' process leaves it."""
    try:
        write()
    except OSError:
        return traceback.format_exc()
    raise AssertionError("the write did not fail")


def raising(exc: OSError):
    def write():
        raise exc
    return write


def test_a_full_disk_is_one_line(tmp_path):
    """A real ENOSPC from MkDocs' own write of a page: /dev/full refuses every byte."""
    if not os.path.exists("/dev/full"):
        pytest.skip("no /dev/full here")
    text = traceback_of(lambda: mkdocs_utils.write_file(b"<html>", "/dev/full"))
    assert text.startswith("Traceback") and "[Errno 28]" in text
    assert site_dir.write_failure(text, tmp_path / "site") == (
        f"the site did not build: no space left at {tmp_path / 'site'}; free space there, or "
        "pass --site-dir DIR on another filesystem")


@pytest.mark.parametrize("number, said", [
    (errno.ENOSPC, "no space left at {where}; free space there, or pass --site-dir DIR on "
                   "another filesystem"),
    (errno.EROFS, "a read-only filesystem at {where}; pass --site-dir DIR on a filesystem you "
                  "can write"),
    (errno.EACCES, "no permission to write at {where}; pass --site-dir DIR in a folder you can "
                   "write"),
], ids=["full", "read-only", "forbidden"])
def test_a_full_read_only_or_forbidden_site_dir_is_one_line(tmp_path, monkeypatch, number,
                                                             said):
    """Simulated where MkDocs writes a page (its folder made first): no mount needed, and root
    is refused nothing by permissions."""
    page = tmp_path / "site" / "topics" / "index.html"

    def refuse(path, *args, **kwargs):
        raise OSError(number, os.strerror(number), path)

    monkeypatch.setattr(mkdocs_utils.os, "makedirs", refuse)
    text = traceback_of(lambda: mkdocs_utils.write_file(b"<html>", str(page)))
    line = site_dir.write_failure(text, tmp_path / "site")
    assert line == "the site did not build: " + said.format(where=page.parent)


def test_a_copy_names_where_it_wrote(tmp_path):
    """shutil's copy names the source first: the line names the destination."""
    exc = OSError(errno.ENOSPC, "No space left on device", "docs/x.css", None,
                  str(tmp_path / "site" / "x.css"))
    text = traceback_of(raising(exc))
    assert f"at {tmp_path / 'site' / 'x.css'};" in site_dir.write_failure(text, tmp_path)


@pytest.mark.parametrize("stderr", [
    "WARNING -  Doc file 'a.md' contains a link 'b.md', but the target is not found\n"
    "Aborted with 1 warnings in strict mode!",
    "Traceback (most recent call last):\nFileNotFoundError: [Errno 2] No such file or "
    "directory: 'docs/x.md'",
    "",
])
def test_other_failures_keep_their_own_lines(tmp_path, stderr):
    assert site_dir.write_failure(stderr, tmp_path) is None


def test_the_build_says_one_line_not_mkdocs_traceback(tmp_path, monkeypatch):
    """builder.build on what MkDocs' process printed when its filesystem was read-only."""
    text = traceback_of(raising(OSError(errno.EROFS, "Read-only file system",
                                        str(tmp_path / "site"))))
    monkeypatch.setattr(builder.subprocess, "run", lambda args, **kw:
                        subprocess.CompletedProcess(args, 1, "", text))
    with pytest.raises(UserError) as info:
        builder.build(tmp_path / "site")
    assert str(info.value) == (f"the site did not build: a read-only filesystem at "
                               f"{tmp_path / 'site'}; pass --site-dir DIR on a filesystem you "
                               "can write")


def test_a_full_disk_when_the_build_marks_its_site_is_one_line(tmp_path, monkeypatch):
    def full(self, *args, **kwargs):
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), str(self))

    monkeypatch.setattr(pathlib.Path, "write_text", full)
    with pytest.raises(UserError) as info:
        site_dir.mark(tmp_path)
    assert str(info.value) == (f"the site did not build: no space left at {tmp_path}/"
                               ".tuninglab-site; free space there, or pass --site-dir DIR on "
                               "another filesystem")
