"""Whole recipe runs on the real server, sysbench and fio: results, resume, and bad input."""

import json
import os
import shutil
import signal
import subprocess
import sys
import time

import pytest

from helpers import REPO, fixture_recipe, run_options, run_recipe, servers_under, tmpfs
from tuninglab.engine.host import workdir
from tuninglab.engine.run import runner
from tuninglab.errors import UserError
from tuninglab.recipes.load import load
from tuninglab.results import document

pytestmark = pytest.mark.integration




def test_tiny_recipe_writes_a_valid_result_with_series(recipes_dir, shared_workdir, tmp_path):
    fixture_recipe(recipes_dir, "tiny")
    lines = []
    path, doc = run_recipe("tiny", recipes_dir, shared_workdir, tmp_path / "data", lines.append)
    assert path.parent == tmp_path / "data" / "tiny"
    assert [p["id"] for p in doc["points"]] == ["innodb_doublewrite=ON", "innodb_doublewrite=OFF"]
    for point in doc["points"]:
        assert len(point["runs"]) == 2
        assert point["settings"]["innodb_doublewrite"] == point["value"]
        for run in point["runs"]:
            assert run["effective"]["innodb_doublewrite"] == point["value"]
            assert run["summary"]["tps"] > 0
            series = run["series"]
            assert len(series["tps"]) == 2 and len(series["history_list_length"]) == 2
            assert all(len(v) == len(series["t"]) for v in series.values())
    assert doc["points"][0]["stats"]["ratio"] is None
    assert doc["points"][1]["stats"]["ratio"]["verdict_kind"] in (
        "faster", "slower", "equivalent", "too noisy to tell")
    assert doc["plan"]["smallest_effect_pct"] == 3.0  # the recipe names none: the default
    assert doc["device_baseline"]["fsync_per_s"] > 0
    assert any("[4/4]" in line for line in lines)
    table = [row for line in lines for row in line.splitlines()]
    assert any(row.startswith("point") and "geo. mean tps" in row for row in table)
    assert any(row.startswith("design: restart: 2 repeats") for row in table)
    assert servers_under(shared_workdir) == []
    assert not (shared_workdir / "progress" / "tiny-full.json").exists()


def test_sweep_over_an_option_the_server_lacks_fails_before_running(recipes_dir, tmp_path):
    fixture_recipe(recipes_dir, "tiny", "bogus", replace={"innodb_doublewrite": "innodb_bogus"})
    wd = tmp_path / "wd"
    with pytest.raises(UserError) as err:
        runner.run("bogus", run_options(recipes_dir, wd, tmp_path / "data"))
    assert "sweep.setting" in str(err.value) and "no option 'innodb_bogus'" in str(err.value)
    assert str(recipes_dir / "bogus" / "recipe.toml") in str(err.value)
    assert not wd.exists()


def test_missing_sysbench_is_named(recipes_dir, tmp_path, monkeypatch):
    fixture_recipe(recipes_dir, "tiny")
    monkeypatch.setenv("PATH", str(tmp_path))  # a PATH with no sysbench on it
    with pytest.raises(UserError, match="sysbench not found: install it with `apt-get install"):
        runner.run("tiny", run_options(recipes_dir, tmp_path / "wd", tmp_path / "data",
                                   mysqld="/usr/sbin/mariadbd"))


def test_second_run_on_a_held_workdir_is_refused(recipes_dir, tmp_path):
    fixture_recipe(recipes_dir, "tiny")
    wd = tmp_path / "wd"
    with workdir.held(wd):
        with pytest.raises(UserError, match=rf"work directory {wd} is in use by another run "
                                            rf"\(pid {os.getpid()}\)"):
            runner.run("tiny", run_options(recipes_dir, wd, tmp_path / "data"))


@pytest.fixture
def small_fs(tmp_path):
    """A 3 MiB tmpfs: too small for any template."""
    with tmpfs(tmp_path / "small", "3m") as mnt:
        yield mnt


def test_full_workdir_is_reported_before_anything_starts(recipes_dir, small_fs, tmp_path):
    fixture_recipe(recipes_dir, "tiny")
    with pytest.raises(UserError, match=r"work directory .* has \d+ MiB free but the template "
                                        r"datadir needs about \d+ MiB"):
        runner.run("tiny", run_options(recipes_dir, small_fs / "wd", tmp_path / "data"))
    assert servers_under(small_fs) == []


def test_read_only_workdir_is_reported(recipes_dir, small_fs, tmp_path):
    fixture_recipe(recipes_dir, "tiny")
    (small_fs / "wd").mkdir()
    subprocess.run(["mount", "-o", "remount,ro", str(small_fs)], check=True)
    try:
        with pytest.raises(UserError, match="read-only filesystem"):
            runner.run("tiny", run_options(recipes_dir, small_fs / "wd", tmp_path / "data"))
    finally:
        subprocess.run(["mount", "-o", "remount,rw", str(small_fs)], check=True)


def test_a_read_only_data_directory_is_named_and_the_result_kept(recipes_dir, small_fs,
                                                                  tmp_path):
    """Issue 57 ("decide"): the error named the work directory, which was writable."""
    fixture_recipe(recipes_dir, "tiny")
    data = small_fs / "data"
    data.mkdir()
    subprocess.run(["mount", "-o", "remount,ro", str(small_fs)], check=True)
    try:
        with pytest.raises(UserError, match=rf"cannot write the result into {data} \(a "
                                            r"read-only filesystem\); this run's result stays "
                                            rf"in {tmp_path / 'wd'}/progress/"):
            runner.run("tiny", run_options(recipes_dir, tmp_path / "wd", data))
    finally:
        subprocess.run(["mount", "-o", "remount,rw", str(small_fs)], check=True)
    assert list((tmp_path / "wd" / "progress").glob("*.json"))


RUNNER_SCRIPT = """
import sys
from pathlib import Path
from tuninglab import cli
from tuninglab.engine.run import runner
opts = runner.Options(profile="full", workdir=Path(sys.argv[1]), data_dir=Path(sys.argv[2]),
                      recipes_dir=Path(sys.argv[3]), baseline_seconds=1)
cli.guard(runner.run, "slow", opts)
"""


def _start_runner(wd, data_dir, recipes_dir):
    # Ctrl-C as at a terminal: a shell starting a job in the background (`cmd &` without job
    # control) ignores SIGINT, the child would inherit that, and Python would never raise
    # KeyboardInterrupt.
    return subprocess.Popen([sys.executable, "-u", "-c", RUNNER_SCRIPT, str(wd), str(data_dir),
                             str(recipes_dir)], stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True, cwd=REPO,
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))


def _wait_for(proc, needle, timeout=120):
    seen, deadline = [], time.monotonic() + timeout
    while time.monotonic() < deadline:
        line = proc.stdout.readline()
        if not line:
            break
        seen.append(line)
        if needle in line:
            return seen
    raise AssertionError(f"never saw {needle!r}; output:\n{''.join(seen)}")


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGKILL])
def test_interrupted_run_keeps_finished_runs_and_resumes(recipes_dir, shared_workdir, tmp_path,
                                                         sig):
    fixture_recipe(recipes_dir, "tiny", "slow", replace={'duration = "2s"': 'duration = "3s"'})
    wd, data_dir = shared_workdir, tmp_path / "data"
    proc = _start_runner(wd, data_dir, recipes_dir)
    _wait_for(proc, "[2/4]")
    time.sleep(1.5)  # mid-point: warm-up or measurement of the second run
    proc.send_signal(sig)
    rest = proc.stdout.read()
    code = proc.wait(timeout=60)
    if sig == signal.SIGINT:
        assert code == 130, rest
        assert "interrupted" in rest and "finished runs are kept" in rest
    else:
        assert code == -signal.SIGKILL
    deadline = time.monotonic() + 10  # a killed runner's server dies with it (PDEATHSIG)
    while servers_under(wd) and time.monotonic() < deadline:
        time.sleep(0.2)
    assert servers_under(wd) == []
    progress = json.loads((wd / "progress" / "slow-full.json").read_text())
    assert len(document.done_keys(progress)) == 1

    proc = _start_runner(wd, data_dir, recipes_dir)
    out = proc.stdout.read()
    assert proc.wait(timeout=120) == 0, out
    assert "resuming: 1 finished runs kept" in out
    assert "[2/4]" in out and "[1/4]" not in out
    files = list((data_dir / "slow").glob("*.json"))
    assert len(files) == 1
    doc = json.loads(files[0].read_text())
    assert document.validate(doc) == []
    assert sum(len(p["runs"]) for p in doc["points"]) == 4
    assert servers_under(wd) == []
    shutil.rmtree(data_dir)


# The tiny recipe sweeping the scheduler of an xfs sandbox instead of the doublewrite buffer.
STORAGE_SWEEP = {'setting = "innodb_doublewrite"\nvalues = ["ON", "OFF"]\n':
                 'setting = "storage.scheduler"\nvalues = ["none", "mq-deadline"]\n\n'
                 '[storage]\nfilesystem = "xfs"\nsize = "1G"\nmount_options = "noatime"\n'}


def test_storage_sweep_runs_each_point_on_its_own_sandbox(recipes_dir, shared_workdir, tmp_path):
    if os.geteuid() != 0:
        pytest.skip("needs root: loop devices, mkfs and mount")
    from tuninglab.engine.host.ledger import Ledger
    fixture_recipe(recipes_dir, "tiny", "sched", replace=STORAGE_SWEEP)
    _, doc = run_recipe("sched", recipes_dir, shared_workdir, tmp_path / "data", repeats=1)
    for point in doc["points"]:
        run = point["runs"][0]
        assert run["storage"]["scheduler"] == point["value"]
        assert run["storage"]["filesystem"] == "xfs"
        assert "noatime" in run["storage"]["mount_options"].split(",")
        assert run["storage"]["device"].startswith("loop")
        assert run["device_baseline"]["fsync_per_s"] > 0
        assert run["summary"]["io"]["write_bytes_per_trx"] > 0  # diskstats of the loop device
    assert Ledger(shared_workdir).entries() == []
    assert servers_under(shared_workdir) == []
    assert "root" in load("sched", recipes_dir).needs


# The tiny recipe sweeping its client threads instead of the doublewrite buffer.
THREADS_SWEEP = {'setting = "innodb_doublewrite"\nvalues = ["ON", "OFF"]\n':
                 'setting = "workload.threads"\nvalues = [1, 3]\n'}


def test_a_threads_sweep_runs_each_point_with_its_clients(recipes_dir, shared_workdir,
                                                         tmp_path):
    fixture_recipe(recipes_dir, "tiny", "clients", replace=THREADS_SWEEP)
    _, doc = run_recipe("clients", recipes_dir, shared_workdir, tmp_path / "data", repeats=1)
    assert [p["id"] for p in doc["points"]] == ["workload.threads=1", "workload.threads=3"]
    for point in doc["points"]:
        assert point["runs"][0]["summary"]["clients"] == int(point["value"])
    assert doc["workload"]["threads"] == 1  # the baseline's
    assert servers_under(shared_workdir) == []
