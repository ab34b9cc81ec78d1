"""A result's host class: what the hardware is (CPU model and cores, memory, virtualisation, the
kind of storage and its flush speed band), not a random id. Every VM of the kind the project
runs on is one class, named for what it is; results from one class pool into one verdict
(sets.py) and are one series on a chart. A contributed result's class is its own beside the
project's, and a result measured inside the lab VM names the VM before the host it ran on; a
duet's, its servers' half of the machine (each answers for half of it, not for the whole)."""

import math
import re
from dataclasses import dataclass

from tuninglab.results.result import Result

# The mark every contributed class and series name begins with (describe.host_name too).
CONTRIBUTED = "contributed: "

# The device baseline's fsyncs per second, in bands wide enough that one kind of machine stays in
# one band from day to day (the project's VMs measured 1,000 to 11,000), narrow enough to tell a
# disk that honours each flush from a write cache that acknowledges it.
FLUSH_BANDS = ((300, "flushes under 300/s"), (30_000, "flushes 300-30,000/s"),
               (math.inf, "flushes over 30,000/s"))
DISK_KINDS = (("nvme", "NVMe disk"), ("vd", "virtio disk"), ("xvd", "Xen disk"),
              ("mmcblk", "SD/eMMC"), ("md", "software RAID"))


@dataclass(frozen=True)
class HostClass:
    key: str           # stable text: equal keys pool together
    name: str          # what a reader sees
    short: str         # a chart legend's: without the flush band (the hover says it)
    contributed: bool
    lab: bool          # measured inside the lab VM
    duet: bool = False  # each server on half the machine (engine/run/duet.py)


def _flush_band(r: Result) -> str:
    fsyncs = r.device("fsync_per_s")
    if fsyncs is None:
        return "device not measured"
    return next(name for bound, name in FLUSH_BANDS if fsyncs < bound)


def _disk_kind(r: Result) -> str:
    storage = r.raw.get("storage") or {}
    disk = str(storage.get("disk") or storage.get("device") or "")
    kind = next((name for prefix, name in DISK_KINDS if disk.startswith(prefix)), None)
    if kind:
        return kind
    rotational = storage.get("rotational")
    return {True: "rotating disk", False: "solid-state disk"}.get(rotational, "disk")


def machine_parts(doc) -> dict:
    """What a class is made of, part by part (None: not recorded): CPU, cores, memory, VM or
    not, the kind of disk. The class's name is made of them, and `invoke advise` compares a
    host with each class by them."""
    r = Result.of(doc)
    host, virt = r.host, r.host.get("virtualization")
    memory = host.get("memory_bytes")
    return {"CPU": r.cpu_model or None, "cores": host.get("cores"),
            "memory": f"{memory / 2**30:.0f} GiB" if memory else None,
            "VM": bool(virt and virt != "none"), "disk": _disk_kind(r)}


def hardware(r: Result) -> list[str]:
    """CPU, cores and memory, as far as the result records them."""
    p = machine_parts(r)
    return [p["CPU"] or "unknown CPU"] + ([f"{p['cores']} cores"] if p["cores"] else []) \
        + ([p["memory"]] if p["memory"] else [])


def _machine(r: Result) -> list[str]:
    """CPU, cores, memory, VM or not, and the kind of disk."""
    p = machine_parts(r)
    return hardware(r) + (["VM"] if p["VM"] else []) + [p["disk"]]


def _lab_part(r: Result) -> str:
    """The lab VM the runs measured in: accelerator, guest CPU and vCPUs."""
    labs = r.labs  # only called for a result with points
    accel = "/".join(sorted({str(lab.get("accelerator", "?")).upper() for lab in labs}))
    cpus = "/".join(sorted({str(lab.get("cpus")) for lab in labs if lab.get("cpus")}))
    model = " / ".join(sorted({lab["cpu_model"] for lab in labs if lab.get("cpu_model")}))
    return ", ".join(x for x in (f"lab VM ({accel})", model, cpus and f"{cpus} vCPUs") if x)


def _duet_part(r: Result) -> str:
    """A duet's servers (engine/run/duet.py): each on half the host's CPUs."""
    cores = r.host.get("cores")
    return f"duet, {cores // 2} of {cores} CPUs a server" if cores else \
        "duet, half the CPUs a server"


def host_class(doc: dict, duet: bool | None = None) -> HostClass:
    """The result's host class; duet: that of a duet on its machine (True) or of the whole
    machine (False) instead of the result's own (a calibration record holds A/As of both)."""
    r = Result.of(doc)
    short = ", ".join(_machine(r))
    virt = r.host.get("virtualization")
    name = ", ".join([short.replace(", VM,", f", VM ({virt}),")] + [_flush_band(r)])
    lab = "points" in r.raw and bool(r.labs)  # a calibration record has no points
    if lab:
        name, short = (f"{_lab_part(r)} on {x}" for x in (name, short))
    duet = r.design == "duet" if duet is None else duet
    if duet:   # each server had half the machine: another question's class
        name, short = (f"{_duet_part(r)} on {x}" for x in (name, short))
    if r.contributed:
        name = CONTRIBUTED + name
    key = ("contributed|" if r.contributed else "") + name
    return HostClass(key, name, short, r.contributed, lab, duet)


def server_of(doc: dict) -> str:
    """The server's flavour and major version: "mariadb 10.11"."""
    server = Result.of(doc).raw["server"]
    return server_name(server.get("flavor", "?"), str(server.get("version", "?")))


def server_name(flavor: str, version: str) -> str:
    """A server as evidence sets name it: its flavour and major version ("mariadb 10.11")."""
    return f"{flavor} {'.'.join(version.split('.')[:2])}"


def runs_on(cls: HostClass, machine: HostClass) -> bool:
    """Whether results of a class ran on a machine of the given (native) class: the class itself,
    or a lab VM on it; a contributed class only on a contributed machine."""
    if cls.contributed != machine.contributed:
        return False
    if not cls.lab:
        return cls.key == machine.key
    return cls.name.endswith(" on " + machine.name.removeprefix("contributed: "))


# --- a class in a DBA's words ------------------------------------------------------------------

# The kind of disk as a DBA names it ("a virtio disk", not "vd"); a virtio disk says nothing of
# the medium behind it (its rotational flag is the hypervisor's guess), so it stays a disk.
DISK_WORDS = {"NVMe disk": "an NVMe disk", "virtio disk": "a virtio disk",
              "Xen disk": "a Xen disk", "SD/eMMC": "an SD card or eMMC",
              "software RAID": "a software RAID array", "rotating disk": "a spinning disk",
              "solid-state disk": "an SSD", "disk": "a disk"}
# Only the flush bands that tell a DBA something about the disk: the middle one is what any
# SSD or cloud volume that honours flushes does, and adds nothing to the words.
FLUSH_WORDS = {FLUSH_BANDS[0][1]: "whose flushes are slow (under 300 a second)",
               FLUSH_BANDS[2][1]: "whose flushes return at once (a write cache)"}


def in_words(doc, duet: bool | None = None) -> str:
    """The class of a result (as host_class names it, duet likewise) in the words a DBA uses:
    "a 2-core AMD EPYC VM with 24 GiB and a virtio disk", "an emulated 2-vCPU VM (QEMU
    without KVM) inside ...", "half of a 2-core ... (two servers side by side, 1 core each)",
    "a contributor's ...". Made from the same parts as the class's name (machine_parts, the
    lab VM's record, the flush band), never from its text."""
    r = Result.of(doc)
    p = machine_parts(r)
    cores = f"{p['cores']}-core " if p["cores"] else ""
    cpu = f"{_cpu_words(p['CPU'])} " if p["CPU"] else ""
    kind = "VM" if p["VM"] or r.host.get("hypervisor_flag") else "machine"
    memory = f" with {p['memory']} and " if p["memory"] else " with "
    flush = FLUSH_WORDS.get(_flush_band(r), "")
    words = (f"a {cores}{cpu}{kind}{memory}{DISK_WORDS.get(p['disk'], 'a disk')}"
             f"{' ' + flush if flush else ''}")
    if "points" in r.raw and r.labs:
        words = f"{_lab_words(r)} inside {words}"
    if r.design == "duet" if duet is None else duet:
        each = p["cores"] // 2 if p["cores"] else 0
        half = f", {each} core{'s' * (each != 1)} each" if each else ""
        words = f"half of {words} (two servers side by side{half})"
    if not r.contributed:
        return words
    return f"a contributor's {words[2:]}" if words.startswith("a ") else \
        f"a contributor's machine: {words}"


def _cpu_words(model: str) -> str:
    """A CPU model without its marks and filler: "Intel(R) Xeon(R) Processor" -> "Intel Xeon"."""
    words = re.sub(r"\((?:R|TM)\)|\bCPU\b.*|\bProcessor\b", "", model, flags=re.I)
    return " ".join(words.split()) or model


def _lab_words(r: Result) -> str:
    """The lab VM in words: "an emulated 2-vCPU VM (QEMU without KVM)"."""
    labs = r.labs
    emulated = any(lab.get("accelerator") == "tcg" for lab in labs)
    cpus = "/".join(sorted({str(lab.get("cpus")) for lab in labs if lab.get("cpus")}))
    size = f"{cpus}-vCPU " if cpus else ""
    return (f"an emulated {size}VM (QEMU without KVM)" if emulated
            else f"a {size}VM (QEMU with KVM)")
