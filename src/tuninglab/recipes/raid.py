"""The md RAID array a recipe asks for, and what md could not build. Standard library only: the
lab VM's guest imports it."""

from dataclasses import dataclass

from tuninglab import units

# Members each md level needs at least (RAID10 "near 2" works from 2 members). "1+0" and "0+1"
# are nested arrays, the 2004 talk's two software RAID10s: RAID0 striped over RAID1 pairs, and
# RAID1 mirroring two RAID0 halves.
MIN_MEMBERS = {"0": 2, "1": 2, "10": 2, "5": 3, "6": 4, "1+0": 4, "0+1": 4}
NESTED = ("1+0", "0+1")
# md RAID10's layouts of its two copies: near (side by side), far (the second copy in the far
# half of every member), offset (the next chunk row, shifted by a member).
LAYOUTS = ("n2", "f2", "o2")
# The array during the measurement: whole, one member failed, or rebuilding onto a spare.
STATES = ("normal", "degraded", "rebuilding")
PAGE_BYTES = 4096   # md's smallest chunk is the kernel page
KIB = 1024
DEFAULT_MEMBER_SIZE = "2G"   # one lab VM disk without [raid]: the [storage] size, else this


@dataclass(frozen=True)
class ArraySpec:
    level: str        # "0", "1", "10", "5", "6"
    chunk_kib: int    # ignored by RAID1, which has no chunks
    disks: int
    member_size: str  # each member device, e.g. "1G"
    state: str = "normal"
    layout: str = "n2"   # RAID10 only


def array_spec(raid: dict) -> dict:
    """A [raid] table (or one point's, a value swept in) as ArraySpec's fields."""
    chunk = units.size_bytes(raid["chunk"])
    if chunk % 1024:
        raise ValueError(f"chunk {raid['chunk']!r} is not a whole number of KiB")
    return {"level": str(raid["level"]), "chunk_kib": chunk // 1024,
            "disks": int(raid["disks"]), "member_size": str(raid["member_size"]),
            "state": str(raid["state"]), "layout": str(raid.get("layout", "n2"))}


def nested_arrays(spec: ArraySpec) -> list[tuple[str, list[int]]]:
    """A nested array as md builds it, innermost first: (level, the indexes of its parts:
    members for the inner arrays, inner arrays for the outer one)."""
    half = spec.disks // 2
    if spec.level == "1+0":   # mirrored pairs (0,1), (2,3)..., striped
        inner = [("1", [2 * i, 2 * i + 1]) for i in range(half)]
        return inner + [("0", list(range(half)))]
    inner = [("0", list(range(half))), ("0", list(range(half, spec.disks)))]   # two halves
    return inner + [("1", [0, 1])]


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
    if spec.level in NESTED and spec.disks % 2:
        out.append(("disks", f"RAID{spec.level} pairs its members: expected an even number, "
                             f"got {spec.disks}"))
    if spec.layout not in LAYOUTS:
        out.append(("layout", f"expected one of {', '.join(LAYOUTS)}, got {spec.layout!r}"))
    elif spec.layout != "n2" and spec.level != "10":
        out.append(("layout", f"only RAID10 has layouts (got {spec.layout!r} for "
                              f"RAID{spec.level})"))
    if spec.state not in STATES:
        out.append(("state", f"expected one of {', '.join(STATES)}, got {spec.state!r}"))
    elif spec.state != "normal" and spec.level in NESTED:
        out.append(("state", "a nested array runs whole here (state = normal)"))
    elif spec.state != "normal" and (spec.level == "0" or spec.disks == 1):
        what = "one disk" if spec.disks == 1 else "RAID0"
        out.append(("state", f"{what} has no redundancy: it cannot run with a member failed"))
    return out


def member_size(point) -> str:
    """Each disk of a plan point's lab VM run: a member's size, the pool's, or the sandbox's."""
    if point.raid:
        return point.raid["member_size"]
    if point.zfs and point.zfs.get("size"):
        return point.zfs["size"]
    return (point.storage or {}).get("size") or DEFAULT_MEMBER_SIZE


def member_serials(point) -> list[str]:
    """The guest's names for the disks of one plan point: members, then a rebuild's spare."""
    count = point.raid["disks"] if point.raid else 1
    spare = ["lab-spare"] if point.raid and point.raid.get("state") == "rebuilding" else []
    return [f"lab-m{i}" for i in range(count)] + spare
