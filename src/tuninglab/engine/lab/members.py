"""The member disks of a lab VM run: sparse files by default, or block devices the user names
(`--device ... --destroy-data`), each shown to the guest as a disk of exactly the recipe's
member size so a run on real disks builds the same array as one on files."""

from pathlib import Path

from tuninglab import units
from tuninglab.engine.storage import backing
from tuninglab.errors import UserError
# Which disks a point needs is the recipe's (the site's rerun commands count them too).
from tuninglab.recipes.raid import member_serials as serials, member_size

SWAP_SERIAL = "lab-swap"   # the guest's name for a [lab] swap disk (lab/vm.py, lab/guest.py)
MIB = 2**20


def check(devices: tuple, points, label: str, sys_block: Path = Path("/sys/class/block")) -> None:
    """Enough devices (distinct: the runner checks) for the largest point, each at least a
    member's size."""
    widest = max(points, key=lambda p: len(serials(p)))
    need = len(serials(widest))
    if len(devices) < need:
        what = f"{widest.raid['disks']} members" if widest.raid else "one disk"
        if widest.raid and widest.raid.get("state") == "rebuilding":
            what += " and a spare"
        raise UserError(f"recipe {label} needs {need} devices (point {widest.id}: {what}), "
                        f"but --device names {len(devices)}: {', '.join(devices)}")
    size = max(units.size_bytes(member_size(p)) for p in points)
    for dev in devices:
        have = device_bytes(dev, sys_block)
        if have < size:
            raise UserError(f"refusing {dev}: it holds {have / MIB:.0f} MiB, less than the "
                            f"{size / MIB:.0f} MiB each member of recipe {label} uses")


def device_bytes(dev: str, sys_block: Path = Path("/sys/class/block")) -> int:
    return int((sys_block / Path(dev).name / "size").read_text()) * 512


def shared_physical(devices: tuple) -> bool:
    """Whether two named devices sit on one disk (partitions of it, or loop devices over files
    on it): then their IO competes and the array's speed is not that of its members. A device
    whose disks cannot be told counts as its own."""
    seen = set()
    for dev in devices:
        disks = set(backing.physical_disks(dev)) or {Path(dev).name}
        if disks & seen:
            return True
        seen |= disks
    return False
