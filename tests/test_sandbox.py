"""Storage sandboxes on real loop devices: each filesystem and scheduler, read back from the
kernel, and nothing left behind on any exit path (SIGKILL included, via lab.clean)."""

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tuninglab.errors import UserError
from tuninglab.storage import check, sandbox
from tuninglab.storage.ledger import Ledger

pytestmark = pytest.mark.integration
ROOT = os.geteuid() == 0


def leftovers(wd: Path) -> dict:
    """Loop devices over files in wd, mounts under wd, and the ledger."""
    loops = json.loads(subprocess.run(["losetup", "-J", "-l"], capture_output=True,
                                      text=True).stdout or '{"loopdevices": []}')["loopdevices"]
    with open("/proc/self/mounts") as f:
        mounts = [line.split()[1] for line in f if line.split()[1].startswith(str(wd))]
    return {"loops": [l["name"] for l in loops if str(wd) in (l.get("back-file") or "")],
            "mounts": mounts, "ledger": Ledger(wd).entries()}


NOTHING = {"loops": [], "mounts": [], "ledger": []}


@pytest.fixture
def wd(tmp_path):
    if not ROOT:
        pytest.skip("needs root: loop devices, mkfs and mount")
    yield tmp_path
    sandbox.clean(tmp_path)


@pytest.mark.parametrize("fs, mount_options", [
    ("ext4", "noatime,data=writeback"), ("xfs", "noatime"), ("btrfs", "noatime")])
def test_each_filesystem_is_built_read_back_and_removed(wd, fs, mount_options):
    spec = sandbox.Spec(filesystem=fs, size="1G", mount_options=mount_options)
    with sandbox.Sandbox(wd, spec) as box:
        state = box.state()
        (box.mountpoint / "probe").write_bytes(b"x" * 65536)
        assert state["filesystem"] == fs
        assert state["device"] == Path(box.device).name
        for option in mount_options.split(","):
            assert option in state["mount_options"].split(",")
        assert state["backing_file"] == str(box.image) and state["nr_requests"] > 0
        assert len(Ledger(wd).entries()) == 4
    assert leftovers(wd) == NOTHING
    assert not box.image.exists() and not box.mountpoint.exists()


@pytest.mark.parametrize("scheduler", ["none", "mq-deadline", "kyber", "bfq"])
def test_each_scheduler_is_set_read_back_and_restored(wd, scheduler):
    spec = sandbox.Spec(size="512M", scheduler=scheduler, read_ahead_kb=256)
    with sandbox.Sandbox(wd, spec) as box:
        queue = Path(f"/sys/block/{Path(box.device).name}/queue")
        before = [e["previous"] for e in Ledger(wd).entries() if e["kind"] == "queue"]
        state = box.state()
        assert state["scheduler"] == scheduler and state["read_ahead_kb"] == 256
    assert sandbox._queue_value(queue / "scheduler") == before[0] or not queue.exists()
    assert leftovers(wd) == NOTHING


def test_unknown_scheduler_is_named_and_nothing_is_left(wd):
    with pytest.raises(UserError, match=r"IO scheduler 'cfq' is not available .*mq-deadline"):
        with sandbox.Sandbox(wd, sandbox.Spec(size="512M", scheduler="cfq")):
            pass
    assert leftovers(wd) == NOTHING


def test_bad_mount_option_is_reported_and_nothing_is_left(wd):
    with pytest.raises(UserError, match="mounting ext4 with options nobarrier_nonsense"):
        with sandbox.Sandbox(wd, sandbox.Spec(size="512M", mount_options="nobarrier_nonsense")):
            pass
    assert leftovers(wd) == NOTHING


HOLDER = """
import sys, time
from pathlib import Path
from tuninglab.storage import sandbox
with sandbox.Sandbox(Path(sys.argv[1]), sandbox.Spec(size="512M", scheduler="bfq")):
    print("ready", flush=True)
    time.sleep(120)
"""


def test_lab_clean_removes_what_a_killed_run_left(wd):
    proc = subprocess.Popen([sys.executable, "-c", HOLDER, str(wd)], stdout=subprocess.PIPE,
                            text=True)
    assert proc.stdout.readline().strip() == "ready"
    left = leftovers(wd)
    assert left["loops"] and left["mounts"] and len(left["ledger"]) == 5
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    assert leftovers(wd)["mounts"], "a SIGKILLed run cannot clean up after itself"
    out = subprocess.run([sys.executable, "-m", "invoke", "lab.clean", "--workdir", str(wd)],
                         capture_output=True, text=True, cwd=Path(__file__).resolve().parents[1])
    assert out.returncode == 0, out.stderr
    assert "unmounted" in out.stdout and "detached" in out.stdout
    assert leftovers(wd) == NOTHING


def test_clean_refuses_a_ledger_entry_outside_the_workdir(wd, tmp_path_factory):
    elsewhere = tmp_path_factory.mktemp("elsewhere") / "precious.img"
    elsewhere.write_bytes(b"keep me")
    Ledger(wd).record({"kind": "file", "path": str(elsewhere)})
    with pytest.raises(UserError, match="refusing to remove"):
        sandbox.clean(wd)
    assert elsewhere.read_bytes() == b"keep me"
    Ledger(wd).forget(Ledger(wd).entries()[0])


def test_lab_check_names_every_capability(tmp_path):
    names = [c.name for c in check.capabilities(tmp_path)]
    for expected in ("root", "loop devices", "filesystem ext4", "filesystem xfs",
                     "filesystem btrfs", "md RAID", "device-mapper", "ZFS", "/dev/kvm",
                     "free space in the work directory"):
        assert expected in names
    assert any(n.startswith("IO schedulers of") for n in names)


def test_without_root_a_sandbox_stops_with_a_clear_message(tmp_path, monkeypatch):
    monkeypatch.setattr(os, "geteuid", lambda: 1000)
    with pytest.raises(UserError, match="needs root .* run it with sudo"):
        with sandbox.Sandbox(tmp_path, sandbox.Spec()):
            pass
    assert not (tmp_path / "sandboxes").exists()
