"""md RAID arrays: the spec a recipe gives, its checks, the mdadm command, and the state read
back from the kernel. Stdlib only: the lab VM's guest imports it."""

import re
import subprocess
from pathlib import Path

from tuninglab.engine.lab.commands import run
from tuninglab.recipes.raid import KIB, NESTED, ArraySpec, nested_arrays


def single_disk(device: str) -> dict:
    """The state of a 1-member point: no md, the filesystem on the disk itself."""
    return {"device": device, "level": "none", "chunk_bytes": None, "raid_disks": 1,
            "layout": None, "array_state": None, "degraded": 0, "detail": {}}


def create_command(spec: ArraySpec, array: str, members: list[str],
                   level: str | None = None) -> list[str]:
    """Fresh members read as zeros, so every level's parity or mirror already matches:
    --assume-clean skips an initial resync that would run under the measurement. level: one
    part of a nested array (its own level), else the spec's."""
    level = level or spec.level
    cmd = ["mdadm", "--create", array, "--run", "--quiet", "--metadata=1.2",
           f"--level={level}", f"--raid-devices={len(members)}", "--assume-clean"]
    if level != "1":
        cmd.append(f"--chunk={spec.chunk_kib}K")
    if level == "10":
        cmd.append(f"--layout={spec.layout}")
    return cmd + members


def create(spec: ArraySpec, array: str, members: list[str]) -> dict:
    """The array on the members; a nested one (1+0, 0+1) as its inner arrays (md1, md2, ...)
    with the outer one, array, over them."""
    if len(members) != spec.disks:
        raise ValueError(f"RAID{spec.level} over {spec.disks} members, but {len(members)} "
                         "devices were given")
    if spec.level not in NESTED:
        run(create_command(spec, array, members))
        return read_back(array)
    *inner, (outer_level, _) = nested_arrays(spec)
    parts = inner_names(spec)
    for name, (level, indexes) in zip(parts, inner):
        run(create_command(spec, name, [members[i] for i in indexes], level))
    run(create_command(spec, array, parts, outer_level))
    state = read_back(array)
    state["inner"] = [read_back(name) for name in parts]
    return state


def inner_names(spec: ArraySpec) -> list[str]:
    """The inner arrays of a nested spec: /dev/md1, /dev/md2, ... (none for a plain one)."""
    count = len(nested_arrays(spec)) - 1 if spec.level in NESTED else 0
    return [f"/dev/md{i}" for i in range(1, count + 1)]


def read_back(array: str, sys_block: Path = Path("/sys/block")) -> dict:
    """What the kernel built: level, chunk, members, state, and mdadm's own report."""
    md = sys_block / Path(array).name / "md"

    def attr(name):
        path = md / name
        return path.read_text().strip() if path.exists() else None

    chunk = attr("chunk_size")
    try:
        detail = subprocess.run(["mdadm", "--detail", array], capture_output=True,
                                text=True).stdout
    except FileNotFoundError:  # no mdadm: the kernel's own report above still stands
        detail = ""
    return {"device": array, "level": attr("level"), "chunk_bytes": int(chunk) if chunk else None,
            "raid_disks": int(attr("raid_disks") or 0), "layout": attr("layout"),
            "array_state": attr("array_state"), "degraded": int(attr("degraded") or 0),
            "detail": parse_detail(detail)}


def parse_detail(text: str) -> dict:
    """`mdadm --detail` 'Key : value' lines, e.g. {'Raid Level': 'raid10', ...}."""
    out = {}
    for line in text.splitlines():
        match = re.match(r"\s*([A-Z][A-Za-z ]+?)\s+:\s+(.*\S)\s*$", line)
        if match:
            out[match.group(1)] = match.group(2)
    return out


def matches(spec: ArraySpec, state: dict) -> list[str]:
    """Differences between what was asked and what the kernel reports (empty if none)."""
    if spec.level in NESTED:
        return _nested_matches(spec, state)
    diffs = []
    if state["level"] != f"raid{spec.level}":
        diffs.append(f"level {state['level']}, asked raid{spec.level}")
    if state["raid_disks"] != spec.disks:
        diffs.append(f"{state['raid_disks']} members, asked {spec.disks}")
    if spec.level != "1" and state["chunk_bytes"] != spec.chunk_kib * KIB:
        diffs.append(f"chunk {state['chunk_bytes']} bytes, asked {spec.chunk_kib * KIB}")
    layout = state["detail"].get("Layout")
    if spec.level == "10" and layout and layout != LAYOUT_WORDS[spec.layout]:
        diffs.append(f"layout {layout}, asked {LAYOUT_WORDS[spec.layout]}")
    return diffs


# How mdadm --detail names each RAID10 layout.
LAYOUT_WORDS = {"n2": "near=2", "f2": "far=2", "o2": "offset=2"}


def _nested_matches(spec: ArraySpec, state: dict) -> list[str]:
    """Each part of a nested array against its own level and member count."""
    diffs = []
    parts = state.get("inner", []) + [state]
    for (level, indexes), part in zip(nested_arrays(spec), parts):
        if part["level"] != f"raid{level}" or part["raid_disks"] != len(indexes):
            diffs.append(f"{part['device']}: {part['level']} over {part['raid_disks']}, asked "
                         f"raid{level} over {len(indexes)}")
    return diffs


def health(spec: ArraySpec, state: dict) -> list[str]:
    """What went wrong with the array during the run that the recipe did not plan."""
    planned = 0 if spec.state == "normal" else 1
    if state["degraded"] > planned:
        return [f"{state['degraded']} member(s) failed during the run, {planned} planned "
                f"(array state {state['array_state']})"]
    return []


# --- planned failures ------------------------------------------------------------------------


def fail_and_remove(array: str, member: str) -> None:
    """Take one member out as a failed disk would be (mdadm --fail, then --remove)."""
    for action in ("--fail", "--remove"):
        run(["mdadm", array, action, member])


def add_spare(array: str, spare: str) -> None:
    """Add a fresh disk: md starts rebuilding the missing member onto it at once."""
    run(["mdadm", array, "--add", spare])


def sync_progress(array: str, sys_block: Path = Path("/sys/block")) -> dict:
    """Rebuild progress: the share done (0 to 100, None when no resync runs) and its speed."""
    md = sys_block / Path(array).name / "md"
    done = (md / "sync_completed").read_text().strip()
    speed = (md / "sync_speed").read_text().strip()
    if "/" not in done:   # "none" when idle
        return {"resync_pct": None, "resync_kib_s": None}
    current, total = (int(x) for x in done.split("/"))
    return {"resync_pct": round(100.0 * current / total, 2) if total else None,
            "resync_kib_s": int(speed) if speed.isdigit() else None}
