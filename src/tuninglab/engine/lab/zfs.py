"""A ZFS pool on one disk in the lab VM: created with the dataset properties of the point,
read back with `zfs get`, and exported and imported again so the ARC starts empty."""

import struct
import time
from pathlib import Path

from tuninglab import units
from tuninglab.engine.lab.commands import run

POOL = "lab"
PROPERTIES = ("recordsize", "compression", "atime", "logbias", "primarycache")


def create_command(spec: dict, device: str, mountpoint: Path) -> list[str]:
    """ashift=12: 4 KiB sectors, whatever the virtual disk reports."""
    cmd = ["zpool", "create", "-f", "-o", "ashift=12", "-O", f"mountpoint={mountpoint}"]
    for name in PROPERTIES:
        cmd += ["-O", f"{name}={spec[name]}"]
    return cmd + [POOL, device]


def make_pool(spec: dict, device: str, mountpoint: Path) -> dict:
    arc_max = units.size_bytes(spec["arc_max"])
    run(["modprobe", "zfs", f"zfs_arc_max={arc_max}"])
    device = one_partition(device)
    run(create_command(spec, device, mountpoint))
    state = read_back()
    wrong = differences(spec, state)
    if wrong:
        raise RuntimeError("the pool is not what was asked: " + "; ".join(wrong))
    return {"filesystem": "zfs", "device": device, "zfs": state, "zfs_version": version(),
            "arc_max_bytes": int(Path("/sys/module/zfs/parameters/zfs_arc_max").read_text())}


def one_partition(disk: str) -> str:
    """An MBR with one partition from 1 MiB to the end. Given a whole disk, zpool would label
    it itself and then wait for udev, which the lab VM does not run."""
    sectors = int(Path(f"/sys/block/{Path(disk).name}/size").read_text())
    entry = struct.pack("<B3sB3sII", 0, b"\0" * 3, 0xBF, b"\0" * 3, 2048, sectors - 2048)
    with open(disk, "r+b") as f:
        f.seek(446)
        f.write(entry)
        f.seek(510)
        f.write(b"\x55\xaa")
    run(["blockdev", "--rereadpt", disk])
    partition = Path(f"{disk}1")
    for _ in range(100):   # devtmpfs adds the node a moment later
        if partition.exists():
            return str(partition)
        time.sleep(0.05)
    raise RuntimeError(f"no {partition} after writing its partition table")


def read_back() -> dict:
    out = run(["zfs", "get", "-Hp", "-o", "property,value", ",".join(PROPERTIES), POOL])
    return parse_get(out)


def parse_get(text: str) -> dict:
    """`zfs get -Hp -o property,value` lines: tab-separated, sizes in bytes."""
    return dict(line.split("\t", 1) for line in text.splitlines() if "\t" in line)


def differences(spec: dict, state: dict) -> list[str]:
    out = []
    for name in PROPERTIES:
        want = str(units.size_bytes(spec[name])) if name == "recordsize" else spec[name]
        if state.get(name) != want:
            out.append(f"{name} is {state.get(name)}, asked {want}")
    return out


def empty_arc(mountpoint: Path) -> None:
    """Export and import the pool: the ARC drops its blocks, as on a fresh boot."""
    run(["zpool", "export", POOL])
    run(["zpool", "import", "-d", "/dev", POOL])
    if not mountpoint.is_mount():
        raise RuntimeError(f"the pool did not mount again at {mountpoint}")


def version() -> str:
    path = Path("/sys/module/zfs/version")
    return path.read_text().strip() if path.exists() else ""
