"""The host side of a run in the lab VM: a job disk (the job, the engine's code and the
template datadir), sparse member disks, one boot, and the record the guest wrote back.

Member disks are sparse files in the work directory, on the host's one disk: the results show
how RAID works (IO per transaction at each member), not how fast real RAID hardware is.
"""

import json
import os
import shutil
import subprocess
from dataclasses import asdict
from pathlib import Path

from tuninglab import units
from tuninglab.engine.lab import image as images_mod
from tuninglab.engine.lab import members, qemu
from tuninglab.engine.host.workdir import dir_bytes
from tuninglab.errors import UserError
from tuninglab.results import document

SRC = Path(__file__).resolve().parents[2]   # the tuninglab package, copied onto the job disk
GUEST_MYSQLD = "/usr/sbin/mariadbd"
BOOT_TIMEOUT_S = 600   # besides the workload's own time, under TCG


class LabVM:
    """The cached image of each kernel flavour a plan boots, and the accelerator chosen for
    each; every measure() is one fresh boot."""

    def __init__(self, wd: Path, images: dict, accelerators: dict, devices: tuple = ()):
        self.wd, self.images, self.accelerators = Path(wd), images, accelerators
        self.devices = tuple(devices)   # named member devices, in order; () for sparse files

    @classmethod
    def start(cls, wd: Path, flavours=("cloud-amd64",), say=print, devices=()) -> "LabVM":
        """Build (or find) every image first, so no measurement waits for a build."""
        qemu.executable()
        images = {f: images_mod.ensure(wd, f, say=say) for f in sorted(set(flavours))}
        return cls(wd, images, {f: qemu.accelerator(i, wd, say) for f, i in images.items()},
                   devices)

    def server_version(self, flavour: str) -> str:
        """The guest's MariaDB, e.g. 10.11.19 (from 1:10.11.19-0+deb12u1)."""
        raw = self.images[flavour].manifest["packages"].get("mariadb-server-core", "")
        return raw.split(":", 1)[-1].split("-", 1)[0]

    def check_server(self, binary) -> None:
        """The template datadir is made on the host: its server must be the guest's version."""
        host = ".".join(map(str, binary.version))
        for flavour in self.images:
            guest = self.server_version(flavour)
            if binary.flavor != "mariadb" or host != guest:
                raise UserError(f"the lab VM runs MariaDB {guest}, but the template datadir "
                                f"would be made by {binary.label} ({binary.path}); recipes in "
                                "the lab VM use the host's MariaDB of the same version "
                                "(no --server or --mysqld)")

    def measure(self, run_, experiment, template_data: Path, say=print) -> dict:
        job = self.wd / "vm" / "jobs" / f"{run_.point.id}-r{run_.repeat}"
        shutil.rmtree(job, ignore_errors=True)
        job.mkdir(parents=True)
        started = document.now()
        try:
            disks = self._disks(job, run_, experiment, template_data)
            m = experiment.measure
            timeout = BOOT_TIMEOUT_S + 4 * (m.warmup_bound + m.duration)
            lab = run_.point.lab
            image, accel = self.images[lab["image"]], self.accelerators[lab["image"]]
            cpu = _cpu(experiment, accel)
            try:
                boot = self._boot(image, disks, accel, job, timeout, lab, cpu, say)
            except TimeoutError:
                raise UserError(self._failure(job, f"the lab VM did not finish within "
                                                   f"{timeout:.0f}s")) from None
            record = self._collect(job, boot)
        finally:
            shutil.rmtree(job, ignore_errors=True)
        record.update({"repeat": run_.repeat, "order": run_.index, "started": started,
                       "finished": document.now()})
        shared = _shared(run_.point, self.devices)
        record["lab"] = {"where": "vm", "accelerator": accel, "kernel_flavour": lab["kernel"],
                         "mitigations": lab["mitigations"], "pti": lab.get("pti", "auto"),
                         "disk_cache": lab["disk_cache"],
                         "topology": lab["topology"], "qemu_cpu": cpu,
                         "shared_physical_device": shared,
                         "member_devices": list(self.devices),
                         "boot_s": boot.boot_seconds, "vm_s": round(boot.seconds, 1),
                         "image": image.manifest["key"], **record.pop("guest")}
        return record

    def _boot(self, image, disks, accel, job: Path, timeout: float, lab: dict, cpu: str,
              say):
        """One boot; a guest stuck before its init (nothing written to any disk yet) gets
        one more try."""
        args = kernel_args(lab)
        memory_mib = units.size_bytes(lab["memory"]) >> 20
        for attempt in (1, 2):
            try:
                return qemu.boot(image, disks, accel, job / "console.log", timeout,
                                 on_line=lambda text: say(f"    vm: {text}"),
                                 pidfile=job / "qemu.pid", memory_mib=memory_mib,
                                 kernel_args=args, topology=lab["topology"], cpu=cpu)
            except qemu.Stalled:
                if attempt == 2:
                    raise
                say(f"    vm: stuck before its init after {qemu.STALL_S}s; booting again")

    def _disks(self, job: Path, run_, experiment, template_data: Path) -> list:
        """The job disk, then each member (and the spare of a rebuild): a sparse file, or
        the start of a named device."""
        point = run_.point
        serials = members.serials(point)
        spare = serials[-1:] if serials[-1] == "lab-spare" else []
        storage = point.storage or {"filesystem": "ext4"}
        job_img = self._job_disk(job, {
            "raid": point.raid, "zfs": point.zfs, "members": serials[:len(serials) - len(spare)],
            "wipe": serials if self.devices else [],
            "settings": point.settings,
            "storage": {k: storage.get(k) for k in ("filesystem", "mkfs_options",
                                                    "mount_options")},
            "fio": experiment.sweep.setting == "lab.disk_cache",   # fsyncs/s at each point
            "swap": bool(units.size_bytes(point.lab["swap"])),
            "swappiness": int(point.lab["swappiness"]),
            "mysqld": GUEST_MYSQLD, "workload": asdict(point.workload),
            "measure": asdict(experiment.measure), "dataset": asdict(experiment.dataset)},
            template_data)
        disks = [qemu.Disk(job_img, "lab-job")]
        member_bytes = units.size_bytes(members.member_size(point))
        cache = point.lab["disk_cache"]
        for n, serial in enumerate(serials):
            if self.devices:
                disks.append(qemu.Disk(Path(self.devices[n]), serial, size=member_bytes,
                                       cache=cache))
                continue
            disks.append(qemu.Disk(_sparse(job / f"{serial}.img", member_bytes), serial,
                                   cache=cache))
        swap = units.size_bytes(point.lab["swap"])
        if swap:   # a swap partition of its own, as in 2004; never on a named device
            disks.append(qemu.Disk(_sparse(job / "swap.img", swap), members.SWAP_SERIAL))
        return disks

    def _job_disk(self, job: Path, spec: dict, template_data: Path) -> Path:
        """An ext4 image (made without mounting) of the job, the engine's code and the
        template datadir (hard links until mkfs copies them)."""
        stage = job / "stage"
        stage.mkdir()
        (stage / "job.json").write_text(json.dumps(spec, default=list))
        shutil.copytree(SRC, stage / "src" / "tuninglab",
                        ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
        shutil.copytree(template_data, stage / "template", copy_function=os.link)
        job_img = job / "job.img"
        size = dir_bytes(stage) * 5 // 4 + (64 << 20)
        out = subprocess.run(["mkfs.ext4", "-q", "-F", "-L", "labjob", "-d", str(stage),
                              str(job_img), f"{size // 1024}k"], capture_output=True, text=True)
        if out.returncode != 0:
            raise UserError(f"making the lab VM's job disk {job_img} failed: {out.stderr.strip()}")
        shutil.rmtree(stage)
        return job_img

    def _collect(self, job: Path, boot) -> dict:
        for name in ("record", "error"):
            dest = job / f"{name}.json"
            subprocess.run(["debugfs", "-R", f"dump /out/{name}.json {dest}", str(job / "job.img")],
                           capture_output=True)
            if dest.is_file() and dest.stat().st_size:
                data = json.loads(dest.read_text())
                if name == "record":
                    return data
                raise UserError(self._failure(job, f"the run in the lab VM failed: {data['error']}"))
        raise UserError(self._failure(job, f"the lab VM stopped (exit {boot.returncode}) "
                                           "without a result"))

    def _failure(self, job: Path, message: str) -> str:
        """The message, and the console kept where the user can read it."""
        kept = self.wd / "vm" / "last-failure-console.log"
        console = job / "console.log"
        if console.is_file():
            shutil.copy(console, kept)
            tail = "\n".join(console.read_text(errors="replace").splitlines()[-12:])
            return f"{message}; the end of the VM console (kept in {kept}):\n{tail}"
        return message


def kernel_args(lab: dict) -> str:
    """The guest kernel's command line options a point's [lab] asks for: mitigations=off,
    pti=on or pti=off (auto: the kernel's own choice, nothing added)."""
    args = ["mitigations=off"] if lab["mitigations"] == "off" else []
    if lab.get("pti", "auto") != "auto":
        args.append(f"pti={lab['pti']}")
    return " ".join(args)


def _cpu(experiment, accel: str) -> str:
    """The qemu CPU of every point (qemu.cpu_model): one that shows hardware threads when any
    point does, one without CMPXCHG16B when any point boots bookworm-backports' kernel."""
    return qemu.cpu_model(accel, smt="threads" in _lab_values(experiment, "topology"),
                          newer_kernel="bookworm-backports" in _lab_values(experiment,
                                                                         "kernel_from"))


def _lab_values(experiment, key: str) -> set:
    """The values a [lab] key takes over the experiment's points."""
    if experiment.sweep.setting == f"lab.{key}":
        return set(experiment.sweep.values)
    return {dict(experiment.recipe.lab).get(key)}


def _shared(point, devices: tuple) -> bool:
    """Whether the point's member disks compete for one physical device, so that an array's
    speed is not its members' (sparse files all sit on the work directory's disk). A point
    with one member has nothing to compete with: like a native run's loop device, its disk is
    the host's."""
    if len(members.serials(point)) < 2:
        return False
    return members.shared_physical(devices) if devices else True


def _sparse(path: Path, size: int) -> Path:
    """A file that reads as zeros and takes no space until written."""
    with open(path, "wb") as f:
        f.truncate(size)
    return path
