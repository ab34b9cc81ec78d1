"""The [lab] table: the lab VM as a recipe boots it (kernel, disks' write cache, CPU topology,
memory and swap) and the values each key takes (which filesystems it makes: filesystems.py).
Standard library only, as the model: the guest's code imports it with the engine's."""

from tuninglab import units
from tuninglab.recipes.reader import Reader

# The lab VM as booted: a Debian kernel flavour, CPU vulnerability mitigations, page-table
# isolation (the kernel's pti=: auto leaves it to the kernel, as mitigations), the write cache
# its data disks show (qemu's cache modes), its two vCPUs as two cores or as one core's two
# hardware threads, its memory, a swap disk (0: none) and vm.swappiness.
LAB_DEFAULTS = {"kernel": "cloud-amd64", "kernel_from": "bookworm", "mitigations": "auto",
                "pti": "auto", "disk_cache": "none", "topology": "cores", "memory": "2G", "swap": "0",
                "swappiness": "60"}
LAB_KEYS = set(LAB_DEFAULTS)
KERNEL_FLAVOURS = ("cloud-amd64", "amd64", "rt-amd64")
# Where the kernel comes from: Debian 12's own (6.1), or bookworm-backports (a newer release).
KERNEL_SOURCES = ("bookworm", "bookworm-backports")
MITIGATIONS = ("auto", "off")
# pti=on isolates the kernel's page tables from user space's even on a CPU the kernel thinks
# safe from Meltdown: the 2004 4:4 split's cost (a page-table switch at every syscall) today.
PTI = ("auto", "on", "off")
# none: a write cache that flushes reach (O_DIRECT on the host); directsync: no write cache
# (every write durable before it completes); unsafe: a write cache that ignores flushes.
DISK_CACHES = ("none", "writeback", "writethrough", "directsync", "unsafe")
TOPOLOGIES = ("cores", "threads")
LAB_MEMORY = ("512M", "16G")   # the guest's memory: below this the server does not start


def image_name(kernel: str, kernel_from: str = "bookworm", zfs: bool = False) -> str:
    """The lab VM image a point boots (engine/lab/image.py builds it): "cloud-amd64",
    "amd64-bpo" (the kernel from bookworm-backports), "cloud-amd64-zfs"."""
    return kernel + ("-bpo" if kernel_from != "bookworm" else "") + ("-zfs" if zfs else "")


def parse_lab(t: Reader) -> tuple:
    t.only(*sorted(LAB_KEYS))
    out = tuple((key, str(t.get(key, (str, int), default)))
                for key, default in LAB_DEFAULTS.items())
    for key, value in out:
        problem = lab_problem(key, value)
        if problem:
            t.fail(key, problem)
    values = dict(out)
    if values["pti"] == "on" and values["mitigations"] == "off":
        t.fail("pti", "pti = \"on\" with mitigations = \"off\": the kernel's mitigations=off "
                      "turns page-table isolation off whatever pti= says")
    return out


def lab_problem(key: str, value: str) -> str | None:
    """What is wrong with one [lab] value (as a string), or None."""
    choices = {"kernel": KERNEL_FLAVOURS, "kernel_from": KERNEL_SOURCES, "mitigations": MITIGATIONS,
               "pti": PTI, "disk_cache": DISK_CACHES, "topology": TOPOLOGIES}
    if key in choices:
        allowed = choices[key]
        return None if value in allowed else f"expected one of {', '.join(allowed)}, got {value!r}"
    if key == "swappiness":
        number = units.whole_number(value)
        ok = number is not None and number <= 200
        return None if ok else f"expected vm.swappiness from 0 to 200, got {value!r}"
    try:
        size = units.size_bytes(value)
    except ValueError as exc:
        return str(exc)
    low, high = (units.size_bytes(v) for v in LAB_MEMORY)
    if key == "memory" and not low <= size <= high:
        return f"expected the VM's memory from {LAB_MEMORY[0]} to {LAB_MEMORY[1]}, got {value!r}"
    if key == "swap" and size and size < 16 << 20:
        return f"expected 0 (no swap) or a swap disk of at least 16M, got {value!r}"
    return None


def check_lab_values(sweep, sweep_table: Reader) -> None:
    for value in sweep.values:
        problem = lab_problem(sweep.key, value)
        if problem:
            sweep_table.fail("values", f"{value!r}: {problem}")
