"""Storage sandboxes: a sparse file in the work directory, a loop device over it (attached with
direct IO where the kernel takes it: loop.py), a filesystem with the options under test, mounted,
with the IO scheduler and read-ahead set. Every step is recorded in the ledger before the next,
and undone in reverse order on every exit path.

Device mode (device="/dev/sdb"): a disk the user named and agreed to erase takes the place of
the file and the loop device; the rest is the same, and it is never detached.

Safety: the only block devices touched are loop devices this code attached to files under the
work directory, and a named device that guard.check_device accepts right before mkfs;
undo() checks the backing file again before detaching anything.
"""

import json
import os
import re
import subprocess
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

from tuninglab import units
from tuninglab.engine.host.devices import parse_mountinfo, storage_info
from tuninglab.engine.storage import backing, guard, loop
from tuninglab.engine.host.ledger import Ledger
from tuninglab.engine.host.workdir import check_free
from tuninglab.errors import UserError
from tuninglab.recipes.filesystems import HOST_FILESYSTEMS

SYS_BLOCK = Path("/sys/block")
# A duet builds two sandboxes at once (engine/run/duet.py): one at a time, so that neither
# takes the other's free loop device.
_BUILDING = threading.Lock()

# How each filesystem a sandbox makes (recipes/filesystems.py says which) is made, and the
# Debian package of its mkfs.
MKFS = {"ext4": (["mkfs.ext4", "-q", "-F"], "e2fsprogs"),
        "xfs": (["mkfs.xfs", "-q", "-f"], "xfsprogs"),
        "btrfs": (["mkfs.btrfs", "-q", "-f"], "btrfs-progs"),
        "ext3": (["mkfs.ext3", "-q", "-F"], "e2fsprogs"),
        "ext2": (["mkfs.ext2", "-q", "-F"], "e2fsprogs")}


@dataclass(frozen=True)
class Spec:
    filesystem: str = "ext4"
    size: str = "2G"
    mkfs_options: tuple[str, ...] = field(default_factory=tuple)
    mount_options: str = ""
    scheduler: str | None = None
    read_ahead_kb: int | None = None


def require_root(what: str) -> None:
    if os.geteuid() != 0:
        raise UserError(f"{what} needs root (loop devices, mkfs and mount): run it with sudo")


def _run(cmd: list[str], what: str) -> str:
    try:
        out = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    except FileNotFoundError:
        raise UserError(f"{what}: {cmd[0]} not found") from None
    if out.returncode != 0:
        raise UserError(f"{what} failed ({' '.join(cmd)}): {out.stderr.strip()[-500:]}")
    return out.stdout.strip()


class Sandbox:
    """Use as a context manager; state() reads back what the kernel has in force."""

    def __init__(self, workdir: Path, spec: Spec, name: str = "sandbox",
                 device: str | None = None):
        self.workdir = Path(workdir).resolve()
        self.spec, self.name = spec, name
        self.given = device  # a user's disk instead of a loop device; spec.size is then unused
        self.image = None if device else self.workdir / "sandboxes" / f"{name}.img"
        self.mountpoint = self.workdir / "sandboxes" / name
        self.ledger = Ledger(self.workdir)
        self.device = None
        self.direct_io = None  # a loop device's: whether the kernel took direct IO
        self._made = []

    def __enter__(self):
        require_root("a storage sandbox")
        try:
            with _BUILDING:
                self._build()
        except BaseException:
            self.close()
            raise
        return self

    def __exit__(self, *exc):
        self.close()

    def _build(self) -> None:
        s = self.spec
        if s.filesystem not in HOST_FILESYSTEMS:
            raise UserError(f"filesystem {s.filesystem!r} is not supported "
                            f"(expected one of {', '.join(HOST_FILESYSTEMS)})")
        mkfs, package = MKFS[s.filesystem]
        if not have_tool(mkfs[0]):
            raise UserError(f"{mkfs[0]} not found: install it with `apt-get install {package}`")
        if self.given:
            self.device = self._claim_device()
        else:
            self._attach_loop()
        _run(mkfs + list(s.mkfs_options) + [self.device], f"mkfs.{s.filesystem}")
        self.mountpoint.parent.mkdir(parents=True, exist_ok=True)
        self.mountpoint.mkdir(exist_ok=True)
        self._push({"kind": "dir", "path": str(self.mountpoint)})
        options = ["-o", s.mount_options] if s.mount_options else []
        _run(["mount", "-t", s.filesystem] + options + [self.device, str(self.mountpoint)],
             f"mounting {s.filesystem} with options {s.mount_options or '(defaults)'}")
        self._push({"kind": "mount", "path": str(self.mountpoint), "device": self.device})
        if s.scheduler:
            self.set_queue("scheduler", s.scheduler)
        if s.read_ahead_kb is not None:
            self.set_queue("read_ahead_kb", str(s.read_ahead_kb))

    def _attach_loop(self) -> None:
        size = units.size_bytes(self.spec.size)
        check_free(self.workdir, size, f"a {self.spec.size} sandbox")
        self.image.parent.mkdir(parents=True, exist_ok=True)
        with open(self.image, "wb") as f:
            f.truncate(size)  # sparse: blocks are allocated as the sandbox fills
        self._push({"kind": "file", "path": str(self.image)})
        if loop.buffered_asked():
            loop.say_once(loop.buffered_line())
        self.direct_io = not loop.buffered_asked() and self._attach_direct()
        if not self.direct_io:
            self._attach(loop.attach_command(self.image, None))

    def _attach(self, command: list[str]) -> None:
        self.device = _run(command, "attaching a loop device")
        self._push({"kind": "loop", "device": self.device, "backing": str(self.image)})

    def _attach_direct(self) -> bool:
        """Attach the loop device with direct IO at the smallest sector it accepts (loop.py);
        whether the kernel took direct IO. If not, the device is detached again (to be
        attached buffered, as before, with the default sector) and that is said once."""
        sector = loop.sector_size(self.image)
        self._attach(loop.attach_command(self.image, sector))
        got = loop.read_back(self.device, SYS_BLOCK)
        if got["logical_block_size"] != sector:
            raise UserError(f"{self.device} took a logical sector of {got['logical_block_size']}"
                            f" bytes, not the {sector} asked for (losetup --sector-size)")
        if got["direct_io"]:
            return True
        loop.say_once(loop.refused_line(self.image))
        entry = self._made.pop()
        undo(entry, self.workdir)
        self.ledger.forget(entry)
        self.device = None
        return False

    @property
    def host_cached(self) -> bool:
        """Whether the host's page cache holds the device's blocks outside the server's memory:
        a loop device attached buffered (a second cache, which a switchback block drops)."""
        return self.image is not None and not self.direct_io

    def _claim_device(self) -> str:
        # Checked again right before mkfs: the disk may have been mounted since the runner
        # checked --destroy-data. Nothing is recorded for it: there is nothing to detach.
        device = guard.check_device(self.given, destroy_data=True)
        s = self.spec
        # A partition's scheduler and read-ahead are its disk's, shared with the other
        # partitions: refused rather than changed under them.
        disk = guard.parent_disk(Path(device).name)
        if disk and (s.scheduler or s.read_ahead_kb is not None):
            raise UserError(f"{device} is a partition of /dev/{disk}: its IO scheduler and "
                            "read-ahead belong to the whole disk, so pass the whole disk or "
                            "leave storage.scheduler and storage.read_ahead_kb unset")
        return device

    def _push(self, entry: dict) -> None:
        self._made.append(self.ledger.record(entry))

    def set_queue(self, name: str, value: str) -> None:
        """Set one of the device's queue settings (scheduler, read_ahead_kb) and check that the
        kernel took it; the value it had before is recorded once, to be restored on close (a
        switchback sets it again at every switch)."""
        path = Path(f"/sys/block/{Path(self.device).name}/queue/{name}")
        if name == "scheduler":
            available = path.read_text().replace("[", "").replace("]", "").split()
            if value not in available:
                raise UserError(f"IO scheduler {value!r} is not available for {self.device} "
                                f"(available: {', '.join(available)})")
        if not any(e.get("kind") == "queue" and e["path"] == str(path) for e in self._made):
            self._push({"kind": "queue", "path": str(path), "previous": _queue_value(path)})
        path.write_text(value)
        if _queue_value(path) != value:
            raise UserError(f"{path} did not take {value!r} (reads {_queue_value(path)!r})")

    def state(self) -> dict:
        """The storage as the kernel reports it now, for the result file."""
        info = storage_info(self.mountpoint)
        queue = SYS_BLOCK / info["disk"] / "queue"  # a partition's queue is its disk's
        size = self.spec.size if self.image else f"{_device_bytes(self.device) // 2**20}M"
        info.update({"sandbox": True, "backing_file": str(self.image) if self.image else None,
                     "physical_disks": backing.physical_disks(self.device),
                     "size": size, "nr_requests": int((queue / "nr_requests").read_text())})
        if self.image:  # a loop device's own (a named device has neither)
            got = loop.read_back(self.device, SYS_BLOCK)
            info.update({"loop_direct_io": got["direct_io"],
                         "logical_block_size": got["logical_block_size"]})
        return info

    def close(self) -> None:
        for entry in reversed(self._made):
            undo(entry, self.workdir)
            self.ledger.forget(entry)
        self._made = []


def _reattached(queue: dict, entries: list[dict]) -> str | None:
    """A killed run's loop device, detached since and attached to another file: its queue
    setting is no longer the sandbox's to restore."""
    device = "/dev/" + QUEUE_PATH.fullmatch(queue["path"])[1]
    for e in entries:
        if e["kind"] == "loop" and e["device"] == device and _loop_backing(device) != e["backing"]:
            return f"left {queue['path']} alone: {device} is no longer attached to {e['backing']}"
    return None


def have_tool(tool: str) -> bool:
    return any(Path(d, tool).exists() for d in os.environ.get("PATH", "").split(":")
               + ["/usr/sbin", "/sbin"])


def _device_bytes(device: str) -> int:
    return int(Path(f"/sys/class/block/{Path(device).name}/size").read_text()) * 512  # sectors


def offered_schedulers(device: str | None = None) -> list[str] | None:
    """The IO schedulers this kernel offers a named device's disk, or loop devices (every loop
    device is offered the same); None where there is no queue to read."""
    if device:
        disk = guard.parent_disk(Path(device).name) or Path(device).name
        files = [SYS_BLOCK / disk / "queue" / "scheduler"]
    else:
        files = sorted(SYS_BLOCK.glob("loop*/queue/scheduler"))
    for path in files:
        if path.exists():
            return path.read_text().replace("[", "").replace("]", "").split()
    return None


def _queue_value(path: Path) -> str:
    text = path.read_text().strip()
    if "[" in text:  # the scheduler file lists all, the active one in brackets
        return text[text.index("[") + 1:text.index("]")]
    return text


def _mounted(path: str) -> bool:
    with open("/proc/self/mounts") as f:
        return any(line.split()[1] == path for line in f)


def _loop_backing(device: str) -> str | None:
    out = subprocess.run(["losetup", "-J", "-l", device], capture_output=True, text=True)
    if out.returncode != 0 or not out.stdout.strip():
        return None
    return json.loads(out.stdout)["loopdevices"][0].get("back-file", "").split(" (")[0]


LOOP_DEVICE = re.compile(r"/dev/loop\d+")
QUEUE_PATH = re.compile(r"/sys/block/([\w.-]+)/queue/(scheduler|read_ahead_kb)")
QUEUE_VALUE = {"scheduler": re.compile(r"[\w-]+"), "read_ahead_kb": re.compile(r"\d+")}


def refusal(entry: dict, entries: list[dict], workdir: Path,
            mountinfo: str | None = None) -> str | None:
    """Why a storage entry of a work directory's ledger (lab.clean reads it) is not one a
    sandbox in that work directory could have made, or None. A sandbox makes its image and
    mount point directly in sandboxes/, attaches /dev/loopN to the image, mounts that loop
    device (or a disk the user named), and changes the queue settings only of the device it
    mounted. The state file names only what the same ledger made: a device no loop entry
    attached is a named disk only if the kernel has it mounted on the entry's mount point now
    (mountinfo: /proc/self/mountinfo's text; a test's host)."""
    sandboxes = Path(workdir).resolve() / "sandboxes"
    kind = entry["kind"]
    path = Path(entry.get("backing") or entry["path"]) if kind != "queue" else None
    if path and Path(os.path.realpath(path)).parent != sandboxes:
        return f"{path} is not directly in {sandboxes}"
    if kind in ("file", "loop") and not path.name.endswith(".img"):
        return f"{path} is not a sandbox's image (*.img)"
    if kind == "loop" and not LOOP_DEVICE.fullmatch(entry["device"]):
        return f"{entry['device']} is not a loop device"
    if kind == "loop" and not any(e["kind"] == "file" and e["path"] == entry["backing"]
                                  for e in entries):
        return f"this ledger made no image {entry['backing']} (a file entry) for {entry['device']}"
    if kind == "mount":
        return _mount_refusal(entry, entries, mountinfo)
    if kind == "queue":
        return _queue_refusal(entry, entries, workdir, mountinfo)
    return None


def _mount_refusal(mount: dict, entries: list[dict], mountinfo: str | None) -> str | None:
    device = mount["device"]
    if not device.startswith("/dev/"):
        return f"{device} is not a device under /dev"
    if any(e["kind"] == "loop" and e["device"] == device for e in entries):
        return None  # the loop entry's own check holds it to an image in sandboxes/
    if mounted_from(mount["path"], device, mountinfo):
        return None  # a disk named with --device, mounted there by the run that recorded it
    return (f"{device} is neither a loop device this ledger attached (a loop entry) nor "
            f"mounted on {mount['path']} now (a disk named with --device)")


def _queue_refusal(entry: dict, entries: list[dict], workdir: Path,
                   mountinfo: str | None) -> str | None:
    found = QUEUE_PATH.fullmatch(entry["path"])
    if not found:
        return f"{entry['path']} is not a block queue setting"
    device, name = f"/dev/{found[1]}", found[2]
    if not QUEUE_VALUE[name].fullmatch(entry["previous"]):
        return f"{entry['previous'][:40]!r} is not a {name} value"
    if not any(e["kind"] == "mount" and e["device"] == device
               and not refusal(e, entries, workdir, mountinfo) for e in entries):
        return (f"{device} is not a device this ledger mounted (a loop device it attached, or "
                "a disk named with --device mounted in sandboxes/ now)")
    return None


def mounted_from(mount_point: str, device: str, mountinfo: str | None = None) -> bool:
    """Whether the kernel has device mounted on mount_point now (the topmost mount there)."""
    if mountinfo is None:
        try:
            mountinfo = Path("/proc/self/mountinfo").read_text()
        except OSError:
            return False
    there = [m for m in parse_mountinfo(mountinfo) if m["mount_point"] == mount_point]
    return bool(there) and os.path.realpath(there[-1]["source"]) == os.path.realpath(device)


def undo(entry: dict, workdir: Path, entries: list[dict] = ()) -> str:
    """Undo one recorded storage step (a queue setting, mount, loop device, mount point or file);
    refuse anything outside the work directory. entries: the whole ledger, when a killed run's
    steps are undone (lab.clean)."""
    kind = entry["kind"]
    inside = lambda p: Path(p).resolve().is_relative_to(Path(workdir).resolve())
    if kind == "queue":
        if not QUEUE_PATH.fullmatch(entry["path"]):
            raise UserError(f"refusing to write {entry['path']}: not a block queue setting")
        if moved := _reattached(entry, entries):
            return moved
        if Path(entry["path"]).exists():
            Path(entry["path"]).write_text(entry["previous"])
        return f"restored {entry['path']} to {entry['previous']}"
    if kind == "mount":
        if not inside(entry["path"]):
            raise UserError(f"refusing to unmount {entry['path']}: not under {workdir}")
        for attempt in range(20):  # a just-killed server may hold files for a moment
            if not _mounted(entry["path"]):
                break
            if subprocess.run(["umount", entry["path"]], capture_output=True).returncode == 0:
                break
            time.sleep(0.5)
        else:
            _run(["umount", entry["path"]], f"unmounting {entry['path']}")
        return f"unmounted {entry['path']}"
    if kind == "loop":
        if not inside(entry["backing"]):
            raise UserError(f"refusing to detach {entry['device']}: its recorded file "
                            f"{entry['backing']} is not under {workdir}")
        if _loop_backing(entry["device"]) == entry["backing"]:
            _run(["losetup", "-d", entry["device"]], f"detaching {entry['device']}")
        return f"detached {entry['device']}"
    if kind == "dir":
        if not inside(entry["path"]):
            raise UserError(f"refusing to remove {entry['path']}: not under {workdir}")
        try:
            Path(entry["path"]).rmdir()  # only if empty: a mount point, never data
        except FileNotFoundError:
            pass
        return f"removed the mount point {entry['path']}"
    if kind == "file":
        if not inside(entry["path"]):
            raise UserError(f"refusing to remove {entry['path']}: not under {workdir}")
        Path(entry["path"]).unlink(missing_ok=True)
        return f"removed {entry['path']}"
    raise ValueError(f"unknown ledger entry {entry!r}")
