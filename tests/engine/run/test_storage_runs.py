"""Storage recipes run as a user runs them, in a subprocess: refused at once without root, and
after a SIGKILL in the middle of a point `invoke lab.clean` leaves no loop device, mount, server
or ledger entry behind."""

import dataclasses
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest

from helpers import (
    NOTHING,
    REPO,
    attached_loop,
    fixture_recipe,
    leftovers,
    needs_real_server,
    servers_under,
)
from tuninglab.engine.run import runner, sizing
from tuninglab.errors import UserError
from tuninglab.results import document

pytestmark = pytest.mark.integration
INVOKE = str(REPO / ".venv/bin/invoke")

# Runs the recipe as `invoke recipe` does, with its own recipes and data directories.
DRIVER = """
import sys
from pathlib import Path
from tuninglab.engine.run import runner
recipes, data, wd = map(Path, sys.argv[1:4])
runner.run("tiny-storage", runner.Options(profile="quick", recipes_dir=recipes, data_dir=data,
                                          workdir=wd, baseline_seconds=1))
"""


@pytest.fixture
def scratch():
    """A short directory every user can read (pytest's tmp_path is private to root, and its
    deep paths would move the server's socket to /tmp)."""
    if os.geteuid() != 0:
        pytest.skip("needs root: runs a storage recipe and switches to the user nobody")
    path = Path(tempfile.mkdtemp(prefix="tl-"))
    path.chmod(0o755)
    try:
        yield path
    finally:
        lab_clean(path / "wd")
        shutil.rmtree(path, ignore_errors=True)


def lab_clean(wd: Path) -> subprocess.CompletedProcess:
    return subprocess.run([INVOKE, "lab.clean", "--workdir", str(wd)], cwd=REPO,
                          capture_output=True, text=True, timeout=120)


def loop_devices() -> set[str]:
    out = subprocess.run(["losetup", "-l", "-n", "-O", "NAME"], capture_output=True, text=True)
    return set(out.stdout.split())


def test_a_storage_recipe_without_root_stops_at_once_and_makes_nothing(scratch):
    home = scratch / "home"
    home.mkdir(mode=0o555)  # owned by root: nobody cannot write its config there
    wd = scratch / "wd"
    loops = loop_devices()
    env = {"PATH": "/usr/local/bin:/usr/bin:/bin", "HOME": str(home),
           "XDG_CONFIG_HOME": str(home / ".config")}
    out = subprocess.run(["setpriv", "--reuid=nobody", "--regid=nogroup", "--clear-groups",
                          INVOKE, "recipe", "io-schedulers", "--quick", "--workdir", str(wd)],
                         cwd=REPO, env=env, capture_output=True, text=True, timeout=60)
    assert out.returncode == 2, out.stdout + out.stderr
    assert "needs root" in out.stderr and "Traceback" not in out.stderr
    assert not wd.exists() and loop_devices() == loops and leftovers(scratch)["mounts"] == []
    checkout_data = REPO / "data"  # named, not read: searched for files a run left there
    made = subprocess.run(["find", str(checkout_data), "-user", "nobody"], capture_output=True,
                          text=True).stdout
    assert made == ""


def test_lab_clean_after_a_sigkill_mid_point_leaves_nothing(scratch):
    needs_real_server()
    fixture_recipe(scratch / "recipes", "tiny-storage")
    wd = scratch / "wd"
    with open(scratch / "run.log", "w") as log:
        run = subprocess.Popen([sys.executable, "-c", DRIVER, str(scratch / "recipes"),
                                str(scratch / "data"), str(wd)], cwd=REPO, stdout=log,
                               stderr=subprocess.STDOUT, start_new_session=True)
    try:
        wait_for_a_sandboxed_server(wd, run, scratch / "run.log")
        run.send_signal(signal.SIGKILL)
        run.wait()
        assert leftovers(wd)["mounts"], "a SIGKILLed run cannot unmount its sandbox"
        out = lab_clean(wd)
        assert out.returncode == 0, out.stderr
        assert "unmounted" in out.stdout and "detached" in out.stdout
        assert leftovers(wd) == NOTHING
        assert servers_under(wd) == []
    finally:
        try:  # its sysbench or fio may outlive it: end its process group
            os.killpg(run.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        run.wait()


def wait_for_a_sandboxed_server(wd: Path, run, log: Path, timeout: float = 240) -> None:
    """Until a run's server (not the template's, built first) runs with its sandbox mounted."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        assert run.poll() is None, f"the run ended early:\n{log.read_text()[-2000:]}"
        if leftovers(wd)["mounts"] and servers_under(wd / "runs"):
            return
        time.sleep(0.1)
    pytest.fail(f"no sandboxed server after {timeout:.0f}s:\n{log.read_text()[-2000:]}")


def test_a_scan_on_a_named_device_gives_a_valid_result_and_leaves_the_device(scratch):
    """--device end to end: the runner refuses it without consent, then runs the scan on it,
    records what the kernel had in force, and leaves the device attached and unmounted."""
    needs_real_server()
    fixture_recipe(scratch / "recipes", "tiny-scan")
    wd, data = scratch / "wd", scratch / "data"
    with attached_loop(scratch / "disk.img", size=1024 * 2**20) as device:
        opts = runner.Options(recipes_dir=scratch / "recipes", data_dir=data, workdir=wd,
                              baseline_seconds=1, devices=(device,))
        with pytest.raises(UserError, match="add --destroy-data"):
            runner.run("tiny-scan", opts, say=lambda *_: None)
        opts = dataclasses.replace(opts, destroy_data=True)  # the run options are frozen
        doc = json.loads(runner.run("tiny-scan", opts, say=lambda *_: None).read_text())
        assert document.validate(doc) == []
        for point in doc["points"]:
            for run in point["runs"]:
                assert run["storage"]["device"] == Path(device).name
                assert run["storage"]["read_ahead_kb"] == int(point["value"])
                assert run["summary"]["rows"] == 2 * 5000 and run["summary"]["mib_per_s"] > 0
        assert device in subprocess.run(["losetup", "-l", "-n", "-O", "NAME"],
                                        capture_output=True, text=True).stdout
        assert leftovers(wd)["mounts"] == [] and servers_under(wd) == []


def test_a_scan_sized_to_a_named_device_reads_it_and_refuses_what_it_cannot_hold(scratch):
    """Issue 59: [dataset] read_seconds sizes a scan's tables to the named disk's sequential read
    rate, which real fio measures read-only before anything is written; a loop device of 256 MiB
    cannot hold a minute's scan at any rate it reads, and the run says so."""
    fixture_recipe(scratch / "recipes", "tiny-scan",
                   replace={"table_size = 5000\n": 'table_size = 5000\nread_seconds = "60s"\n'})
    wd, backing = scratch / "wd", scratch / "disk.img"
    with attached_loop(backing, size=256 * 2**20) as device:
        opts = runner.Options(recipes_dir=scratch / "recipes", data_dir=scratch / "data",
                              workdir=wd, devices=(device,), destroy_data=True, dry_run=True)
        with pytest.raises(UserError, match=rf"{device}: a 60 s scan at its \d+ MiB/s "
                                            r"sequential read needs 2 tables x .* more than 80% "
                                            r"of its 0.2 GiB"):
            runner.run("tiny-scan", opts, say=lambda *_: None)
        (key, rate), = json.loads((wd / sizing.RATES).read_text()).items()
        assert key == f"{device} {256 * 2**20}" and rate > 0
    assert os.stat(backing).st_blocks == 0  # still sparse: fio only read it
    assert not (scratch / "data").exists()


def test_a_separate_redo_log_gets_its_own_sandbox_and_device(scratch):
    """storage.logs = separate: a second sandbox holds the redo log (the server is pointed at
    it and writes there), both devices are sampled, and both are gone after the run."""
    needs_real_server()
    fixture_recipe(scratch / "recipes", "tiny-logs")
    wd = scratch / "wd"
    loops = loop_devices()
    opts = runner.Options(recipes_dir=scratch / "recipes", data_dir=scratch / "data",
                          workdir=wd, baseline_seconds=1)
    doc = json.loads(runner.run("tiny-logs", opts, say=lambda *_: None).read_text())
    assert document.validate(doc) == []
    same, separate = (document.point(doc, f"storage.logs={v}")["runs"][0]
                      for v in ("same", "separate"))
    assert "logs_storage" not in same
    logs = separate["logs_storage"]
    assert logs["device"] != separate["storage"]["device"] and logs["size"] == "512M"
    assert separate["effective"]["innodb_log_group_home_dir"].startswith(logs["mount_point"])
    assert separate["summary"]["io"]["write_bytes_per_trx"] > 0
    assert loop_devices() == loops and leftovers(wd)["mounts"] == [] and servers_under(wd) == []


def test_a_separate_redo_log_on_named_devices_uses_the_second_for_the_log(scratch):
    """With --device DATA --device LOG the redo log goes to the second device."""
    needs_real_server()
    fixture_recipe(scratch / "recipes", "tiny-logs")
    with attached_loop(scratch / "data.img", size=1024 * 2**20) as data_dev, \
            attached_loop(scratch / "log.img", size=600 * 2**20) as log_dev:
        opts = runner.Options(recipes_dir=scratch / "recipes", data_dir=scratch / "data",
                              workdir=scratch / "wd", baseline_seconds=1,
                              devices=(data_dev, log_dev), destroy_data=True)
        doc = json.loads(runner.run("tiny-logs", opts, say=lambda *_: None).read_text())
    separate = document.point(doc, "storage.logs=separate")["runs"][0]
    assert separate["storage"]["device"] == Path(data_dev).name
    assert separate["logs_storage"]["device"] == Path(log_dev).name
    same = document.point(doc, "storage.logs=same")["runs"][0]
    assert same["storage"]["device"] == Path(data_dev).name and "logs_storage" not in same
