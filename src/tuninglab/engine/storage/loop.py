"""How a sandbox's loop device is attached: with direct IO, so that the host's page cache never
holds its backing file.

Attached buffered (losetup's default), a loop device reads and writes its backing file through
the host's page cache: a second cache, outside the server's memory cgroup, which the memory
model (engine/server/memory.py) does not see. A "device" read may then come from RAM, and a
switchback block had to start with the page cache dropped (and climbed 150-300 tps inside the
block). Attached with direct IO, the loop device reads and writes its file with O_DIRECT: the
server's capped memory is the only cache left.

The logical sector size: the kernel takes direct IO only when the loop's logical blocks are
aligned as the backing file's filesystem needs for O_DIRECT (its DIO alignment), so the sector
is that alignment, the smallest that direct IO accepts: 512 on this kind of disk (512 and 512e).
Never larger than needed: the loop's logical sector is the smallest IO the filesystem on it can
issue, mkfs.xfs takes it as its sector size and InnoDB as its redo log's block size, so 4096
would change the experiment beyond taking the second cache away. Linux 6.18 picks the same
alignment by itself when direct IO is asked for at attach time; older kernels default to 512
and then refuse direct IO on a 4K-sector disk. So it is chosen here and read back from sysfs.

Where the kernel refuses direct IO (a backing filesystem without O_DIRECT), the sandbox keeps
going on a buffered loop device, as before: said once, and recorded (loop_direct_io false).
"""

import ctypes
import os
import struct
from pathlib import Path

# TUNINGLAB_LOOP_BUFFERED=1 attaches loop devices buffered, as before direct IO: an
# engine-internal switch for the precision benchmark's "before" (bench/precision.py), not a
# recipe key; such results record loop_direct_io false and the site treats them as superseded.
BUFFERED_ENV = "TUNINGLAB_LOOP_BUFFERED"

SECTORS = (512, 1024, 2048, 4096)  # the logical block sizes a loop device takes (to a page)
STATX_DIOALIGN = 0x2000            # linux/stat.h: ask statx for the O_DIRECT alignment
AT_FDCWD = -100
_MASK_AT, _DIO_AT = 0, 152         # offsets in struct statx: stx_mask, stx_dio_mem_align


def buffered_asked() -> bool:
    return os.environ.get(BUFFERED_ENV, "") == "1"


def sector_size(backing: Path) -> int:
    """The loop device's logical sector for direct IO to the file `backing`: its filesystem's
    O_DIRECT alignment; 512 (the loop driver's default) where that is unknown or more than a
    loop device takes, in which case the kernel will refuse direct IO and say so."""
    align = dio_alignment(backing)
    return align if align in SECTORS else 512


def dio_alignment(path: Path) -> int | None:
    """The file offset alignment O_DIRECT needs on path's filesystem: statx's dio_offset_align
    where the filesystem reports it (0: no O_DIRECT there), else the logical block size of the
    block device it lies on; None where neither is known (tmpfs, overlayfs)."""
    align = _statx_dio_offset_align(path)
    return align if align is not None else _device_logical_block_size(path)


def _statx_dio_offset_align(path: Path) -> int | None:
    try:
        statx = ctypes.CDLL(None, use_errno=True).statx  # glibc 2.28 and later
    except (OSError, AttributeError):
        return None
    statx.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_int, ctypes.c_uint,
                      ctypes.c_void_p]
    buf = ctypes.create_string_buffer(256)  # sizeof(struct statx)
    if statx(AT_FDCWD, os.fsencode(path), 0, STATX_DIOALIGN, buf) != 0:
        return None
    (mask,) = struct.unpack_from("I", buf, _MASK_AT)
    if not mask & STATX_DIOALIGN:  # the filesystem does not say (or the kernel is before 6.1)
        return None
    _memory, offset = struct.unpack_from("II", buf, _DIO_AT)
    return offset


def _device_logical_block_size(path: Path) -> int | None:
    st_dev = os.stat(path).st_dev
    node = Path(f"/sys/dev/block/{os.major(st_dev)}:{os.minor(st_dev)}")
    if not node.exists():
        return None
    node = node.resolve()
    queue = (node.parent if (node / "partition").exists() else node) / "queue"
    try:
        return int((queue / "logical_block_size").read_text())
    except (OSError, ValueError):
        return None


def attach_command(backing: Path, sector: int | None) -> list[str]:
    """losetup's command: with direct IO at `sector`, or (None) buffered, as before."""
    if sector is None:
        return ["losetup", "--find", "--show", str(backing)]
    return ["losetup", "--find", "--show", "--direct-io=on", f"--sector-size={sector}",
            str(backing)]


def read_back(device: str, sys_block: Path = Path("/sys/block")) -> dict:
    """What the kernel has in force on a loop device: direct IO, and its logical sector."""
    name = Path(device).name
    return {"direct_io": (sys_block / name / "loop" / "dio").read_text().strip() == "1",
            "logical_block_size": int((sys_block / name / "queue" /
                                       "logical_block_size").read_text())}


_said: set = set()


def say_once(line: str) -> None:
    """Print a line once per process: every run of a restart design builds a sandbox."""
    if line not in _said:
        _said.add(line)
        print(line, flush=True)


def refused_line(backing: Path) -> str:
    return (f"storage: the kernel refused direct IO on a loop device over {backing.parent}: "
            "attached buffered, so the host's page cache holds the sandbox outside the "
            "server's memory cap (recorded as loop_direct_io false; the site counts such "
            "results as older evidence); a work directory on ext4 or xfs avoids it")


def buffered_line() -> str:
    return (f"storage: {BUFFERED_ENV}=1: loop devices attached buffered, through the host's "
            "page cache (recorded as loop_direct_io false)")
