"""Results that cannot be silently wrong, on the real server: a disk that fills while the
template is built or while a run is measured (a small tmpfs as the work directory, filled with
a file at the moment named), two runs started in the same second, and a template build
killed midway."""

import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from helpers import REPO, fixture_recipe, run_options, run_recipe, servers_under, tmpfs
from tuninglab.engine.host import workdir
from tuninglab.engine.run import record, runner
from tuninglab.errors import UserError

pytestmark = pytest.mark.integration
INVOKE = REPO / ".venv" / "bin" / "invoke"

# Big enough that a load into 150 MiB runs out of space: 4 tables x 50,000 rows, as the issue
# that found a template cached with short tables saw it.
BIG = {"tables = 2": "tables = 4", "table_size = 2000": "table_size = 50000"}


@pytest.fixture
def fs(tmp_path):
    """An 800 MiB tmpfs: room for a template and a run, until a test fills it."""
    with tmpfs(tmp_path / "fs", "800m") as mnt:
        yield mnt


def filler(mnt: Path, when: str, leave) -> tuple[list, callable]:
    """A `say` that fills mnt when a line starting with `when` is printed, leaving leave()
    bytes free; and the lines it saw."""
    lines = []

    def say(line=""):
        lines.append(line)
        if line.startswith(when) and not (mnt / "filler").exists():
            free = shutil.disk_usage(mnt).free - leave()
            with open(mnt / "filler", "wb") as f:
                f.truncate(0)
                os.posix_fallocate(f.fileno(), 0, max(free, 1))
    return lines, say


def templates(wd: Path) -> list[str]:
    return sorted(p.name for p in (wd / "templates").iterdir())


def test_a_disk_filling_during_the_template_build_caches_nothing(recipes_dir, fs, tmp_path):
    fixture_recipe(recipes_dir, "tiny", "big", replace=BIG)
    wd, data = fs / "wd", tmp_path / "data"
    lines, say = filler(fs, "building the template", lambda: 150 * 2**20)
    with pytest.raises(UserError, match=r"the work directory's filesystem filled up while "
                                        r"building the template datadir: .* MiB free at the "
                                        r"start, \d+ MiB of \d+ MiB when it failed; free space"):
        runner.run("big", run_options(recipes_dir, wd, data, repeats=1), say)
    assert templates(wd) == []  # neither a template nor a half-built one
    assert servers_under(fs) == []

    (fs / "filler").unlink()
    path, doc = run_recipe("big", recipes_dir, wd, data, repeats=1)
    assert [len(p["runs"]) for p in doc["points"]] == [1, 1]
    meta = json.loads((wd / "templates" / templates(wd)[0] / "meta.json").read_text())
    assert {t: v["rows"] for t, v in meta["tables"].items()} == \
        {f"sbtest{i}": 50000 for i in range(1, 5)}
    assert meta["files"]  # the manifest each reuse checks


def test_a_disk_filling_during_a_run_says_so_in_one_line_and_resumes(recipes_dir, fs,
                                                                    tmp_path):
    fixture_recipe(recipes_dir, "tiny", "big", replace=BIG)
    wd, data = fs / "wd", tmp_path / "data"
    # When the first run starts, leave room for its copy of the template and a few MiB more.
    lines, say = filler(fs, "[1/", lambda: workdir.dir_bytes(wd / "templates") + 6 * 2**20)
    with pytest.raises(UserError) as err:
        runner.run("big", run_options(recipes_dir, wd, data, repeats=1), say)
    message = str(err.value)
    assert "\n" not in message and "is full" not in message
    assert message.startswith("the work directory's filesystem filled up while measuring run ")
    assert "run the same command again to resume" in message
    assert not any((wd / "runs").glob("*/data"))  # the failed copy is gone already
    assert servers_under(fs) == []

    (fs / "filler").unlink()
    lines = []
    path, doc = run_recipe("big", recipes_dir, wd, data, lines.append, repeats=1)
    assert any(line.startswith("removed ") and "left by a failed run" in line for line in lines)
    assert list((wd / "runs").iterdir()) == []


def test_two_runs_started_in_the_same_second_keep_both_results(recipes_dir, shared_workdir,
                                                              tmp_path, monkeypatch):
    fixture_recipe(recipes_dir, "tiny")
    monkeypatch.setattr(record, "now", lambda: "2026-11-22T10:00:00+00:00")
    data = tmp_path / "data"
    first, doc1 = run_recipe("tiny", recipes_dir, shared_workdir, data, repeats=1)
    second, doc2 = run_recipe("tiny", recipes_dir, shared_workdir, data, repeats=1)
    assert first != second and doc1["started"] == doc2["started"]
    assert sorted(p.name for p in (data / "tiny").iterdir()) == sorted([first.name, second.name])
    assert json.loads(first.read_text())["run_id"] == doc1["run_id"] != doc2["run_id"]


KILLED_BUILD = """
import sys
from pathlib import Path
from tuninglab.engine.run import runner
opts = runner.Options(profile="full", workdir=Path(sys.argv[1]), data_dir=Path(sys.argv[2]),
                      recipes_dir=Path(sys.argv[3]), baseline_seconds=1)
runner.run("big", opts, say=lambda line: print(line, flush=True))
"""


def test_lab_clean_removes_a_template_build_killed_midway(recipes_dir, tmp_path):
    fixture_recipe(recipes_dir, "tiny", "big", replace=BIG)
    wd = tmp_path / "wd"
    proc = subprocess.Popen([sys.executable, "-u", "-c", KILLED_BUILD, str(wd),
                             str(tmp_path / "data"), str(recipes_dir)], cwd=REPO,
                            stdout=subprocess.PIPE, text=True)
    for line in proc.stdout:
        if line.startswith("building the template"):
            break
    deadline = time.monotonic() + 60  # until the load has begun writing
    while not servers_under(wd) and time.monotonic() < deadline:
        time.sleep(0.2)
    proc.kill()
    proc.wait()
    [building] = (wd / "templates").glob("*.building-*")
    out = subprocess.run([INVOKE, "lab.clean", "--workdir", str(wd)], cwd=REPO,
                         capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert f"removed {building} (" in out.stdout and "left by a failed run" in out.stdout
    assert list((wd / "templates").iterdir()) == []
    assert servers_under(wd) == []
