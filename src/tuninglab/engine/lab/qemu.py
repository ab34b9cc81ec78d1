"""Booting the lab VM: the qemu command line, the accelerator (KVM when it works, else TCG),
the serial console streamed to a log and to the caller, and a hard time limit. The VM never
outlives the call: it is killed on every exit path, and with the runner if that is killed."""

import json
import os
import re
import selectors
import shutil
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path

from tuninglab.engine.server.mysqld import die_with_parent
from tuninglab.errors import UserError

KVM_PROBE_S = 30          # a KVM boot that has not finished by then never will, here
# Kernel to init takes 2-4 s under TCG; a guest silent for this long is stuck (seen once in
# about a hundred TCG boots here: qemu spinning, no console output). It is killed and retried.
STALL_S = 90
CONSOLE_PREFIX = "lab:"   # progress lines of the guest's job, shown to the user


class Stalled(TimeoutError):
    """The guest never reached its init."""


@dataclass(frozen=True)
class Disk:
    path: Path
    serial: str
    snapshot: bool = False   # writes go to a throwaway overlay (the root image)
    size: int | None = None  # show the guest only this many bytes from the start
    # qemu's cache mode. none: the guest sees a write cache whose flushes reach the host's disk
    # (O_DIRECT, so member IO skips the host's page cache); directsync: no write cache;
    # unsafe: a write cache that ignores flushes.
    cache: str = "none"


@dataclass
class Boot:
    accelerator: str
    returncode: int
    seconds: float
    console: Path
    lines: list

    @property
    def boot_seconds(self) -> float | None:
        """Guest uptime when its init started (from "lab-init: up 2.46s ...")."""
        for line in self.lines:
            match = re.match(r"lab-init: up ([0-9.]+)s", line)
            if match:
                return float(match.group(1))
        return None

    @property
    def finished(self) -> bool:
        """The guest's init reached its end and powered off."""
        return any(line.startswith("lab-init: down") for line in self.lines)


def executable() -> str:
    found = shutil.which("qemu-system-x86_64")
    if not found:
        raise UserError("the lab VM needs qemu-system-x86_64 (`apt-get install "
                        "qemu-system-x86`)")
    return found


def cpu_model(accelerator: str, smt: bool = False, newer_kernel: bool = False) -> str:
    """The guest's CPU: the host's under KVM, else qemu's "max", the same at every point of an
    experiment. smt: an experiment that shows the guest hardware threads. TCG's "max" CPU says
    it is AMD's, whose thread topology Linux reads from a CPUID leaf TCG lacks: the guest then
    sees one thread per core whatever -smp says, so those experiments get Intel's vendor
    string (whose leaves TCG has). newer_kernel: an experiment that boots bookworm-backports'
    kernel. Its slab allocator swaps per-CPU pairs with a gs-relative CMPXCHG16B, which this
    qemu's TCG (7.2) turned into double faults; without the cx16 flag the kernel takes its
    locked path instead."""
    if accelerator == "kvm":
        return "host"
    return "max" + (",vendor=GenuineIntel" if smt else "") + (",-cx16" if newer_kernel else "")


def command(image, disks, accelerator: str, memory_mib: int = 2048, cpus: int = 2,
            kernel_args: str = "", topology: str = "cores", cpu: str = "") -> list:
    """topology: the vCPUs as cores of one socket, or as hardware threads of one core. cpu:
    the qemu CPU model (default: cpu_model's plain one)."""
    cpu = cpu or cpu_model(accelerator)
    shape = f"cores={cpus},threads=1" if topology == "cores" else f"cores=1,threads={cpus}"
    cmd = [executable(), "-accel", accelerator, "-cpu", cpu, "-smp", f"{cpus},sockets=1,{shape}",
           "-m", str(memory_mib), "-nodefaults", "-display", "none", "-no-reboot",
           "-serial", "stdio", "-nic", "none", "-kernel", str(image.kernel),
           "-initrd", str(image.initrd),
           "-append", f"console=ttyS0 quiet panic=-1 root=/dev/vda {kernel_args}".strip()]
    for n, disk in enumerate([Disk(image.root, "lab-root", snapshot=True)] + list(disks)):
        opts = [f"file={disk.path}", "if=none", f"id=d{n}", "format=raw",
                "snapshot=on" if disk.snapshot else f"cache={disk.cache}"]
        if disk.size:
            opts.append(f"size={disk.size}")
        cmd += ["-drive", ",".join(opts),
                "-device", f"virtio-blk-pci,drive=d{n},serial={disk.serial}"]
    return cmd


def boot(image, disks, accelerator: str, console: Path, timeout: float, on_line=None,
         pidfile: Path | None = None, memory_mib: int = 2048, kernel_args: str = "",
         topology: str = "cores", cpu: str = "") -> Boot:
    """Run the VM to its power-off; raise if it takes longer than timeout seconds."""
    cmd = command(image, disks, accelerator, memory_mib, kernel_args=kernel_args,
                  topology=topology, cpu=cpu)
    started = time.monotonic()
    lines = []
    with open(console, "w") as log:
        proc = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                stderr=subprocess.STDOUT, start_new_session=True,
                                preexec_fn=die_with_parent)
        if pidfile:
            pidfile.write_text(f"{proc.pid}\n")
        try:
            _stream(proc, log, lines, on_line, started + timeout, started + STALL_S)
        finally:
            if proc.poll() is None:
                proc.kill()
            proc.wait()
            if pidfile:
                pidfile.unlink(missing_ok=True)
    return Boot(accelerator, proc.returncode, time.monotonic() - started, console, lines)


def _stream(proc, log, lines, on_line, deadline, up_deadline) -> None:
    """Console lines to the log (with the host's seconds since power-on) and to on_line."""
    started = time.monotonic()
    sel = selectors.DefaultSelector()
    sel.register(proc.stdout, selectors.EVENT_READ)
    pending = b""
    while True:
        left = deadline - time.monotonic()
        if left <= 0:
            raise TimeoutError("the lab VM did not power off in time")
        if time.monotonic() > up_deadline and not any(l.startswith("lab-init:") for l in lines):
            raise Stalled(f"the lab VM did not reach its init within {STALL_S}s")
        if not sel.select(timeout=min(left, 1.0)):
            continue
        chunk = os.read(proc.stdout.fileno(), 65536)
        if not chunk:
            return
        pending += chunk
        *complete, pending = pending.split(b"\n")
        for raw in complete:
            line = raw.decode(errors="replace").rstrip("\r")
            log.write(f"+{time.monotonic() - started:6.1f}s {line}\n")
            lines.append(line)
            if on_line and line.startswith(CONSOLE_PREFIX):
                on_line(line[len(CONSOLE_PREFIX):].strip())
        log.flush()


def kvm_usable() -> bool:
    return os.access("/dev/kvm", os.R_OK | os.W_OK)


def accelerator(image, workdir: Path, say=print) -> str:
    """KVM if a probe boot under it finishes in time, else TCG; the answer is cached for each
    host kernel, qemu and image. TUNINGLAB_VM_ACCEL=kvm|tcg overrides it."""
    forced = os.environ.get("TUNINGLAB_VM_ACCEL")
    if forced:
        if forced not in ("kvm", "tcg"):
            raise UserError(f"TUNINGLAB_VM_ACCEL={forced}: expected kvm or tcg")
        return forced
    if not kvm_usable():
        return "tcg"
    key = f"{os.uname().release} {executable()} {image.dir.name}"
    known = _probed(workdir)
    if key in known:
        return known[key]
    say(f"lab VM: trying KVM (up to {KVM_PROBE_S}s)")
    chosen = "kvm" if probe(image, "kvm", Path(workdir) / "vm") else "tcg"
    if chosen == "tcg":
        say("lab VM: KVM cannot boot the lab kernel here; using TCG (software emulation)")
    _cache_path(workdir).write_text(json.dumps({**known, key: chosen}, indent=1) + "\n")
    return chosen


def _cache_path(workdir: Path) -> Path:
    return Path(workdir) / "vm" / "accelerator.json"


def _probed(workdir: Path) -> dict:
    """{host kernel, qemu and image: the accelerator a probe chose} from earlier runs."""
    try:
        known = json.loads(_cache_path(workdir).read_text())
    except (OSError, ValueError):
        return {}
    # A file of the earlier one-probe format ({"key": ..., "accelerator": ...}) knows nothing.
    return known if isinstance(known, dict) and "key" not in known else {}


def known_accelerator(workdir: Path) -> str | None:
    """The accelerators earlier probes chose here (e.g. "tcg"), if any."""
    return ", ".join(sorted(set(_probed(workdir).values()))) or None


def probe(image, accel: str, where: Path, timeout: float = KVM_PROBE_S) -> Boot | None:
    """One boot with no job: the lab VM's boot time, or None if it does not finish."""
    where.mkdir(parents=True, exist_ok=True)
    try:
        result = boot(image, [], accel, where / f"probe-{accel}.log", timeout,
                      cpu=cpu_model(accel, newer_kernel=image.manifest.get("backports", False)))
    except TimeoutError:
        return None
    return result if result.finished else None
