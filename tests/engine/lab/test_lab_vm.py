"""The RAID recipes end to end in the lab VM (TCG here, KVM where it works): the arrays
really have the level and chunk asked for (read back from the kernel and from mdadm), the
results and their IO series are schema-valid, the IO per transaction shows each level's
mechanism, and a killed run leaves no VM or job file behind.

The image is built once (about a minute) into work/lab-tests and reused by later sessions.
"""

import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time
from contextlib import ExitStack
from pathlib import Path

import pytest

from helpers import REPO, attached_loop, fixture_recipe, needs_real_server
from tuninglab import files
from tuninglab.engine.run import runner
from tuninglab.engine.lab import image, qemu
from tuninglab.engine.storage import guard
from tuninglab.errors import UserError
from tuninglab.results import document

pytestmark = pytest.mark.integration
# Short runs: the point is that the mechanism works, not a precise throughput.
SHORT = {"profile": "quick", "repeats": 1, "duration": 4, "warmup": 1, "baseline_seconds": 1}


@pytest.fixture(scope="module")
def lab_wd():
    if os.geteuid() != 0:
        pytest.skip("needs root: builds the lab VM image with debootstrap")
    for tool, package in (("qemu-system-x86_64", "qemu-system-x86"),
                          ("debootstrap", "debootstrap")):
        if not shutil.which(tool):
            pytest.skip(f"needs {tool} (apt-get install {package})")
    needs_real_server()
    wd = files.default_workdir() / "lab-tests"
    wd.mkdir(parents=True, exist_ok=True)
    return wd


def qemus_under(path: Path) -> list[str]:
    out = subprocess.run(["pgrep", "-af", "qemu-system"], capture_output=True, text=True)
    return [line for line in out.stdout.splitlines() if str(path) in line]


def run_recipe(name, wd, data_dir, **options):
    [path] = runner.run_all(name, runner.Options(workdir=wd, data_dir=data_dir, **SHORT,
                                                 **options), variant="", say=lambda _line: None)
    doc = json.loads(Path(path).read_text())
    assert document.validate(doc) == []
    assert qemus_under(wd) == [] and no_jobs(wd)
    return doc


def no_jobs(wd: Path) -> bool:
    jobs = wd / "vm" / "jobs"
    return not jobs.exists() or not any(jobs.iterdir())


def runs(doc):
    return {p["value"]: p["runs"][0] for p in doc["points"]}


def test_raid_chunk_builds_each_chunk_size(lab_wd, tmp_path):
    doc = run_recipe("raid-chunk", lab_wd, tmp_path)
    for value, run in runs(doc).items():
        kib = int(value.rstrip("K"))
        assert run["raid"]["level"] == "raid10" and run["raid"]["raid_disks"] == 4
        assert run["raid"]["chunk_bytes"] == kib * 1024
        assert run["raid"]["detail"]["Chunk Size"] == value
        assert run["lab"]["accelerator"] in ("kvm", "tcg") and run["lab"]["shared_physical_device"]
        assert run["storage"]["device"] == "/dev/md0" and run["storage"]["filesystem"] == "ext4"
        assert sorted(run["summary"]["member_io"]) == ["vdc", "vdd", "vde", "vdf"]
        assert run["summary"]["tps"] > 0 and len(run["series"]["disk_writes"]) >= 3
    # Small chunks split the same page writes over more member IOs.
    writes = {v: r["summary"]["array_io"]["writes_per_trx"] for v, r in runs(doc).items()}
    assert writes["16K"] > writes["1024K"]


def test_raid_level_builds_each_level_and_shows_its_writes(lab_wd, tmp_path):
    doc = run_recipe("raid-level", lab_wd, tmp_path)
    by_level = runs(doc)
    for level, run in by_level.items():
        assert run["raid"]["level"] == f"raid{level}"
        assert run["raid"]["detail"]["Raid Level"] == f"raid{level}"
    amplification = {level: run["summary"]["io"]["write_bytes_per_trx"]
                     / run["summary"]["array_io"]["write_bytes_per_trx"]
                     for level, run in by_level.items()}
    assert 0.9 < amplification["0"] < 1.2      # striping: each byte written once
    assert 1.8 < amplification["10"] < 2.3     # two copies
    assert 3.6 < amplification["1"] < 4.4     # a four-way mirror
    assert amplification["5"] > 1.2 and amplification["6"] > amplification["5"]   # parity
    reads = {level: run["summary"]["io"]["reads_per_trx"]
             / run["summary"]["array_io"]["reads_per_trx"] for level, run in by_level.items()}
    assert all(0.95 < reads[level] < 1.05 for level in ("0", "1", "10"))
    assert reads["5"] > 1.1   # a partial-stripe write reads old data and parity first


def test_raid_degraded_fails_a_member_and_rebuilds_onto_a_spare(lab_wd, tmp_path):
    by_state = runs(run_recipe("raid-degraded", lab_wd, tmp_path))
    normal, degraded, rebuilding = (by_state[s] for s in ("normal", "degraded", "rebuilding"))
    assert normal["raid"]["after"]["degraded"] == 0 and len(normal["summary"]["member_io"]) == 4
    assert degraded["raid"]["after"]["degraded"] == 1
    assert degraded["raid"]["failed_member"] not in degraded["summary"]["member_io"]
    assert len(degraded["summary"]["member_io"]) == 3
    spare = rebuilding["raid"]["spare"]
    assert spare in rebuilding["summary"]["member_io"]
    assert rebuilding["summary"]["member_io"][spare]["writes_per_trx"] > 0   # the rebuild
    progress = [p for p in rebuilding["series"]["resync_pct"] if p is not None]
    assert progress and progress == sorted(progress) and progress[-1] < 100
    assert all(p is None for p in normal["series"].get("resync_pct", [None]))


def test_a_lab_recipe_without_raid_boots_the_kernel_arguments_of_each_point(lab_wd, tmp_path):
    fixture_recipe(tmp_path / "recipes", "tiny-lab")
    doc = run_recipe("tiny-lab", lab_wd, tmp_path, recipes_dir=tmp_path / "recipes")
    by_value = runs(doc)
    assert "mitigations=off" in by_value["off"]["lab"]["cmdline"]
    assert "mitigations" not in by_value["auto"]["lab"]["cmdline"]
    for run in by_value.values():
        assert "raid" not in run and run["storage"]["device"] == "/dev/vdc"
        assert run["lab"]["kernel"].endswith("-cloud-amd64") and run["lab"]["vulnerabilities"]
        assert run["summary"]["io"]["reads_per_trx"] is not None
        assert not run["lab"]["shared_physical_device"]   # one data disk: nothing to share with


def test_the_lab_machine_has_the_points_disk_cache_topology_memory_and_swap(lab_wd, tmp_path):
    fixture_recipe(tmp_path / "recipes", "tiny-machine")
    by_cache = runs(run_recipe("tiny-machine", lab_wd, tmp_path,
                               recipes_dir=tmp_path / "recipes"))
    assert by_cache["none"]["lab"]["write_cache"] == "write back"
    assert by_cache["directsync"]["lab"]["write_cache"] == "write through"
    for cache, run in by_cache.items():
        lab = run["lab"]
        assert lab["disk_cache"] == cache and lab["fio"]["fsync_per_s"] > 0
        assert lab["topology"] == "threads" and lab["threads_per_core"] == 2 and lab["cpus"] == 2
        assert 600 << 20 < lab["memory_bytes"] <= 768 << 20
        assert 250 << 20 < lab["swap_bytes"] <= 256 << 20 and lab["swappiness"] == 10
        assert all(v is None or v >= 0 for v in run["series"]["swap_out_per_s"])


def test_the_generic_kernel_makes_the_2004_filesystems(lab_wd, tmp_path):
    fixture_recipe(tmp_path / "recipes", "tiny-oldfs")
    by_fs = runs(run_recipe("tiny-oldfs", lab_wd, tmp_path, recipes_dir=tmp_path / "recipes"))
    for fs, run in by_fs.items():
        assert run["storage"]["filesystem"] == fs and run["summary"]["tps"] > 0
        assert run["lab"]["kernel"].endswith("-amd64")
        assert not run["lab"]["kernel"].endswith("cloud-amd64")


def test_nested_raid10_builds_its_inner_arrays(lab_wd, tmp_path):
    fixture_recipe(tmp_path / "recipes", "tiny-raid10")
    by_level = runs(run_recipe("tiny-raid10", lab_wd, tmp_path,
                               recipes_dir=tmp_path / "recipes"))
    outer = {"1+0": ("raid0", "raid1"), "0+1": ("raid1", "raid0")}
    for level, run in by_level.items():
        top, inside = outer[level]
        assert run["raid"]["level"] == top and run["raid"]["raid_disks"] == 2
        assert [a["level"] for a in run["raid"]["inner"]] == [inside, inside]
        assert sorted(run["summary"]["member_io"]) == ["vdc", "vdd", "vde", "vdf"]
        copies = (run["summary"]["io"]["write_bytes_per_trx"]
                  / run["summary"]["array_io"]["write_bytes_per_trx"])
        assert 1.8 < copies < 2.3   # every byte on two members, in either order


def test_the_backports_image_has_a_newer_kernel_and_boots(lab_wd):
    """Its own image, with bookworm-backports' cloud kernel, booted on the CPU model the
    recipes give it (under TCG: without CMPXCHG16B, qemu.cpu_model)."""
    built = image.ensure(lab_wd, "cloud-amd64-bpo", say=lambda _line: None)
    assert built.manifest["backports"] and not built.manifest["zfs"]
    release = built.manifest["kernel"]
    assert tuple(int(n) for n in re.match(r"(\d+)\.(\d+)", release).groups()) > (6, 1)
    assert release.endswith("-cloud-amd64") and built.kernel.is_file()
    accel = qemu.accelerator(built, lab_wd, say=lambda _line: None)
    boot = qemu.probe(built, accel, lab_wd / "vm", timeout=300)
    assert boot and boot.finished
    assert any(line.startswith("lab-init: up") and release in line for line in boot.lines)


def test_zfs_pools_get_their_record_size_and_read_whole_records(lab_wd, tmp_path):
    fixture_recipe(tmp_path / "recipes", "tiny-zfs")
    by_size = runs(run_recipe("tiny-zfs", lab_wd, tmp_path, recipes_dir=tmp_path / "recipes"))
    for value, run in by_size.items():
        assert run["storage"]["filesystem"] == "zfs"
        assert run["storage"]["zfs"]["recordsize"] == str(int(value.rstrip("K")) * 1024)
        assert run["storage"]["zfs"]["atime"] == "off" and run["storage"]["zfs_version"]
    # With the ARC empty and capped, a 16K page read from a 128K record reads the record.
    per_read = {v: r["summary"]["io"]["read_bytes_per_trx"] / r["summary"]["io"]["reads_per_trx"]
                for v, r in by_size.items()}
    assert per_read["128K"] > 3 * per_read["16K"]


def test_named_devices_are_the_members_and_are_left_reusable(lab_wd, tmp_path):
    fixture_recipe(tmp_path / "recipes", "tiny-named")
    opts = {"recipes_dir": tmp_path / "recipes", "destroy_data": True}
    with ExitStack() as stack:
        devices = tuple(stack.enter_context(attached_loop(tmp_path / f"m{i}.img", 600 * 2**20))
                        for i in range(4))
        with pytest.raises(UserError, match=r"needs 4 devices \(point .*3 members and a spare"):
            run_recipe("tiny-named", lab_wd, tmp_path, devices=devices[:3], **opts)
        small = stack.enter_context(attached_loop(tmp_path / "small.img", 256 * 2**20))
        with pytest.raises(UserError, match=f"refusing {small}: it holds 256 MiB, less than "
                                            "the 512 MiB"):
            run_recipe("tiny-named", lab_wd, tmp_path, devices=devices[:3] + (small,), **opts)
        by_state = runs(run_recipe("tiny-named", lab_wd, tmp_path, devices=devices, **opts))
        for run in by_state.values():
            assert run["lab"]["member_devices"] == list(devices)
            assert run["lab"]["shared_physical_device"]   # loop devices over files on one disk
            assert run["raid"]["level"] == "raid5" and run["raid"]["raid_disks"] == 3
            # The guest sees the recipe's 512M of each 600M device, as it would a sparse file.
            used = re.search(r"\(([\d.]+) MiB", run["raid"]["detail"]["Used Dev Size"])
            assert 500 < float(used.group(1)) <= 512
        assert by_state["rebuilding"]["raid"]["spare"] in by_state["rebuilding"]["summary"][
            "member_io"]
        for device in devices:   # no RAID signature left: the next run may use them again
            assert guard.check_device(device, destroy_data=True) == device
            assert Path(device).is_block_device()


DRIVER = """
import sys
from pathlib import Path
from tuninglab.engine.run import runner
from tuninglab.engine.lab import image, qemu
runner.run("raid-chunk", runner.Options(profile="quick", repeats=1, workdir=Path(sys.argv[1]),
                                        data_dir=Path(sys.argv[2]), baseline_seconds=1))
"""


def test_a_killed_run_leaves_no_vm_behind(lab_wd, tmp_path):
    with open(tmp_path / "run.log", "w") as log:
        run = subprocess.Popen([sys.executable, "-c", DRIVER, str(lab_wd), str(tmp_path)],
                               cwd=REPO, stdout=log, stderr=subprocess.STDOUT,
                               start_new_session=True)
    try:
        deadline = time.monotonic() + 300
        while not qemus_under(lab_wd / "vm" / "jobs") and time.monotonic() < deadline:
            assert run.poll() is None, (tmp_path / "run.log").read_text()
            time.sleep(0.5)
        assert qemus_under(lab_wd / "vm" / "jobs"), "no VM started"
        run.send_signal(signal.SIGKILL)
        run.wait()
        for _ in range(50):  # the VM dies with its parent (PR_SET_PDEATHSIG)
            if not qemus_under(lab_wd):
                break
            time.sleep(0.1)
        assert qemus_under(lab_wd) == []
        out = subprocess.run([str(REPO / ".venv/bin/invoke"), "lab.clean", "--workdir",
                              str(lab_wd)], cwd=REPO, capture_output=True, text=True, timeout=60)
        assert out.returncode == 0 and "job files" in out.stdout, out.stdout + out.stderr
        assert no_jobs(lab_wd)
    finally:
        try:
            os.killpg(run.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        run.wait()
