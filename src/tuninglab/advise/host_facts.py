"""What the host under a local server is: kernel, CPUs and SMT, memory and swap, and the storage
under its datadir and its redo log (filesystem, mount options, device, scheduler, read-ahead,
write cache, software RAID level, ZFS recordsize). Everything is read from /proc, /sys and, for
ZFS, `zfs get`; nothing is written.

What cannot be read is recorded with why (`absent`), so that a row says it instead of guessing:
a server on another machine has no datadir here.
"""

import os
import secrets
import subprocess
from pathlib import Path

from tuninglab.engine.host import devices, hostinfo
from tuninglab.engine.storage import backing
from tuninglab.errors import UserError

SYS_BLOCK = Path("/sys/block")


def _read(path: Path | str) -> str | None:
    try:
        return Path(path).read_text().strip()
    except OSError:
        return None


def _zfs_recordsize(dataset: str) -> str | None:
    try:
        out = subprocess.run(["zfs", "get", "-H", "-o", "value", "recordsize", dataset],
                             capture_output=True, text=True, timeout=10)
    except (OSError, subprocess.TimeoutExpired):
        return None
    return out.stdout.strip() or None if out.returncode == 0 else None


def storage(path: str, sys_block: Path = SYS_BLOCK) -> dict:
    """The storage under a path: devices.storage_info, with the disk's write cache, its md
    RAID level and a ZFS dataset's recordsize where they apply, and the physical disks."""
    info = devices.storage_info(path)
    disk = info.get("disk")
    if disk:
        info["write_cache"] = _read(sys_block / disk / "queue" / "write_cache")
        info["raid_level"] = _read(sys_block / disk / "md" / "level")
        info["physical_disks"] = backing.physical_disks(disk)
    if info.get("filesystem") == "zfs":
        info["zfs_recordsize"] = _zfs_recordsize(info["source"])
    return info


def log_dir(variables: dict, datadir: str) -> str:
    """The redo log's directory: innodb_log_group_home_dir, relative to the datadir."""
    home = variables.get("innodb_log_group_home_dir") or "./"
    return os.path.normpath(os.path.join(datadir, home))


def _place(path: str, what: str, absent: dict) -> dict | None:
    try:
        return storage(path)
    except (OSError, ValueError) as exc:
        absent[what] = f"{path}: {exc}"
    except UserError as exc:  # the path does not exist here
        absent[what] = str(exc)
    return None


def read(variables: dict, local: bool) -> dict:
    """The host's facts; the storage only when the server is local (its datadir is here)."""
    info = hostinfo.host_info(secrets.token_hex(8))   # its id is not kept: a throwaway salt
    meminfo = _read("/proc/meminfo") or ""
    facts = {
        "kernel": info["kernel"]["release"], "cpu_model": info["cpu_model"],
        "cores": info["cores"], "memory_bytes": info["memory_bytes"],
        "virtualization": info["virtualization"],
        "smt": bool(hostinfo.smt_cores()),
        "swap_bytes": hostinfo.parse_meminfo(meminfo, "SwapTotal"),
        "swappiness": _read("/proc/sys/vm/swappiness"),
        "datadir": None, "logdir": None, "absent": {},
    }
    datadir = variables.get("datadir") or ""
    if not local:
        why = "the server is on another machine: run advise there (or with --on HOST)"
        facts["absent"].update(datadir=why, logdir=why)
    elif not datadir:
        facts["absent"]["datadir"] = "the server did not say its datadir"
    else:
        facts["datadir"] = _place(datadir, "datadir", facts["absent"])
        facts["logdir"] = _place(log_dir(variables, datadir), "logdir", facts["absent"])
    return facts
