"""Which physical disks a block device's IO ends on: a partition's disk, a loop device's
backing file's disk, the members of a device-mapper or md device. Two devices whose disks
overlap compete for one disk's queue and heads, whatever their filesystems: a result records
it (sandbox.Sandbox.state) so that a regime check can tell "two disks" from "two files on one".

Reads /proc and /sys only."""

import os
from pathlib import Path

from tuninglab.engine.host.devices import storage_info, whole_disk
from tuninglab.errors import UserError

SYS_BLOCK = Path("/sys/class/block")
MAX_DEPTH = 8   # loop over a file on a loop over ...: far deeper than anything the lab makes


def physical_disks(device: str, sys_block: Path = SYS_BLOCK, depth: int = 0) -> list[str]:
    """The whole disks under device, sorted; [] when they cannot be told (a loop device over a
    file on tmpfs or a network filesystem: no disk a check could compare)."""
    name = Path(device).name
    if depth > MAX_DEPTH:
        return []
    backing = sys_block / name / "loop" / "backing_file"
    if backing.is_file():
        return _file_disks(backing.read_text().strip(), sys_block, depth)
    slaves = sys_block / name / "slaves"
    under = sorted(p.name for p in slaves.iterdir()) if slaves.is_dir() else []
    if under:   # device-mapper, md: the disks of each member
        return sorted({d for s in under for d in physical_disks(s, sys_block, depth + 1)})
    disk = whole_disk(name)
    if disk != name:   # a partition: its disk may itself be a loop or md device
        return physical_disks(disk, sys_block, depth + 1)
    return [name]


def _file_disks(path: str, sys_block: Path, depth: int) -> list[str]:
    """The disks under the filesystem that holds a loop device's backing file."""
    try:
        info = storage_info(os.path.dirname(path) or "/")
    except UserError:   # the file was deleted after the loop device attached it
        return []
    if not info["device"]:
        return []
    return physical_disks(info["device"], sys_block, depth + 1)
