"""Runs inside the lab VM (`python3 -m tuninglab.engine.lab.guest /job`): build the array from the
member disks, make the filesystem, copy the template datadir onto it, start the server and
measure, then write out/record.json (or out/error.json) on the job disk for the host.

Lines starting with "lab:" on the console are the host's progress output.
"""

import json
import os
import platform
import shutil
import subprocess
import sys
import time
import traceback
from pathlib import Path

from tuninglab import units
from tuninglab.engine.measure import phase as measure
from tuninglab.engine.server import datadir
from tuninglab.engine.server import mysqld as srv
from tuninglab.engine.measure.device_baseline import device_baseline
from tuninglab.engine.host.hostinfo import parse_cpu_list, parse_cpuinfo, parse_meminfo
from tuninglab.engine.lab import raid, zfs
from tuninglab.engine.lab.commands import run as checked
from tuninglab.engine.lab.members import SWAP_SERIAL
from tuninglab.recipes.filesystems import LAB_FILESYSTEMS
from tuninglab.recipes.model import Dataset, Measure, Workload

ARRAY = "/dev/md0"
MOUNT = Path("/mnt/lab")
# How the guest makes each filesystem the lab VM makes (recipes/filesystems.py says which).
MKFS = {"ext4": ["mkfs.ext4", "-q", "-F"], "xfs": ["mkfs.xfs", "-q", "-f"],
        "ext3": ["mkfs.ext3", "-q", "-F"], "ext2": ["mkfs.ext2", "-q", "-F"],
        "jfs": ["mkfs.jfs", "-q"], "reiserfs": ["mkfs.reiserfs", "-q", "-f", "-f"]}


def say(text: str) -> None:
    print(f"lab: {text}", flush=True)


def main(job_dir: Path) -> int:
    out = job_dir / "out"
    out.mkdir(exist_ok=True)
    job = json.loads((job_dir / "job.json").read_text())
    try:
        try:
            record = run(job, job_dir)
        finally:
            wipe(job.get("wipe", []))
    except Exception as exc:  # everything goes back to the host, which explains it
        say(f"error: {exc}")
        (out / "error.json").write_text(json.dumps({
            "error": str(exc), "kind": type(exc).__name__,
            "traceback": traceback.format_exc()[-4000:]}))
        return 1
    (out / "record.json").write_text(json.dumps(record))
    return 0


def run(job: dict, job_dir: Path) -> dict:
    # jfs and reiserfs: only the generic kernel flavour has them (recipes/filesystems.py).
    for module in ("md_mod", "raid0", "raid1", "raid10", "raid456", "xfs", "jfs", "reiserfs"):
        subprocess.run(["modprobe", module], check=False)
    members = devices_by_serial(job["members"])
    memory = set_up_memory(job)
    spec = raid.ArraySpec(**job["raid"]) if job.get("raid") else None
    device = ARRAY if spec and spec.disks > 1 else f"/dev/{members[0]}"
    state = None
    if spec:
        state = build_array(spec, members) if device == ARRAY else raid.single_disk(device)
    if job.get("zfs"):
        storage = zfs.make_pool(job["zfs"], device, MOUNT)
    else:
        storage = make_filesystem(job["storage"], device)
    disk = disk_info(members[0], job.get("fio"))
    say(f"{storage['filesystem']} made; copying the datadir")
    data = MOUNT / "data"
    datadir.clone(job_dir / "template", data)
    os.sync()
    if job.get("zfs"):
        zfs.empty_arc(MOUNT)
    Path("/proc/sys/vm/drop_caches").write_text("3\n")
    w, m, d = Workload(**job["workload"]), Measure(**job["measure"]), Dataset(**job["dataset"])
    members, planned, extra = plan_failure(spec, members, m) if spec else (members, {}, None)
    binary = srv.find(job["mysqld"])
    say(f"starting {binary.label}")
    with srv.Server(binary, Path("/run/lab"), data, job["settings"]) as server:
        effective = server.variables(server.settings)
        say(f"{binary.label} started; measuring")
        summary, series, totals = measure.oltp(server, members, w, m, d, Clock(),
                                               aside=[Path(ARRAY).name] if device == ARRAY
                                               else [],
                                               extra=gauges(extra, job.get("swap") and SwapRates()))
        server.stop(discard=True)
        notes = server.log_notes()
    record = {"effective": effective, "server_log": notes, "summary": summary, "series": series,
              "storage": storage, "guest": {**guest_info(binary), **memory, **disk}}
    if device == ARRAY:
        after = raid.read_back(ARRAY)
        problems = raid.health(spec, after)
        if problems:
            raise RuntimeError("; ".join(problems))
        state.update(after={k: after[k] for k in ("degraded", "array_state")})
    if spec:
        state.update(planned)
        summary.update(device_io(totals, Path(device).name, members, summary["transactions"]))
        record["raid"] = state
    return record


def set_up_memory(job: dict) -> dict:
    """The swap disk (if the host gave one) in use, and vm.swappiness as the job asks."""
    if job.get("swap"):
        [swap] = devices_by_serial([SWAP_SERIAL])
        checked(["mkswap", "-q", f"/dev/{swap}"])
        checked(["swapon", f"/dev/{swap}"])
        say(f"swap on /dev/{swap}")
    Path("/proc/sys/vm/swappiness").write_text(f"{job.get('swappiness', 60)}\n")
    swap = parse_meminfo(Path("/proc/meminfo").read_text(), "SwapTotal")
    return {"swap_bytes": swap, "swappiness": job.get("swappiness", 60)}


def disk_info(name: str, fio: bool) -> dict:
    """The write cache the guest's kernel sees on the first data disk ("write back": it sends
    flushes; "write through": none), and if asked fio's fsyncs per second on the new
    filesystem: what the disk's cache mode does to a synchronous write."""
    info = {"write_cache": Path(f"/sys/block/{name}/queue/write_cache").read_text().strip()}
    if fio:
        say("fio: fsyncs per second and 16K random writes on the new filesystem")
        info["fio"] = device_baseline(MOUNT)
    return info


class SwapRates:
    """Pages swapped in and out per second since the last call (from /proc/vmstat): the
    sampler's gauges, which show whether the server's memory went to swap."""

    def __init__(self):
        self.last = None

    def __call__(self) -> dict:
        counts = dict(line.split() for line in Path("/proc/vmstat").read_text().splitlines())
        now = (time.monotonic(), int(counts["pswpin"]), int(counts["pswpout"]))
        last, self.last = self.last, now
        if last is None:
            return {"swap_in_per_s": None, "swap_out_per_s": None}
        seconds = max(now[0] - last[0], 1e-6)
        return {"swap_in_per_s": round((now[1] - last[1]) / seconds),
                "swap_out_per_s": round((now[2] - last[2]) / seconds)}


def gauges(*sources):
    """One callable for the sampler from several (None ones left out), or None."""
    sources = [s for s in sources if s]
    return (lambda: {k: v for source in sources for k, v in source().items()}) if sources else None


def wipe(serials: list[str]) -> None:
    """Named devices are left without the array's, pool's or filesystem's signatures: a
    device still marked as a RAID or ZFS member is refused by the next run's safety check."""
    if not serials:
        return
    subprocess.run(["umount", str(MOUNT)], capture_output=True)
    if shutil.which("zpool"):
        subprocess.run(["zpool", "destroy", "-f", zfs.POOL], capture_output=True)
    for array in [ARRAY] + [f"/dev/md{i}" for i in range(1, 9)]:   # outer first, then nested
        subprocess.run(["mdadm", "--stop", array], capture_output=True)
    for name in devices_by_serial(serials):
        for part in sorted(Path(f"/sys/block/{name}").glob(f"{name}*")) + [Path(name)]:
            checked(["wipefs", "--all", "--quiet", f"/dev/{part.name}"])
    say(f"signatures wiped from {len(serials)} named devices")


def build_array(spec, members: list[str]) -> dict:
    layout = f", layout {spec.layout}" if spec.level == "10" else ""
    say(f"RAID{spec.level} over {len(members)} members, chunk {spec.chunk_kib}K{layout}")
    state = raid.create(spec, ARRAY, [f"/dev/{m}" for m in members])
    diffs = raid.matches(spec, state)
    if diffs:
        raise RuntimeError("the array is not what was asked: " + "; ".join(diffs))
    return state


def plan_failure(spec, members: list[str], m) -> tuple[list[str], dict, object]:
    """A degraded array loses its last member; a rebuilding one also gets a spare, onto which
    md rebuilds at a fixed rate that lasts beyond the measurement. Returns the members that
    carry the array during the measurement, what was done, and the rebuild's progress gauge."""
    if spec.state == "normal":
        return members, {"state": "normal"}, None
    failed = members[-1]
    raid.fail_and_remove(ARRAY, f"/dev/{failed}")
    say(f"member {failed} failed and removed")
    done = {"state": spec.state, "failed_member": failed}
    if spec.state == "degraded":
        return members[:-1], done, None
    [spare] = devices_by_serial(["lab-spare"])
    rate = rebuild_rate_kib_s(units.size_bytes(spec.member_size), m.warmup_bound + m.duration)
    for limit in ("speed_limit_min", "speed_limit_max"):  # a fixed rate, whatever the load
        Path(f"/proc/sys/dev/raid/{limit}").write_text(f"{rate}\n")
    raid.add_spare(ARRAY, f"/dev/{spare}")
    say(f"rebuilding onto {spare} at {rate} KiB/s")
    done.update(spare=spare, rebuild_rate_kib_s=rate)
    return members[:-1] + [spare], done, lambda: raid.sync_progress(ARRAY)


def rebuild_rate_kib_s(member_bytes: int, workload_s: float) -> int:
    """A rate at which rebuilding one member takes about twice the workload plus a minute of
    server start and copy, so the measurement never sees it finish."""
    return max(1000, int(member_bytes / 1024 / (2 * workload_s + 60)))


def devices_by_serial(serials: list[str], sys_block: Path = Path("/sys/block")) -> list[str]:
    """Device names (vdb, vdc, ...) of the member disks, in the order the host gave them."""
    found = {}
    for serial_file in sys_block.glob("vd*/serial"):
        found[serial_file.read_text().strip()] = serial_file.parent.name
    missing = [s for s in serials if s not in found]
    if missing:
        raise RuntimeError(f"member disks {', '.join(missing)} not found in the VM")
    return [found[s] for s in serials]


def make_filesystem(storage: dict, device: str) -> dict:
    fs = storage["filesystem"]
    if fs not in LAB_FILESYSTEMS:
        raise RuntimeError(f"the lab VM makes {', '.join(LAB_FILESYSTEMS)}, not {fs}")
    subprocess.run(MKFS[fs] + list(storage.get("mkfs_options") or []) + [device], check=True,
                   capture_output=True)
    MOUNT.mkdir(parents=True, exist_ok=True)
    options = storage.get("mount_options") or "defaults"
    subprocess.run(["mount", "-t", fs, "-o", options, device, str(MOUNT)], check=True,
                   capture_output=True)
    mounted = next(line.split() for line in Path("/proc/mounts").read_text().splitlines()
                   if line.split()[1] == str(MOUNT))
    return {"filesystem": mounted[2], "mount_options": mounted[3], "device": device}


def device_io(totals: dict, array: str, members: list[str], transactions: int) -> dict:
    """IO per transaction at the array and at each member: what RAID does to each page write.
    Without md (one disk) the disk is both."""
    return {"array_io": measure.io_per_transaction({array: totals[array]}, transactions),
            "member_io": {m: measure.io_per_transaction({m: totals[m]}, transactions)
                          for m in members}}


def guest_info(binary) -> dict:
    sysbench = subprocess.run(["sysbench", "--version"], capture_output=True, text=True)
    vulnerabilities = Path("/sys/devices/system/cpu/vulnerabilities")
    cpuinfo = Path("/proc/cpuinfo").read_text()
    cpu_model, _ = parse_cpuinfo(cpuinfo)
    return {"kernel": platform.release(), "cpus": os.cpu_count(), "cpu_model": cpu_model,
            "page_table_isolation": page_table_isolation(cpuinfo),
            "cmdline": Path("/proc/cmdline").read_text().strip(),
            "vulnerabilities": {p.name: p.read_text().strip()
                                for p in sorted(vulnerabilities.glob("*"))},
            "memory_bytes": os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES"),
            "threads_per_core": threads_per_core(),
            "server": binary.describe(), "sysbench": sysbench.stdout.strip()}


def page_table_isolation(cpuinfo: str) -> bool:
    """Whether the kernel isolates its page tables from user space's: the "pti" flag it sets in
    /proc/cpuinfo when it does. Its vulnerabilities/meltdown file says so only on a CPU it
    thinks affected by Meltdown; pti=on isolates them on any CPU."""
    flags = next((line.partition(":")[2].split() for line in cpuinfo.splitlines()
                  if line.startswith("flags")), [])
    return "pti" in flags


def threads_per_core(cpu: Path = Path("/sys/devices/system/cpu/cpu0/topology")) -> int:
    """The hardware threads the guest kernel sees in cpu0's core: the topology as booted."""
    return len(parse_cpu_list((cpu / "thread_siblings_list").read_text()))


class Clock:
    """Progress for the host: a line per phase and one every few seconds."""

    def __init__(self, every: float = 5.0):
        self.every, self.last = every, 0.0

    def phase(self, name, seconds):
        self.name = name
        say(f"{name} {seconds:.0f}s")

    def tick(self, interval):
        if time.monotonic() - self.last >= self.every:
            self.last = time.monotonic()
            say(f"{self.name} {interval.t:.0f}s: {interval.tps:,.0f} tps")

    def scanned(self, table, tables, elapsed):
        say(f"scan: table {table}/{tables} after {elapsed:.1f}s")


if __name__ == "__main__":
    sys.exit(main(Path(sys.argv[1])))
