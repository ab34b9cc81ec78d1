"""The md RAID array a recipe asks for, and what md could not build. Standard library only: the
lab VM's guest imports it."""

from dataclasses import dataclass

# Members each md level needs at least (RAID10 "near 2" works from 2 members).
MIN_MEMBERS = {"0": 2, "1": 2, "10": 2, "5": 3, "6": 4}
# The array during the measurement: whole, one member failed, or rebuilding onto a spare.
STATES = ("normal", "degraded", "rebuilding")
PAGE_BYTES = 4096   # md's smallest chunk is the kernel page
KIB = 1024


@dataclass(frozen=True)
class ArraySpec:
    level: str        # "0", "1", "10", "5", "6"
    chunk_kib: int    # ignored by RAID1, which has no chunks
    disks: int
    member_size: str  # each member device, e.g. "1G"
    state: str = "normal"


def problems(spec: ArraySpec) -> list[tuple[str, str]]:
    """(key, what is wrong) for each problem of the spec; empty when md can build it."""
    out = []
    if spec.level not in MIN_MEMBERS:
        out.append(("level", f"expected one of {', '.join(MIN_MEMBERS)}, got {spec.level!r}"))
        return out
    chunk = spec.chunk_kib * KIB
    if spec.level != "1" and (chunk < PAGE_BYTES or chunk & (chunk - 1)):
        out.append(("chunk", f"expected a power of two of at least {PAGE_BYTES // KIB}K "
                             f"(the page size), got {spec.chunk_kib}K"))
    need = MIN_MEMBERS[spec.level]
    if 1 < spec.disks < need or spec.disks < 1:
        # 1 is allowed: one disk without md, the baseline of a member sweep.
        out.append(("disks", f"RAID{spec.level} needs at least {need} members, got {spec.disks}"))
    if spec.state not in STATES:
        out.append(("state", f"expected one of {', '.join(STATES)}, got {spec.state!r}"))
    elif spec.state != "normal" and (spec.level == "0" or spec.disks == 1):
        what = "one disk" if spec.disks == 1 else "RAID0"
        out.append(("state", f"{what} has no redundancy: it cannot run with a member failed"))
    return out
