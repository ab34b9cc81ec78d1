"""data.submit refuses an empty option and survives a disk that refuses the write (issue 77,
item 8): each is one line, and nothing is lost or left half-written. A full or read-only disk
is simulated where the kernel would report it (the tests run as root, who may write anywhere,
and make no mounts): a file filling up as it is written, every change under data/ refused."""

import errno
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from helpers import REPO
from test_submit import alice_doc, incoming, own_result, run
from tuninglab import cli, files
from tuninglab.contrib import check, submit
from tuninglab.errors import UserError
from tuninglab.results import document

RECIPE = "logs-separate"


@pytest.fixture(autouse=True)
def machine(tmp_path, monkeypatch):
    """This machine's work directory and home are not alice's (as in test_submit.py)."""
    monkeypatch.setenv("TUNINGLAB_WORKDIR", str(tmp_path / "work"))
    monkeypatch.setenv("HOME", str(tmp_path / "home"))


# --- empty values -------------------------------------------------------------------------------

@pytest.mark.parametrize("options, message", [
    ({"path": ""}, "--path: an empty path; expected a result file (a .json)"),
    ({"description": ""}, "--description: empty; expected your hardware in a few words (or no "
                          "--description)"),
    ({"description": "  "}, "--description: empty; expected your hardware in a few words (or "
                            "no --description)"),
    ({"data_dir": ""}, "--data-dir: an empty path; expected a directory (or no --data-dir: "
                       "data/)"),
])
def test_an_empty_value_is_one_line_never_a_default(tmp_path, capsys, options, message):
    """Path('') is the current directory and an empty --data-dir was the repository's data/:
    each is refused before anything is read or written (a missing file, in case it were not:
    nothing could be written into the real data/)."""
    given = {"path": str(tmp_path / "nope.json"), "description": None, "keep_paths": False,
             "data_dir": str(tmp_path / "data"), **options}
    with pytest.raises(SystemExit) as info:
        cli.guard(cli.data_submit, **given)
    assert info.value.code == 2
    assert capsys.readouterr().err == f"error: {message}\n"
    assert not (tmp_path / "data").exists()


# --- a disk that refuses the write --------------------------------------------------------------

def under(root: Path, path) -> bool:
    return Path(os.path.abspath(path)).is_relative_to(root)


def failure(code: int, path) -> OSError:
    return OSError(code, os.strerror(code), str(path))


class FillingUp:
    """A file on a disk with `room` characters left: what fits is written, then ENOSPC, as
    write(2) reports it."""

    def __init__(self, file, room: int):
        self.file, self.room = file, room

    def write(self, data):
        if len(data) > self.room:
            self.file.write(data[:self.room])
            self.file.flush()
            self.room = 0
            raise failure(errno.ENOSPC, self.file.name)
        self.room -= len(data)
        return self.file.write(data)

    def __getattr__(self, name):
        return getattr(self.file, name)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.file.close()


def full_disk(monkeypatch, root: Path, modes=("w", "xb"), room=1000):
    """Under root, each file opened for writing in one of modes takes room characters, then
    fails with ENOSPC; folders and links still fit (they need no new block here)."""
    def opened(path, mode="r", *args, **kwargs):
        f = open(path, mode, *args, **kwargs)
        return FillingUp(f, room) if mode in modes and under(root, path) else f
    monkeypatch.setattr(files, "open", opened, raising=False)


def read_only(monkeypatch, root: Path):
    """Under root, every change fails with EROFS, as on a read-only mount: creating, linking,
    renaming, removing (a name that is not there too: the kernel checks the mount first)."""
    def opened(path, mode="r", *args, **kwargs):
        if any(c in mode for c in "wxa+") and under(root, path):
            raise failure(errno.EROFS, path)
        return open(path, mode, *args, **kwargs)
    monkeypatch.setattr(files, "open", opened, raising=False)
    for name in ("mkdir", "link", "replace", "rename", "unlink", "rmdir"):
        real = getattr(os, name)

        def refused(*args, real=real, **kwargs):
            if any(isinstance(a, (str, os.PathLike)) and under(root, a) for a in args):
                raise failure(errno.EROFS, args[0])
            return real(*args, **kwargs)
        monkeypatch.setattr(os, name, refused)


def every_file(root: Path) -> list[str]:
    return sorted(str(p.relative_to(root)) for p in root.rglob("*")) if root.exists() else []




@pytest.mark.parametrize("folder", ["made by this submit", "there already"])
@pytest.mark.parametrize("disk, reason", [(full_disk, "No space left on device"),
                                          (read_only, "Read-only file system")])
def test_a_disk_that_refuses_the_write_is_one_line_and_nothing_is_left(tmp_path, monkeypatch,
                                                                       capsys, folder, disk,
                                                                       reason):
    data = tmp_path / "data"
    data.mkdir()
    if folder == "there already":
        (data / RECIPE).mkdir()
        (data / RECIPE / "other.json").write_text("{}")
    before = every_file(data)
    path = incoming(tmp_path, alice_doc())
    original = path.read_bytes()
    with monkeypatch.context() as m, pytest.raises(SystemExit) as info:
        disk(m, data)
        cli.guard(cli.data_submit, str(path), "a laptop", False, str(data))
    assert info.value.code == 2
    target = document.final_path(alice_doc(), data)
    assert capsys.readouterr().err == (f"error: cannot write {target}: {reason}; nothing was "
                                       "written\n")
    assert every_file(data) == before   # no file, no temporary file, no folder of its own
    assert path.read_bytes() == original   # data.submit keeps its input


@pytest.mark.parametrize("disk, reason", [(full_disk, "No space left on device"),
                                          (read_only, "Read-only file system")])
def test_a_runs_own_file_in_place_is_kept_as_it_was(tmp_path, monkeypatch, disk, reason):
    """The run's own untracked result in data/ (the only copy) is prepared in place: a disk
    that refuses the new bytes leaves the old ones."""
    written = own_result(tmp_path)
    before = written.read_bytes()
    with monkeypatch.context() as m, pytest.raises(UserError) as info:
        disk(m, tmp_path / "data")
        submit.submit(written, data_dir=tmp_path / "data", say=lambda line: None)
    assert str(info.value) == (f"cannot write {written}: {reason}; the run's own file is as "
                               "it was")
    assert written.read_bytes() == before
    assert [p.name for p in written.parent.iterdir()] == [written.name]


def test_a_copy_cut_short_on_a_filesystem_without_hard_links_is_removed(tmp_path,
                                                                        monkeypatch):
    """Without hard links files.create_json creates the file and copies into it: a disk that
    fills up in the copy would leave half a result under its final name; it is removed."""
    data = tmp_path / "data"
    real_link = os.link

    def no_hard_links(src, dst, *args, **kwargs):
        if under(data, dst):
            raise failure(errno.EOPNOTSUPP, dst)
        return real_link(src, dst, *args, **kwargs)
    with monkeypatch.context() as m, pytest.raises(UserError, match="No space left on device; "
                                                                    "nothing was written$"):
        m.setattr(os, "link", no_hard_links)
        full_disk(m, data, modes=("xb",))
        run(tmp_path, description="a laptop")
    assert not data.exists()   # the half copy, its folder and data/, all made by this write


def test_once_the_disk_has_room_the_same_command_writes_it(tmp_path, monkeypatch):
    data = tmp_path / "data"
    path = incoming(tmp_path, alice_doc())
    with monkeypatch.context() as m, pytest.raises(UserError):
        full_disk(m, data)
        submit.submit(path, data_dir=data, say=lambda line: None)
    target = submit.submit(path, data_dir=data, say=lambda line: None)
    assert json.loads(target.read_text())["contribution"]["tool"] == "data.submit"
    assert check.check_file(target) == []


@pytest.mark.integration  # runs invoke
def test_the_invoke_task_refuses_an_empty_path(tmp_path):
    done = subprocess.run([sys.executable, "-m", "invoke", "data.submit", "--path", "",
                           "--data-dir", str(tmp_path / "data")], cwd=REPO,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 2
    assert done.stderr == "error: --path: an empty path; expected a result file (a .json)\n"
