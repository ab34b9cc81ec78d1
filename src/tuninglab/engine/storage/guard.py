"""Before a run formats a real disk (`--device /dev/sdX --destroy-data`): refuse a device that
holds /, is mounted (in any mount namespace) or swap, backs a loop device, or belongs to md
RAID, LVM, ZFS or device-mapper, down to each of its partitions. Reads /proc and /sys (roots are
parameters so tests can fake a host) and asks blkid for on-disk signatures; it never writes
anything.
"""

import os
import shutil
import stat
import subprocess
from pathlib import Path

from tuninglab.engine.host.devices import parse_mountinfo
from tuninglab.errors import UserError

# blkid TYPEs of a device that is one piece of a larger volume (RAID, LVM, ZFS, LUKS, bcache):
# formatting it breaks the volume even when nothing of it is mounted here.
MEMBER_TYPES = ("crypto_LUKS", "bcache")


def check_device(path: str, destroy_data: bool, sys_root: str = "/sys",
                 proc_root: str = "/proc", blkid: str = "blkid") -> str:
    """The device's resolved path (/dev/disk/by-id/... -> /dev/sdb), or a UserError saying
    why it must not be formatted."""
    dev = os.path.realpath(path)
    try:
        st = os.stat(dev)
    except FileNotFoundError:
        raise UserError(f"refusing {path}: it does not exist") from None
    if not stat.S_ISBLK(st.st_mode):
        raise UserError(f"refusing {path}: it is not a block device")
    host = _Host(sys_root, proc_root)
    name = host.name_of((os.major(st.st_rdev), os.minor(st.st_rdev)))
    if name is None:
        raise UserError(f"refusing {dev}: the kernel does not list it in {sys_root}/dev/block")
    roots = host.under_root()
    if name in roots:
        raise UserError(f"refusing {dev}: it holds / (the root filesystem)")
    if host.parent(name) in roots:
        raise UserError(f"refusing {dev}: it is a partition of /dev/{host.parent(name)}, "
                        "the disk that holds / (the root filesystem)")
    family = [name] + host.partitions(name)  # the device and each partition on it
    numbers = {host.number(n): n for n in family}
    for m in host.mounts():
        hit = numbers.get(m["dev"]) or host.source_name(m["source"])  # btrfs shows 0:N
        if hit in family:
            where = "" if m["pid"] is None else f" in the mount namespace of pid {m['pid']}"
            raise UserError(f"refusing {dev}: /dev/{hit} is mounted on {m['mount_point']}"
                            f"{where}")
    for loop, backing in host.loop_backings():
        if host.source_name(backing) in family:
            raise UserError(f"refusing {dev}: {backing} backs the loop device /dev/{loop} "
                            "(losetup): whatever is on that loop device lives on it")
    for source in host.swaps():
        if host.source_name(source) in family:
            raise UserError(f"refusing {dev}: {source} is in use as swap")
    for n in family:
        holders = host.holders(n)
        if holders:
            raise UserError(f"refusing {dev}: /dev/{n} is held by {', '.join(holders)} "
                            "(md RAID, LVM or another device-mapper device)")
    for n in family:
        node = dev if n == name else f"/dev/{n}"
        kind = _signature(node, dev, blkid)
        if kind.endswith("_member") or kind in MEMBER_TYPES:
            raise UserError(f"refusing {dev}: {node} carries a {kind} signature "
                            "(part of a RAID, LVM, ZFS or encrypted volume)")
    if not destroy_data:
        raise UserError(f"--device erases everything on {dev}: add --destroy-data to confirm")
    return dev


def parent_disk(name: str, sys_root: str = "/sys") -> str | None:
    """The disk a partition sits on ("sdb1" -> "sdb"), None for a whole disk."""
    return _Host(sys_root, "/proc").parent(name)


def _signature(node: str, dev: str, blkid: str) -> str:
    """blkid's TYPE of one device ("" when it finds none)."""
    tool = shutil.which(blkid, path=os.environ.get("PATH", "") + ":/usr/sbin:/sbin")
    if tool is None:
        raise UserError(f"refusing {dev}: blkid is missing, so RAID, LVM and ZFS signatures "
                        "cannot be checked (`apt-get install util-linux`)")
    out = subprocess.run([tool, "-p", "-o", "value", "-s", "TYPE", node], capture_output=True,
                         text=True, timeout=60)
    if out.returncode == 0:
        return out.stdout.strip()
    if out.returncode == 2 and not out.stderr.strip():  # 2 alone: no signature at all
        return ""
    raise UserError(f"refusing {dev}: blkid cannot tell what {node} holds (exit "
                    f"{out.returncode}: {out.stderr.strip() or 'ambivalent signatures'})")


class _Host:
    """The block devices, mounts and swaps of a host, read from its /sys and /proc."""

    def __init__(self, sys_root: str, proc_root: str):
        self.sys, self.proc = Path(sys_root), Path(proc_root)

    def _dir(self, name: str) -> Path:
        return Path(os.path.realpath(self.sys / "class/block" / name))

    def name_of(self, number: tuple) -> str | None:
        link = self.sys / "dev/block" / f"{number[0]}:{number[1]}"
        return Path(os.path.realpath(link)).name if link.exists() else None

    def number(self, name: str) -> tuple:
        major, minor = (self._dir(name) / "dev").read_text().strip().split(":")
        return int(major), int(minor)

    def parent(self, name: str) -> str | None:
        # In sysfs a partition's directory sits inside its disk's directory.
        d = self._dir(name)
        return d.parent.name if (d / "partition").exists() else None

    def partitions(self, name: str) -> list[str]:
        return sorted(p.name for p in self._dir(name).iterdir() if (p / "partition").exists())

    def holders(self, name: str) -> list[str]:
        d = self._dir(name) / "holders"
        return sorted(os.listdir(d)) if d.is_dir() else []

    def source_name(self, source: str) -> str | None:
        """The kernel name of a mount or swap source such as /dev/sdb1 or /dev/mapper/x."""
        if not source.startswith("/"):
            return None
        name = Path(os.path.realpath(source)).name
        return name if (self.sys / "class/block" / name).exists() else None

    def own_mounts(self) -> list[dict]:
        return parse_mountinfo((self.proc / "self/mountinfo").read_text())

    def mounts(self) -> list[dict]:
        """Every mount namespace's mounts, each with the pid it was read from (None: this
        process's): a device mounted in another namespace (a container's, a server's chroot)
        is as much in use as one mounted here."""
        found = [{**m, "pid": None} for m in self.own_mounts()]
        seen = {self._namespace(self.proc / "self")}
        for d in sorted(self.proc.glob("[0-9]*"), key=lambda p: int(p.name)):
            ns = self._namespace(d)
            if ns is not None and ns in seen:
                continue
            try:
                text = (d / "mountinfo").read_text()
            except OSError:  # the process ended, or is not ours to read
                continue
            seen.add(ns)
            found += [{**m, "pid": int(d.name)} for m in parse_mountinfo(text)]
        return found

    @staticmethod
    def _namespace(proc_dir: Path) -> str | None:
        try:
            return os.readlink(proc_dir / "ns/mnt")
        except OSError:
            return None

    def loop_backings(self) -> list[tuple[str, str]]:
        """(loop device, the file or device it is attached to) for every attached loop."""
        found = []
        for d in sorted((self.sys / "class/block").glob("loop*")):
            try:
                found.append((d.name, (d / "loop/backing_file").read_text().strip()))
            except OSError:  # not attached
                continue
        return found

    def swaps(self) -> list[str]:
        lines = (self.proc / "swaps").read_text().splitlines()[1:]  # after the header
        return [line.split()[0].replace("\\040", " ") for line in lines if line.strip()]

    def under_root(self) -> set[str]:
        """The device of /, its disk, and for LVM or md every device below it (slaves)."""
        root = [m for m in self.own_mounts() if m["mount_point"] == "/"]
        if not root:
            return set()
        top = root[-1]  # later mounts stack on top of earlier ones
        first = self.name_of(top["dev"]) or self.source_name(top["source"])
        found, todo = set(), [first] if first else []  # nothing for an overlay or tmpfs root
        while todo:
            name = todo.pop()
            if name in found:
                continue
            found.add(name)
            todo += [self.parent(name)] if self.parent(name) else []
            slaves = self._dir(name) / "slaves"
            todo += os.listdir(slaves) if slaves.is_dir() else []
        return found
