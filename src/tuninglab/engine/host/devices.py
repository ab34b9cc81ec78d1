"""Which block device holds a path, and its I/O counters from /proc/diskstats.

Everything here reads /proc and /sys only, so it works unprivileged.
"""

import os
import re
import stat
from dataclasses import dataclass, fields

from tuninglab.errors import UserError

SECTOR_BYTES = 512  # /proc/diskstats counts 512-byte sectors on every device


# --- mounts and devices ------------------------------------------------------

def storage_info(path) -> dict:
    resolved = os.path.realpath(path)
    try:
        st_dev = os.stat(resolved).st_dev
    except FileNotFoundError:
        raise UserError(f"{path} does not exist: create it before measuring its storage")
    with open("/proc/self/mountinfo") as f:
        mount = find_mount(parse_mountinfo(f.read()), resolved,
                           (os.major(st_dev), os.minor(st_dev)))
    device = _block_device(mount["dev"], mount["source"])
    disk = whole_disk(device) if device else None
    return {
        "path": resolved,
        "mount_point": mount["mount_point"],
        "filesystem": mount["fstype"],
        "mount_options": mount["options"],
        "source": mount["source"],
        "device": device,
        "disk": disk,
        "scheduler": parse_scheduler(_sys_queue(disk, "scheduler")),
        "read_ahead_kb": _int_or_none(_sys_queue(disk, "read_ahead_kb")),
        "rotational": _bool_or_none(_sys_queue(disk, "rotational")),
        "logical_block_size": _int_or_none(_sys_queue(disk, "logical_block_size")),
    }


def parse_mountinfo(text: str) -> list:
    """Mounts in file order (later mounts stack on top of earlier ones)."""
    mounts = []
    for line in text.splitlines():
        parts = line.split(" ")
        if len(parts) < 10:
            continue
        sep = parts.index("-", 6)  # optional fields end at "-"
        major, minor = parts[2].split(":")
        fstype, source, super_options = parts[sep + 1:sep + 4]
        mounts.append({
            "dev": (int(major), int(minor)),
            "mount_point": _unescape(parts[4]),
            "fstype": fstype,
            "source": _unescape(source),
            "options": _merge_options(parts[5], super_options),
        })
    return mounts


def find_mount(mounts: list, path: str, dev: tuple) -> dict:
    """The mount holding an absolute resolved path.

    Longest mount point prefix, preferring mounts whose major:minor is the
    path's st_dev: bind mounts and over-mounts make prefixes ambiguous.
    btrfs reports other numbers in st_dev, so fall back to prefix alone.
    """
    under = [m for m in mounts if _is_under(path, m["mount_point"])]
    same_dev = [m for m in under if m["dev"] == dev]
    candidates = same_dev or under
    if not candidates:
        raise ValueError(f"no mount point found for {path}")
    longest = max(len(m["mount_point"]) for m in candidates)
    return [m for m in candidates if len(m["mount_point"]) == longest][-1]


def parse_scheduler(text):
    """The active I/O scheduler: "none [mq-deadline] kyber" -> "mq-deadline"."""
    if text is None:
        return None
    match = re.search(r"\[([^\]]+)\]", text)
    if match:
        return match.group(1)
    words = text.split()
    return words[0] if len(words) == 1 else None  # dm devices print just "none"


def _block_device(dev: tuple, source: str):
    """Kernel name of the block device, or None (tmpfs, overlay, ...)."""
    name = _sys_dev_name(*dev)
    if name is None and source.startswith("/"):
        # btrfs shows an anonymous 0:N in mountinfo; its source is the device.
        try:
            st = os.stat(source)
        except OSError:
            return None
        if stat.S_ISBLK(st.st_mode):
            name = _sys_dev_name(os.major(st.st_rdev), os.minor(st.st_rdev))
    return name


def _sys_dev_name(major: int, minor: int):
    link = f"/sys/dev/block/{major}:{minor}"
    return os.path.basename(os.path.realpath(link)) if os.path.exists(link) else None


def whole_disk(device: str) -> str:
    # In sysfs a partition's directory sits inside its disk's directory.
    sys_path = os.path.realpath(f"/sys/class/block/{device}")
    if os.path.exists(os.path.join(sys_path, "partition")):
        return os.path.basename(os.path.dirname(sys_path))
    return device


def _sys_queue(disk, name):
    if disk is None:
        return None
    try:
        with open(f"/sys/block/{disk}/queue/{name}") as f:
            return f.read().strip()
    except OSError:
        return None


def _is_under(path: str, mount_point: str) -> bool:
    return mount_point == "/" or path == mount_point or path.startswith(mount_point + "/")


def _unescape(field: str) -> str:
    # mountinfo writes space, tab, newline and backslash as \ooo octal.
    return re.sub(r"\\([0-7]{3})", lambda m: chr(int(m.group(1), 8)), field)


def _merge_options(mount_options: str, super_options: str) -> str:
    # Like findmnt: per-mount options, then the filesystem's, without repeats.
    merged = dict.fromkeys(mount_options.split(",") + super_options.split(","))
    return ",".join(o for o in merged if o)


def _int_or_none(text):
    return int(text) if text and text.isdigit() else None


def _bool_or_none(text):
    return {"0": False, "1": True}.get(text)


# --- /proc/diskstats ---------------------------------------------------------

@dataclass(frozen=True)
class DiskCounters:
    reads: int
    read_bytes: int
    writes: int
    write_bytes: int
    flushes: int
    io_ms: int

    def __sub__(self, other: "DiskCounters") -> "DiskCounters":
        if not isinstance(other, DiskCounters):
            return NotImplemented
        return DiskCounters(*(getattr(self, f.name) - getattr(other, f.name)
                              for f in fields(self)))


def read_diskstats(names, text=None) -> dict:
    """Counters for the named devices ("vda", "sda1", ...)."""
    if isinstance(names, str):
        names = [names]
    if text is None:
        with open("/proc/diskstats") as f:
            text = f.read()
    stats = parse_diskstats(text)
    missing = [n for n in names if n not in stats]
    if missing:
        raise KeyError(f"no device {', '.join(missing)} in /proc/diskstats "
                       f"(known: {', '.join(sorted(stats))})")
    return {n: stats[n] for n in names}


def parse_diskstats(text: str) -> dict:
    """Every line; 14 fields before Linux 4.18, 18 with discards, 20 with flushes."""
    stats = {}
    for line in text.splitlines():
        parts = line.split()
        if not parts:
            continue
        if len(parts) < 14:
            raise ValueError(f"unexpected /proc/diskstats line: {line!r}")
        v = [int(x) for x in parts[3:]]  # v[i] is field i+1 of iostats.rst
        stats[parts[2]] = DiskCounters(
            reads=v[0], read_bytes=v[2] * SECTOR_BYTES,
            writes=v[4], write_bytes=v[6] * SECTOR_BYTES,
            flushes=v[15] if len(v) >= 17 else 0,
            io_ms=v[9])
    return stats
