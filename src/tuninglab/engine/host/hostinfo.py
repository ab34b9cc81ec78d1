"""Who ran a benchmark, on what: host, tool versions and code revision.

Parsing is kept apart from the commands and /proc reads so that it can be
tested on captured text.
"""

import hashlib
import os
import platform
import re
import socket
import subprocess
from pathlib import Path

from tuninglab import files


def host_info(salt: str) -> dict:
    cpu_model, hypervisor_flag = parse_cpuinfo(_read("/proc/cpuinfo"))
    uname = os.uname()
    return {
        "id": host_id(salt, socket.gethostname()),
        "cpu_model": cpu_model,
        "cores": os.cpu_count(),
        "memory_bytes": parse_meminfo(_read("/proc/meminfo")),
        # systemd-detect-virt exits 1 when it answers "none".
        "virtualization": virtualization(
            _run(["systemd-detect-virt"], ok_codes=(0, 1)), hypervisor_flag),
        "hypervisor_flag": hypervisor_flag,
        "kernel": {"release": uname.release, "version": uname.version,
                   "machine": uname.machine},
    }


def tool_versions() -> dict:
    return {
        "sysbench": parse_sysbench_version(_run(["sysbench", "--version"])),
        "fio": parse_fio_version(_run(["fio", "--version"])),
        "python": platform.python_version(),
    }


def git_revision(repo_dir) -> dict:
    revision = _run(["git", "-C", str(repo_dir), "rev-parse", "--verify", "HEAD"])
    if not revision:  # not a checkout, no commit yet, or no git at all
        return shipped_revision(repo_dir)
    # Untracked files (results, logs) do not change the code that ran.
    status = _run(["git", "-C", str(repo_dir), "status", "--porcelain",
                   "--untracked-files=no"])
    return {"revision": revision.strip(),
            "dirty": None if status is None else bool(status.strip())}


def shipped_revision(repo_dir) -> dict:
    """A tree a fleet run shipped (fleet/ship.py): its archive names the revision it holds."""
    try:
        text = (Path(repo_dir) / files.REVISION_FILE).read_text().strip()
    except OSError:
        return {"revision": None, "dirty": None}
    if not re.fullmatch(r"[0-9a-f]{40}", text):
        return {"revision": None, "dirty": None}
    return {"revision": text, "dirty": False}


# --- parsers -----------------------------------------------------------------

def host_id(salt: str, hostname: str) -> str:
    # Salted so that published results do not reveal the hostname.
    if not isinstance(salt, str) or not salt:
        raise ValueError("host_id needs a non-empty salt string")
    return hashlib.sha256((salt + hostname).encode()).hexdigest()[:16]


def parse_cpuinfo(text: str) -> tuple:
    """(cpu model or None, whether the "hypervisor" flag is set)."""
    fields = {}
    for line in text.splitlines():
        key, sep, value = line.partition(":")
        if sep:
            fields.setdefault(key.strip(), value.strip())
    # "model name" on x86, "Model"/"Hardware" on some ARM boards.
    model = fields.get("model name") or fields.get("Model") or fields.get("Hardware")
    flags = fields.get("flags", "").split()
    return model or None, "hypervisor" in flags


def parse_cpu_list(text: str) -> list[int]:
    """The kernel's CPU list format ("0-3,8,10-11") as CPU numbers."""
    cpus = []
    for part in text.strip().split(","):
        if part:
            low, _, high = part.partition("-")
            cpus.extend(range(int(low), int(high or low) + 1))
    return cpus


def smt_cores(cpu_dir: str = "/sys/devices/system/cpu") -> list[list[int]]:
    """The cores that have more than one hardware thread, each as its threads' CPU numbers
    (empty: no SMT here, or it is switched off)."""
    cores = set()
    for path in sorted(os.listdir(cpu_dir)):
        siblings = os.path.join(cpu_dir, path, "topology", "thread_siblings_list")
        if re.fullmatch(r"cpu\d+", path) and os.path.isfile(siblings):
            cores.add(tuple(parse_cpu_list(_read(siblings))))
    return sorted(list(core) for core in cores if len(core) > 1)


def parse_meminfo(text: str, field: str = "MemTotal"):
    """One /proc/meminfo field in bytes (None if absent)."""
    match = re.search(rf"^{field}:\s+(\d+) kB", text, re.MULTILINE)
    return int(match.group(1)) * 1024 if match else None


def virtualization(detect_virt_output, hypervisor_flag: bool) -> str:
    """systemd-detect-virt's answer if any, else a guess from the CPU flag."""
    if detect_virt_output and detect_virt_output.strip():
        return detect_virt_output.strip()
    return "vm" if hypervisor_flag else "none"


def parse_sysbench_version(text):
    match = re.search(r"sysbench (\d+(?:\.\d+)+)", text or "")
    return match.group(1) if match else None


def parse_fio_version(text):
    match = re.search(r"fio-(\d+(?:\.\d+)+)", text or "")
    return match.group(1) if match else None


# --- I/O -----------------------------------------------------------------------

def _read(path: str) -> str:
    try:
        with open(path) as f:
            return f.read()
    except OSError:  # not Linux, or /proc hidden
        return ""


def _run(argv, ok_codes=(0,)):
    """stdout of a command, or None if it is missing, hangs or fails."""
    try:
        proc = subprocess.run(argv, capture_output=True, text=True, timeout=10)
    except (OSError, subprocess.TimeoutExpired):
        return None
    return proc.stdout if proc.returncode in ok_codes else None
