"""`invoke lab.check`: what this host can do for the OS lab, and how to get what it lacks."""

import os
import shutil
from dataclasses import dataclass
from pathlib import Path

from tuninglab.engine.host.devices import storage_info
from tuninglab.engine.storage.sandbox import MKFS, have_tool


@dataclass(frozen=True)
class Capability:
    name: str
    ok: bool
    detail: str


def _kernel_filesystems() -> set[str]:
    with open("/proc/filesystems") as f:
        return {line.split()[-1] for line in f if line.strip()}


def _schedulers(disk: str | None) -> str:
    if not disk:
        return "no block device (tmpfs or overlay)"
    path = Path(f"/sys/block/{disk}/queue/scheduler")
    return path.read_text().strip() if path.exists() else "not reported"


def capabilities(workdir: Path) -> list[Capability]:
    root = os.geteuid() == 0
    caps = [Capability("root", root, "yes" if root else
                       "needed for loop devices, mkfs, mount and schedulers: run with sudo")]
    loop = Path("/dev/loop-control").exists() and have_tool("losetup")
    caps.append(Capability("loop devices", loop, "/dev/loop-control and losetup" if loop else
                           "no /dev/loop-control or losetup (`apt-get install util-linux`; "
                           "`modprobe loop`)"))
    kernel = _kernel_filesystems()
    for fs, (mkfs, package) in MKFS.items():
        tool, in_kernel = have_tool(mkfs[0]), fs in kernel
        detail = "mkfs and kernel support" if tool and in_kernel else "; ".join(filter(None, [
            None if tool else f"{mkfs[0]} missing (`apt-get install {package}`)",
            None if in_kernel else f"{fs} not in /proc/filesystems (`modprobe {fs}`)"]))
        caps.append(Capability(f"filesystem {fs}", tool and in_kernel, detail))
    wd = Path(workdir)
    probe = wd if wd.exists() else wd.parent if wd.parent.exists() else Path("/")
    info = storage_info(probe)
    caps.append(Capability(f"IO schedulers of {info['device'] or info['filesystem']} "
                           "(work directory)", info["disk"] is not None,
                           _schedulers(info["disk"])))
    loop_sched = Path("/sys/block/loop0/queue/scheduler")
    caps.append(Capability("IO schedulers of loop devices", loop_sched.exists(),
                           loop_sched.read_text().strip() if loop_sched.exists() else
                           "no loop0 to read"))
    md = Path("/proc/mdstat").exists()
    caps.append(Capability("md RAID", md and have_tool("mdadm"), "kernel md and mdadm" if md and
                           have_tool("mdadm") else ("kernel has md; `apt-get install mdadm`" if md
                           else "this kernel has no md RAID: the RAID recipes use a lab VM")))
    dm = Path("/dev/mapper/control").exists()
    caps.append(Capability("device-mapper", dm, "/dev/mapper/control" if dm else
                           "this kernel has no device-mapper"))
    zfs = Path("/sys/module/zfs").exists() and have_tool("zfs")
    caps.append(Capability("ZFS", zfs, "kernel module and zfs tool" if zfs else
                           "no ZFS in this kernel: the zfs-recordsize recipe uses a lab VM"))
    caps += lab_vm(wd)
    free = shutil.disk_usage(probe).free
    caps.append(Capability("free space in the work directory", free > 4 * 2**30,
                           f"{free / 2**30:.1f} GiB free at {probe} (a 2G sandbox and a "
                           "template need about 4 GiB)"))
    return caps


def lab_vm(wd: Path) -> list[Capability]:
    """The lab VM, where the kernel lacks md (or ZFS): qemu, the cached image, the accelerator."""
    from tuninglab.engine.lab import image, qemu  # only where the lab VM is asked about
    qemu_ok = have_tool("qemu-system-x86_64")
    caps = [Capability("lab VM: qemu", qemu_ok, "qemu-system-x86_64" if qemu_ok else
                       "missing (`apt-get install qemu-system-x86`)")]
    cached = image.cached(wd)
    builder = have_tool("debootstrap")
    caps.append(Capability("lab VM: image", bool(cached or builder), str(cached.dir) if cached else
                           "not built yet; the first RAID recipe builds it (about a minute, as "
                           "root)" if builder else "not built, and no debootstrap to build it "
                           "(`apt-get install debootstrap`)"))
    known = qemu.known_accelerator(wd)
    kvm = qemu.kvm_usable()
    detail = (f"{known} (chosen by a probe boot)" if known else
              "/dev/kvm usable; the first boot tries KVM, then TCG" if kvm else
              "no usable /dev/kvm: TCG (software emulation)")
    caps.append(Capability("lab VM: accelerator", True, detail))
    return caps


def report(workdir: Path) -> str:
    lines = [f"{'ok' if c.ok else 'NO':3} {c.name}: {c.detail}" for c in capabilities(workdir)]
    return "\n".join(lines)
