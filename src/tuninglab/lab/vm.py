"""The host side of a run in the lab VM: a job disk (the job, the engine's code and the
template datadir), sparse member disks, one boot, and the record the guest wrote back.

Member disks are sparse files in the work directory, on the host's one disk: the results show
how RAID works (IO per transaction at each member), not how fast real RAID hardware is.
"""

import json
import os
import shutil
import subprocess
import time
from dataclasses import asdict
from pathlib import Path

from .. import results, units
from ..errors import UserError
from . import image as images, qemu

SRC = Path(__file__).resolve().parents[1]   # the tuninglab package, copied onto the job disk
GUEST_MYSQLD = "/usr/sbin/mariadbd"
BOOT_TIMEOUT_S = 600   # besides the workload's own time, under TCG


class LabVM:
    """A cached image and the accelerator chosen for it; each measure() is one fresh boot."""

    def __init__(self, wd: Path, image, accelerator: str):
        self.wd, self.image, self.accelerator = Path(wd), image, accelerator

    @classmethod
    def start(cls, wd: Path, say=print) -> "LabVM":
        qemu.executable()
        image = images.ensure(wd, say=say)
        return cls(wd, image, qemu.accelerator(image, wd, say))

    @property
    def server_version(self) -> str:
        """The guest's MariaDB, e.g. 10.11.19 (from 1:10.11.19-0+deb12u1)."""
        raw = self.image.manifest["packages"].get("mariadb-server-core", "")
        return raw.split(":", 1)[-1].split("-", 1)[0]

    def check_server(self, binary) -> None:
        """The template datadir is made on the host: its server must be the guest's version."""
        host = ".".join(map(str, binary.version))
        if binary.flavor != "mariadb" or host != self.server_version:
            raise UserError(f"the lab VM runs MariaDB {self.server_version}, but the template "
                            f"datadir would be made by {binary.label} ({binary.path}); RAID "
                            "recipes in the lab VM use the host's MariaDB of the same version "
                            "(no --mysqld)")

    def measure(self, run_, experiment, template_data: Path, say=print) -> dict:
        job = self.wd / "vm" / "jobs" / f"{run_.point.id}-r{run_.repeat}"
        shutil.rmtree(job, ignore_errors=True)
        job.mkdir(parents=True)
        started = results.now()
        try:
            disks = self._disks(job, run_, experiment, template_data)
            timeout = BOOT_TIMEOUT_S + 4 * (experiment.measure.warmup + experiment.measure.duration)
            try:
                boot = qemu.boot(self.image, disks, self.accelerator, job / "console.log", timeout,
                                 on_line=lambda text: say(f"    vm: {text}"),
                                 pidfile=job / "qemu.pid")
            except TimeoutError:
                raise UserError(self._failure(job, f"the lab VM did not finish within "
                                                   f"{timeout:.0f}s")) from None
            record = self._collect(job, boot)
        finally:
            shutil.rmtree(job, ignore_errors=True)
        record.update({"repeat": run_.repeat, "order": run_.index, "started": started,
                       "finished": results.now()})
        record["lab"] = {"where": "vm", "accelerator": self.accelerator,
                         "shared_physical_device": True, "boot_s": boot.boot_seconds,
                         "vm_s": round(boot.seconds, 1),
                         "image": self.image.manifest["key"], **record.pop("guest")}
        return record

    def _disks(self, job: Path, run_, experiment, template_data: Path) -> list:
        spec = run_.point.raid
        stage = job / "stage"
        stage.mkdir()
        e = experiment
        storage = run_.point.storage or {"filesystem": "ext4"}
        (stage / "job.json").write_text(json.dumps({
            "raid": spec, "members": [f"lab-m{i}" for i in range(spec["disks"])],
            "storage": {k: storage.get(k) for k in ("filesystem", "mkfs_options",
                                                    "mount_options")},
            "settings": run_.point.settings, "mysqld": GUEST_MYSQLD,
            "workload": asdict(e.workload), "measure": asdict(e.measure),
            "dataset": asdict(e.dataset)}, default=list))
        shutil.copytree(SRC, stage / "src" / "tuninglab",
                        ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
        shutil.copytree(template_data, stage / "template", copy_function=os.link)
        job_img = job / "job.img"
        size = _dir_bytes(stage) * 5 // 4 + (64 << 20)
        out = subprocess.run(["mkfs.ext4", "-q", "-F", "-L", "labjob", "-d", str(stage),
                              str(job_img), f"{size // 1024}k"], capture_output=True, text=True)
        if out.returncode != 0:
            raise UserError(f"making the lab VM's job disk {job_img} failed: {out.stderr.strip()}")
        shutil.rmtree(stage)
        disks = [qemu.Disk(job_img, "lab-job")]
        member_bytes = units.size_bytes(spec["member_size"])
        for i in range(spec["disks"]):
            member = job / f"m{i}.img"
            with open(member, "wb") as f:
                f.truncate(member_bytes)   # sparse: reads as zeros, takes no space until written
            disks.append(qemu.Disk(member, f"lab-m{i}"))
        return disks

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


def _dir_bytes(path: Path) -> int:
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file())


def boot_time(wd: Path, say=print) -> dict:
    """For `invoke bench`: one empty boot of the cached image."""
    vm = LabVM.start(wd, say)
    started = time.monotonic()
    result = qemu.probe(vm.image, vm.accelerator, Path(wd) / "vm")
    if not result:
        raise UserError(f"the lab VM did not boot under {vm.accelerator}")
    return {"accelerator": vm.accelerator, "boot_s": time.monotonic() - started}
