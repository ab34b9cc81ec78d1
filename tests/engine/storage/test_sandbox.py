"""Storage sandboxes on real loop devices: each filesystem and scheduler, read back from the
kernel, and nothing left behind on any exit path (SIGKILL included, via lab.clean)."""

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from helpers import NOTHING, REPO, attached_loop, leftovers, mounted
from tuninglab.engine.lab import check
from tuninglab.engine.run.leftovers import undo_recorded
from tuninglab.engine.storage import sandbox
from tuninglab.engine.host.ledger import Ledger
from tuninglab.errors import UserError

pytestmark = pytest.mark.integration
ROOT = os.geteuid() == 0
OFFERED = sandbox.offered_schedulers() or []   # some kernels lack bfq (a module)


def a_scheduler_to_set() -> str:
    """bfq where this kernel offers it, else another that loop devices do not start with: a
    setting the sandbox must change and then restore."""
    current = sandbox._queue_value(next(Path("/sys/block").glob("loop*/queue/scheduler")))
    return "bfq" if "bfq" in OFFERED else [s for s in OFFERED if s != current][-1]


@pytest.fixture
def wd(tmp_path):
    if not ROOT:
        pytest.skip("needs root: loop devices, mkfs and mount")
    yield tmp_path
    undo_recorded(tmp_path)


@pytest.mark.parametrize("fs, mount_options", [
    ("ext4", "noatime,data=writeback"), ("xfs", "noatime"), ("btrfs", "noatime"),
    ("ext3", "noatime"), ("ext2", "noatime")])
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
    if scheduler not in OFFERED:   # this kernel lacks it: named, and nothing is left
        with pytest.raises(UserError, match=rf"IO scheduler '{scheduler}' is not available"):
            with sandbox.Sandbox(wd, spec):
                pass
        assert leftovers(wd) == NOTHING
        return
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
from tuninglab.engine.storage import sandbox
device = sys.argv[2] if len(sys.argv) > 2 else None
with sandbox.Sandbox(Path(sys.argv[1]), sandbox.Spec(size="512M", scheduler=SCHEDULER),
                     device=device):
    print("ready", flush=True)
    time.sleep(120)
"""


def kill_holder_and_clean(wd: Path, *device: str) -> str:
    """Run HOLDER, SIGKILL it once its sandbox is up, then `invoke lab.clean`; its output."""
    holder = HOLDER.replace("SCHEDULER", repr(a_scheduler_to_set()))
    proc = subprocess.Popen([sys.executable, "-c", holder, str(wd), *device],
                            stdout=subprocess.PIPE, text=True)
    try:
        assert proc.stdout.readline().strip() == "ready"
        left = leftovers(wd)
        assert left["mounts"] and len(left["ledger"]) == (3 if device else 5)
        assert bool(left["loops"]) != bool(device)  # device mode attaches no loop of its own
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.wait()
    assert leftovers(wd)["mounts"], "a SIGKILLed run cannot clean up after itself"
    out = subprocess.run([sys.executable, "-m", "invoke", "lab.clean", "--workdir", str(wd)],
                         capture_output=True, text=True, cwd=REPO)
    assert out.returncode == 0, out.stderr
    assert leftovers(wd) == NOTHING
    return out.stdout


def test_lab_clean_removes_what_a_killed_run_left(wd):
    out = kill_holder_and_clean(wd)
    assert "unmounted" in out and "detached" in out


def test_clean_refuses_a_ledger_entry_outside_the_workdir(wd, tmp_path_factory):
    elsewhere = tmp_path_factory.mktemp("elsewhere") / "precious.img"
    elsewhere.write_bytes(b"keep me")
    Ledger(wd).record({"kind": "file", "path": str(elsewhere)})
    with pytest.raises(UserError, match=rf"{elsewhere} is not directly in .*Nothing was undone"):
        undo_recorded(wd)
    assert elsewhere.read_bytes() == b"keep me"
    Ledger(wd).forget(Ledger(wd).entries()[0])


def test_lab_check_names_every_capability(tmp_path):
    names = [c.name for c in check.capabilities(tmp_path)]
    for expected in ("root", "loop devices", "filesystem ext4", "filesystem xfs",
                     "filesystem btrfs", "md RAID", "device-mapper", "ZFS", "lab VM: qemu",
                     "lab VM: image", "lab VM: accelerator",
                     "free space in the work directory"):
        assert expected in names
    assert any(n.startswith("IO schedulers of") for n in names)


def test_without_root_a_sandbox_stops_with_a_clear_message(tmp_path, monkeypatch):
    monkeypatch.setattr(os, "geteuid", lambda: 1000)
    with pytest.raises(UserError, match="needs root .* run it with sudo"):
        with sandbox.Sandbox(tmp_path, sandbox.Spec()):
            pass
    assert not (tmp_path / "sandboxes").exists()


# --- device mode: a loop device the test attaches itself stands in for a user's disk ----------

def back_file(device: str) -> str | None:
    return sandbox._loop_backing(device)


@pytest.fixture
def disk(wd, tmp_path_factory):
    """Attached outside the work directory, so leftovers(wd) does not count it."""
    image = tmp_path_factory.mktemp("disk") / "disk.img"
    with attached_loop(image) as device:
        yield device
        assert back_file(device) == str(image), "the sandbox detached a device it did not make"


def test_device_mode_builds_reads_back_and_leaves_the_device_attached(wd, disk):
    queue = Path(f"/sys/block/{Path(disk).name}/queue")
    before = {n: sandbox._queue_value(queue / n) for n in ("scheduler", "read_ahead_kb")}
    scheduler = a_scheduler_to_set()
    spec = sandbox.Spec(filesystem="xfs", mount_options="noatime", scheduler=scheduler,
                        read_ahead_kb=512)
    with sandbox.Sandbox(wd, spec, name="dev", device=disk) as box:
        state = box.state()
        (box.mountpoint / "probe").write_bytes(b"x" * 65536)
        assert box.device == disk and box.image is None
        assert state["device"] == Path(disk).name and state["filesystem"] == "xfs"
        assert state["scheduler"] == scheduler and state["read_ahead_kb"] == 512
        assert "noatime" in state["mount_options"].split(",")
        assert state["backing_file"] is None and state["size"] == "512M"
        assert [e["kind"] for e in Ledger(wd).entries()] == ["dir", "mount", "queue", "queue"]
        assert not (wd / "sandboxes" / "dev.img").exists()
    assert leftovers(wd) == NOTHING and not box.mountpoint.exists()
    assert {n: sandbox._queue_value(queue / n) for n in before} == before


def test_device_mode_checks_the_device_again_before_mkfs(wd, disk, tmp_path_factory):
    with mounted(disk, tmp_path_factory.mktemp("elsewhere") / "mnt"):
        with pytest.raises(UserError, match=rf"refusing {disk}: {disk} is mounted on"):
            with sandbox.Sandbox(wd, sandbox.Spec(), device=disk):
                pass
    assert leftovers(wd) == NOTHING


def test_device_mode_refuses_a_scheduler_on_a_partition(wd, tmp_path_factory):
    image = tmp_path_factory.mktemp("disk") / "disk.img"
    with attached_loop(image, partitioned=True) as device:
        with pytest.raises(UserError, match=rf"{device}p1 is a partition of {device}: its IO "
                                            "scheduler and read-ahead belong to the whole disk"):
            with sandbox.Sandbox(wd, sandbox.Spec(scheduler="bfq"), device=f"{device}p1"):
                pass
        assert leftovers(wd) == NOTHING
        with sandbox.Sandbox(wd, sandbox.Spec(), device=f"{device}p1") as box:
            assert box.state()["device"] == f"{Path(device).name}p1"
            assert box.state()["disk"] == Path(device).name
    assert leftovers(wd) == NOTHING


def test_lab_clean_after_a_killed_device_run_unmounts_restores_and_never_detaches(wd, disk):
    scheduler = Path(f"/sys/block/{Path(disk).name}/queue/scheduler")
    before = sandbox._queue_value(scheduler)
    out = kill_holder_and_clean(wd, disk)
    assert "unmounted" in out and "restored" in out and "detached" not in out
    assert sandbox._queue_value(scheduler) == before
