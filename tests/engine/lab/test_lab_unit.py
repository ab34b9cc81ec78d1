"""Unit tests for the lab VM and md RAID pieces that need no VM: array specs and their
errors in recipes, the mdadm command, read-back checks, the initramfs module order, the qemu
command line, the guest's member lookup, and the RAID figures."""

import json
import subprocess
import sys
import time
from pathlib import Path
from types import SimpleNamespace

import pytest

from helpers import FakeLabImage, recipe_text
from tuninglab.engine.lab import guest, image, members, qemu, raid, zfs
from tuninglab.engine.run import preflight, runner
from tuninglab.errors import UserError
from tuninglab.evidence import functional
from tuninglab.recipes import plan
from tuninglab.recipes.load import load as load_recipe
from tuninglab.recipes.plan import Point
from tuninglab.recipes.raid import ArraySpec, problems
from tuninglab.site import io_chart, result_listings, result_tables


def spec(level="10", chunk_kib=64, disks=4, state="normal"):
    return ArraySpec(level, chunk_kib, disks, "1G", state)


# --- array specs -----------------------------------------------------------------------------

def test_a_good_spec_has_no_problems():
    assert problems(spec()) == []
    assert problems(spec("5", 1024, 3)) == []
    assert problems(spec("1", 3, 2)) == []   # RAID1 has no chunks to check
    assert problems(spec("10", disks=1)) == []   # one disk without md: a sweep's baseline


@pytest.mark.parametrize("bad, key, words", [
    (spec(chunk_kib=48), "chunk", "power of two"),
    (spec(chunk_kib=2), "chunk", "page size"),
    (spec("5", disks=2), "disks", "RAID5 needs at least 3 members, got 2"),
    (spec("6", disks=3), "disks", "RAID6 needs at least 4"),
    (spec("7"), "level", "expected one of 0, 1, 10, 5, 6"),
    (spec("10", disks=0), "disks", "RAID10 needs at least 2 members, got 0"),
    (spec("10", disks=1, state="degraded"), "state", "one disk has no redundancy"),
])
def test_problems_name_the_key(bad, key, words):
    found = problems(bad)
    assert found and found[0][0] == key and words in found[0][1]


def test_create_command_skips_resync_and_sets_the_chunk():
    cmd = raid.create_command(spec(), "/dev/md0", ["/dev/vdb", "/dev/vdc", "/dev/vdd", "/dev/vde"])
    assert cmd[:3] == ["mdadm", "--create", "/dev/md0"]
    assert "--level=10" in cmd and "--raid-devices=4" in cmd and "--chunk=64K" in cmd
    assert "--assume-clean" in cmd and cmd[-4:] == ["/dev/vdb", "/dev/vdc", "/dev/vdd", "/dev/vde"]
    assert not any(a.startswith("--chunk") for a in raid.create_command(spec("1"), "/dev/md0",
                                                                       ["/dev/a", "/dev/b"]))


def test_create_refuses_a_member_count_that_does_not_match():
    with pytest.raises(ValueError, match="4 members, but 3 devices"):
        raid.create(spec(), "/dev/md0", ["/dev/a", "/dev/b", "/dev/c"])


def fake_md(tmp_path, level="raid10", chunk=65536, disks=4):
    md = tmp_path / "md0" / "md"
    md.mkdir(parents=True)
    for name, value in (("level", level), ("chunk_size", chunk), ("raid_disks", disks),
                        ("layout", 258), ("array_state", "clean"), ("degraded", 0)):
        (md / name).write_text(f"{value}\n")
    return tmp_path


def test_read_back_and_matches(tmp_path, monkeypatch):
    def no_mdadm(argv, **kwargs):  # not this host's mdadm and /dev/md0: the fake array alone
        raise FileNotFoundError(argv[0])
    monkeypatch.setattr(raid.subprocess, "run", no_mdadm)
    state = raid.read_back("/dev/md0", sys_block=fake_md(tmp_path))
    assert (state["level"], state["chunk_bytes"], state["raid_disks"]) == ("raid10", 65536, 4)
    assert raid.matches(spec(), state) == []
    assert raid.matches(spec("5", 256, 3), state) == [
        "level raid10, asked raid5", "4 members, asked 3", "chunk 65536 bytes, asked 262144"]


def test_health_allows_only_the_planned_failure():
    state = {"degraded": 1, "array_state": "clean"}
    assert raid.health(spec(), {"degraded": 0, "array_state": "clean"}) == []
    assert raid.health(ArraySpec("5", 64, 4, "1G", "degraded"), state) == []
    assert raid.health(ArraySpec("5", 64, 4, "1G", "rebuilding"), state) == []
    [problem] = raid.health(spec(), state)
    assert "1 member(s) failed during the run, 0 planned" in problem


def test_sync_progress_reads_the_rebuild(tmp_path):
    md = fake_md(tmp_path) / "md0" / "md"
    (md / "sync_completed").write_text("524288 / 2097152\n")
    (md / "sync_speed").write_text("20480\n")
    assert raid.sync_progress("/dev/md0", tmp_path) == {"resync_pct": 25.0, "resync_kib_s": 20480}
    (md / "sync_completed").write_text("none\n")
    (md / "sync_speed").write_text("none\n")
    assert raid.sync_progress("/dev/md0", tmp_path) == {"resync_pct": None, "resync_kib_s": None}


def test_a_rebuild_outlasts_the_measurement():
    rate = guest.rebuild_rate_kib_s(2**30, 13)
    assert 2**30 / 1024 / rate > 13 + 60     # seconds to rebuild one member
    assert guest.rebuild_rate_kib_s(2**20, 600) == 1000   # never below md's own minimum


def test_parse_detail_reads_key_value_lines():
    text = ("/dev/md0:\n           Version : 1.2\n        Raid Level : raid10\n"
            "        Array Size : 2093056 (2044.00 MiB 2143.29 MB)\n"
            "     Raid Devices : 4\n        Chunk Size : 64K\n\n"
            "    Number   Major   Minor   RaidDevice State\n"
            "       0     254       16        0      active sync set-A   /dev/vdb\n")
    detail = raid.parse_detail(text)
    assert detail["Raid Level"] == "raid10" and detail["Chunk Size"] == "64K"
    assert detail["Raid Devices"] == "4" and "Number" not in " ".join(detail)


# --- recipes with [raid] ---------------------------------------------------------------------

RAID = '[raid]\nlevel = "10"\nchunk = "64K"\ndisks = 4\n'


def load(tmp_path, **tables):
    path = tmp_path / "r" / "recipe.toml"
    path.parent.mkdir(exist_ok=True)
    path.write_text(recipe_text(**tables))
    return load_recipe(path)


def test_a_raid_sweep_gives_each_point_its_array(tmp_path):
    r = load(tmp_path, raid=RAID, sweep='[sweep]\nsetting = "raid.chunk"\n'
                                         'values = ["16K", "1M"]\nbaseline = "16K"\n')
    p = plan.build(r.experiment())
    assert [pt.raid["chunk_kib"] for pt in p.points] == [16, 1024]
    assert p.points[0].raid == {"level": "10", "chunk_kib": 16, "disks": 4, "member_size": "1G",
                                "state": "normal", "layout": "n2"}
    assert "raid.chunk" not in p.points[0].settings      # not a server option
    assert dict(r.storage)["filesystem"] == "ext4" and "root" in r.needs


@pytest.mark.parametrize("tables, words", [
    ({"raid": RAID, "sweep": '[sweep]\nsetting = "raid.chunk"\nvalues = ["64K", "48K"]\n'},
     "sweep.values: '48K': expected a power of two"),
    ({"raid": RAID, "sweep": '[sweep]\nsetting = "raid.disks"\nvalues = ["4", "four"]\n'},
     "sweep.values: 'four'"),
    ({"raid": RAID.replace('"10"', '"5"').replace("disks = 4", "disks = 2")},
     "raid.disks: RAID5 needs at least 3 members, got 2"),
    ({"raid": RAID.replace("disks = 4", "disks = 2"),
      "sweep": '[sweep]\nsetting = "raid.level"\nvalues = ["10", "5"]\nbaseline = "10"\n'},
     "raid.disks: RAID5 needs at least 3 members, got 2 (at raid.level = 5)"),
    ({"raid": RAID + 'stripes = 2\n'}, "raid.stripes: unknown key"),
    ({"raid": RAID.replace('"64K"', '"1500"')}, "not a whole number of KiB"),
    ({"sweep": '[sweep]\nsetting = "raid.chunk"\nvalues = ["64K"]\n'}, "needs a [raid] table"),
    ({"raid": RAID, "sweep": '[sweep]\nsetting = "raid.stripes"\nvalues = ["2"]\n'},
     "expected raid.{chunk, disks, layout, level, state}"),
    ({"raid": RAID, "sweep": '[sweep]\nsetting = "raid.layout"\nvalues = ["n2", "x3"]\n'},
     "sweep.values: 'x3': expected one of n2, f2, o2"),
    ({"raid": RAID.replace('"10"', '"5"') + 'layout = "f2"\n'},
     "raid.layout: only RAID10 has layouts (got 'f2' for RAID5)"),
    ({"raid": RAID.replace('"10"', '"1+0"').replace("disks = 4", "disks = 5")},
     "raid.disks: RAID1+0 pairs its members: expected an even number, got 5"),
    ({"raid": RAID.replace('"10"', '"0+1"') + 'state = "degraded"\n'},
     "raid.state: a nested array runs whole here"),
    ({"raid": RAID, "sweep": '[sweep]\nsetting = "raid.state"\nvalues = ["normal", "failed"]\n'},
     "sweep.values: 'failed': expected one of normal, degraded, rebuilding"),
    ({"raid": RAID.replace('"10"', '"0"') + 'state = "degraded"\n'},
     "raid.state: RAID0 has no redundancy"),
    ({"raid": RAID, "storage": '[storage]\nfilesystem = "btrfs"\n'},
     "storage.filesystem: 'btrfs': the lab VM's image makes ext4, xfs, ext3, ext2, jfs"),
    ({"raid": RAID, "storage": '[storage]\nfilesystem = "jfs"\n'},
     "storage.filesystem: 'jfs': only the generic kernel flavour has the jfs module"),
    ({"storage": '[storage]\nfilesystem = "reiserfs"\n'},
     "storage.filesystem: 'reiserfs': this host's kernel cannot be relied on"),
])
def test_bad_raid_recipes_name_the_key(tmp_path, tables, words):
    with pytest.raises(UserError) as err:
        load(tmp_path, **tables)
    assert "recipe.toml" in str(err.value) and words in str(err.value)


def test_the_shipped_raid_recipes_load():
    for name in ("raid-chunk", "raid-level"):
        r = load_recipe(name)
        assert r.raid and plan.build(r.experiment("quick")).points


# --- the image and qemu ----------------------------------------------------------------------

# Captured from the Debian 6.1.0-56-cloud-amd64 package's modules.dep (depmod output).
MODULES_DEP = """\
kernel/drivers/virtio/virtio.ko: kernel/drivers/virtio/virtio_ring.ko
kernel/drivers/virtio/virtio_ring.ko:
kernel/drivers/virtio/virtio_pci_modern_dev.ko:
kernel/drivers/virtio/virtio_pci_legacy_dev.ko:
kernel/drivers/virtio/virtio_pci.ko: kernel/drivers/virtio/virtio_pci_legacy_dev.ko \
kernel/drivers/virtio/virtio_pci_modern_dev.ko kernel/drivers/virtio/virtio.ko \
kernel/drivers/virtio/virtio_ring.ko
kernel/drivers/block/virtio_blk.ko: kernel/drivers/virtio/virtio.ko \
kernel/drivers/virtio/virtio_ring.ko
""".replace("\\\n", "")


def test_module_order_loads_dependencies_first():
    order = [Path(p).stem for p in image.module_order(MODULES_DEP, ["virtio_pci", "virtio_blk"])]
    assert order.index("virtio_ring") < order.index("virtio") < order.index("virtio_pci")
    assert order[-1] == "virtio_blk" and len(order) == len(set(order)) == 6


def test_module_order_skips_built_in_modules():
    dep = MODULES_DEP + "kernel/fs/ext4/ext4.ko: kernel/fs/jbd2/jbd2.ko kernel/fs/mbcache.ko\n" \
        "kernel/fs/jbd2/jbd2.ko:\nkernel/fs/mbcache.ko:\n"
    with_ext4 = [Path(p).stem for p in image.module_order(dep, ["virtio_blk", "ext4"])]
    assert with_ext4[-3:] == ["mbcache", "jbd2", "ext4"] or with_ext4[-1] == "ext4"
    assert "ext4" not in [Path(p).stem for p in image.module_order(
        dep, ["virtio_blk", "ext4"], builtin="kernel/fs/ext4/ext4.ko\n")]


def test_module_order_names_a_missing_module():
    with pytest.raises(UserError, match="no module raid10"):
        image.module_order(MODULES_DEP, ["raid10"])


def test_image_key_changes_with_the_flavour():
    assert image.key("cloud-amd64") != image.key("rt-amd64")
    with pytest.raises(UserError, match="no kernel flavour 'arm64'"):
        image.ensure(Path("/nonexistent"), "arm64")


def test_qemu_command(monkeypatch):
    monkeypatch.setattr(qemu, "executable", lambda: "qemu-system-x86_64")
    cmd = qemu.command(FakeLabImage(), [qemu.Disk(Path("/j/m0.img"), "lab-m0")], "tcg")
    text = " ".join(cmd)
    assert "-accel tcg -cpu max" in text and "-nic none" in text
    assert "file=/img/root.img,if=none,id=d0,format=raw,snapshot=on" in text
    assert "file=/j/m0.img,if=none,id=d1,format=raw,cache=none" in text
    assert "virtio-blk-pci,drive=d1,serial=lab-m0" in text
    assert "-cpu host" in " ".join(qemu.command(FakeLabImage(), [], "kvm"))


def test_boot_reads_the_guest_boot_time():
    boot = qemu.Boot("tcg", 0, 3.3, Path("c"), ["[0.1] x", "lab-init: up 2.46s kernel 6.1",
                                                 "lab-init: down 2.57s"])
    assert boot.boot_seconds == 2.46 and boot.finished
    assert not qemu.Boot("tcg", 0, 1, Path("c"), ["lab-init: up 2s"]).finished


def test_forced_accelerator(monkeypatch, tmp_path):
    monkeypatch.setenv("TUNINGLAB_VM_ACCEL", "tcg")
    assert qemu.accelerator(FakeLabImage(), tmp_path) == "tcg"
    monkeypatch.setenv("TUNINGLAB_VM_ACCEL", "fast")
    with pytest.raises(UserError, match="expected kvm or tcg"):
        qemu.accelerator(FakeLabImage(), tmp_path)


def test_guest_finds_members_by_serial(tmp_path):
    for name, serial in (("vda", "lab-root"), ("vdb", "lab-job"), ("vdc", "lab-m1"),
                         ("vdd", "lab-m0")):
        (tmp_path / name).mkdir()
        (tmp_path / name / "serial").write_text(serial + "\n")
    assert guest.devices_by_serial(["lab-m0", "lab-m1"], tmp_path) == ["vdd", "vdc"]
    with pytest.raises(RuntimeError, match="lab-m2 not found"):
        guest.devices_by_serial(["lab-m2"], tmp_path)


# --- figures ---------------------------------------------------------------------------------

def raid_doc(accelerator="tcg", shared=True):
    def run(array_w, member_w):
        io = {"reads_per_trx": 1.0, "writes_per_trx": member_w, "read_bytes_per_trx": 1.0,
              "write_bytes_per_trx": 1.0}
        return {"summary": {"io": io, "array_io": {**io, "writes_per_trx": array_w}},
                "lab": {"where": "vm", "accelerator": accelerator,
                        "shared_physical_device": shared}}
    return {"sweep": {"setting": "raid.level"}, "points": [
        {"value": "10", "runs": [run(10, 20), run(12, 24)]},
        {"value": "0", "runs": [run(10, 10), run(10, 10)]}]}


def test_io_bars_show_array_and_member_medians():
    fig = io_chart.io_bars(raid_doc())
    by_name = {t["name"]: t for t in fig["data"]}
    assert by_name["writes to the array"]["y"] == [11, 10]
    assert by_name["writes at the members (sum)"]["y"] == [22, 10]
    assert by_name["writes to the array"]["x"] == ["10", "0"]


def test_lab_results_are_labelled_functional():
    assert "TCG" in functional.functional_only(raid_doc())
    assert "one physical device" in functional.functional_only(raid_doc("kvm"))
    assert "TCG" not in functional.functional_only(raid_doc("kvm"))
    assert functional.functional_only(raid_doc("native", shared=False)) is None
    assert functional.functional_only({"points": [{"runs": [{"summary": {}}]}]}) is None
    assert "not the hardware" in result_tables.functional(raid_doc())
    assert result_tables.functional(raid_doc("native", shared=False)) == ""


# --- the lab VM's kernel ---------------------------------------------------------------------

def test_a_kernel_sweep_gives_each_point_its_kernel(tmp_path):
    r = load(tmp_path, lab='[lab]\nmitigations = "off"\n',
             sweep='[sweep]\nsetting = "lab.kernel"\nvalues = ["cloud-amd64", "rt-amd64"]\n')
    points = plan.build(r.experiment()).points
    assert [{k: p.lab[k] for k in ("kernel", "mitigations", "image")} for p in points] == [
        {"kernel": "cloud-amd64", "mitigations": "off", "image": "cloud-amd64"},
        {"kernel": "rt-amd64", "mitigations": "off", "image": "rt-amd64"}]
    assert points[0].raid is None and r.in_lab_vm and "lab.kernel" not in points[0].settings


def test_raid_points_boot_the_default_kernel(tmp_path):
    r = load(tmp_path, raid=RAID)
    assert plan.build(r.experiment()).points[0].lab == {
        "kernel": "cloud-amd64", "kernel_from": "bookworm", "mitigations": "auto", "pti": "auto",
        "disk_cache": "none", "topology": "cores",
        "memory": "2G", "swap": "0", "swappiness": "60", "image": "cloud-amd64"}


@pytest.mark.parametrize("tables, words", [
    ({"lab": '[lab]\nkernel = "arm64"\n'}, "lab.kernel: expected one of cloud-amd64, amd64"),
    ({"lab": '[lab]\nmitigations = "none"\n'}, "lab.mitigations: expected one of auto, off"),
    ({"lab": '[lab]\ncpus = 4\n'}, "lab.cpus: unknown key"),
    ({"lab": '[lab]\n', "sweep": '[sweep]\nsetting = "lab.kernel"\nvalues = ["5.10"]\n'},
     "sweep.values: '5.10': expected one of cloud-amd64"),
    ({"sweep": '[sweep]\nsetting = "lab.kernel"\nvalues = ["amd64"]\n'}, "needs a [lab] table"),
    ({"lab": '[lab]\n', "sweep": '[sweep]\nsetting = "lab.memory"\nvalues = ["64M"]\n'},
     "sweep.values: '64M': expected the VM's memory from 512M to 16G"),
    ({"lab": '[lab]\n', "sweep": '[sweep]\nsetting = "lab.cpus"\nvalues = ["1"]\n'},
     "expected lab.{disk_cache, kernel, kernel_from, memory"),
    ({"lab": '[lab]\ndisk_cache = "off"\n'}, "lab.disk_cache: expected one of none, writeback"),
    ({"lab": '[lab]\ntopology = "smt"\n'}, "lab.topology: expected one of cores, threads"),
    ({"lab": '[lab]\nswap = "1M"\n'}, "lab.swap: expected 0 (no swap) or a swap disk of at"),
    ({"lab": '[lab]\nswap = "lots"\n'}, "lab.swap: expected a size like"),
    ({"lab": '[lab]\nswappiness = 300\n'}, "lab.swappiness: expected vm.swappiness from 0"),
])
def test_bad_lab_tables_name_the_key(tmp_path, tables, words):
    with pytest.raises(UserError) as err:
        load(tmp_path, **tables)
    assert words in str(err.value)


def result_file(directory, name, kernel, lab=None):
    run = {"summary": {}}
    if lab:
        run["lab"] = {"kernel": lab, "accelerator": "tcg"}
    doc = {"recipe": {"name": name}, "software": {"kernel": kernel}, "started": "2026-11-20T10:00",
           "points": [{"runs": [run]}]}
    (directory / name).mkdir(exist_ok=True)
    (directory / name / f"{len(list((directory / name).iterdir()))}.json").write_text(
        json.dumps(doc))


def test_results_are_grouped_by_the_kernel_they_ran_on(tmp_path):
    (tmp_path / "historical").mkdir()
    result_file(tmp_path, "doublewrite", "6.18.1")
    result_file(tmp_path, "doublewrite", "6.18.1")
    result_file(tmp_path, "raid-level", "6.18.1", lab="6.1.0-56-cloud-amd64")
    groups = result_listings.by_kernel(tmp_path)
    assert [(g["kernel"], g["where"], g["recipes"], g["results"]) for g in groups] == [
        ("6.1.0-56-cloud-amd64", "lab VM (tcg)", ["raid-level"], 1),
        ("6.18.1", "host", ["doublewrite"], 2)]


# --- ZFS -------------------------------------------------------------------------------------

ZFS = '[zfs]\nrecordsize = "16K"\natime = "off"\n'


def test_a_zfs_sweep_gives_each_point_its_pool_on_the_zfs_image(tmp_path):
    r = load(tmp_path, zfs=ZFS, sweep='[sweep]\nsetting = "zfs.recordsize"\n'
                                       'values = ["16K", "128K"]\n')
    points = plan.build(r.experiment()).points
    assert [p.zfs["recordsize"] for p in points] == ["16K", "128K"]
    assert points[0].zfs["atime"] == "off" and points[0].zfs["compression"] == "off"
    assert points[0].lab["image"] == "cloud-amd64-zfs" and points[0].storage["filesystem"] == "zfs"


@pytest.mark.parametrize("tables, words", [
    ({"zfs": ZFS.replace("16K", "12K")}, "zfs.recordsize: expected a power of two from 4K to 1M"),
    ({"zfs": ZFS, "sweep": '[sweep]\nsetting = "zfs.recordsize"\nvalues = ["16K", "2M"]\n'},
     "sweep.values: '2M': expected a power of two"),
    ({"zfs": ZFS, "sweep": '[sweep]\nsetting = "zfs.dedup"\nvalues = ["on"]\n'},
     "expected zfs.{compression, logbias, primarycache, recordsize}"),
    ({"zfs": ZFS + 'dedup = "on"\n'}, "zfs.dedup: unknown key"),
    ({"zfs": ZFS, "raid": RAID}, "zfs: a ZFS pool is the storage itself"),
    ({"sweep": '[sweep]\nsetting = "zfs.recordsize"\nvalues = ["16K"]\n'}, "needs a [zfs] table"),
])
def test_bad_zfs_tables_name_the_key(tmp_path, tables, words):
    with pytest.raises(UserError) as err:
        load(tmp_path, **tables)
    assert words in str(err.value)


def test_zpool_create_command_and_read_back():
    spec = {"recordsize": "16K", "compression": "off", "atime": "off", "logbias": "latency",
            "primarycache": "all"}
    cmd = zfs.create_command(spec, "/dev/vdc", Path("/mnt/lab"))
    assert cmd[:5] == ["zpool", "create", "-f", "-o", "ashift=12"]
    assert "recordsize=16K" in cmd and "mountpoint=/mnt/lab" in cmd and cmd[-2:] == ["lab", "/dev/vdc"]
    # `zfs get -Hp -o property,value` as OpenZFS 2.1 prints it: tabs, sizes in bytes.
    state = zfs.parse_get("recordsize\t16384\ncompression\toff\natime\toff\n"
                          "logbias\tlatency\nprimarycache\tall\n")
    assert state["recordsize"] == "16384" and zfs.differences(spec, state) == []
    assert zfs.differences({**spec, "recordsize": "128K"}, state) == [
        "recordsize is 16384, asked 131072"]


def test_the_shipped_zfs_recipe_loads():
    r = load_recipe("zfs-recordsize")
    assert [p.zfs["recordsize"] for p in plan.build(r.experiment("quick")).points] == [
        "4K", "8K", "16K", "32K", "128K"]


@pytest.mark.integration  # runs sleep
def test_a_silent_guest_is_reported_as_stalled(tmp_path):
    proc = subprocess.Popen(["sleep", "5"], stdout=subprocess.PIPE)
    try:
        now = time.monotonic()
        with open(tmp_path / "console.log", "w") as log, \
                pytest.raises(qemu.Stalled, match="did not reach its init"):
            qemu._stream(proc, log, [], None, now + 30, now + 0.3)
    finally:
        proc.kill()
        proc.wait()


@pytest.mark.integration  # runs printf
def test_console_lines_reach_the_log_and_the_caller(tmp_path):
    proc = subprocess.Popen(["printf", "lab-init: up 2.5s\\nlab: measuring\\nnoise\\n"],
                            stdout=subprocess.PIPE)
    seen, lines = [], []
    now = time.monotonic()
    with open(tmp_path / "console.log", "w") as log:
        qemu._stream(proc, log, lines, seen.append, now + 30, now + 30)
    proc.wait()
    assert seen == ["measuring"] and lines[0] == "lab-init: up 2.5s"
    assert "lab: measuring" in (tmp_path / "console.log").read_text()


# --- named member devices ------------------------------------------------------------------

def _point(disks=None, state="normal", size="1G"):
    raid = {"level": "10", "chunk_kib": 64, "disks": disks, "member_size": size,
            "state": state} if disks else None
    return Point(id=f"p{disks}", value=str(disks), settings={}, raid=raid,
                 storage=None if disks else {"size": size})


def _fake_block(tmp_path, **sizes_mib):
    for name, mib in sizes_mib.items():
        (tmp_path / name).mkdir()
        (tmp_path / name / "size").write_text(f"{mib * 2048}\n")
    return tmp_path


def test_named_devices_follow_the_members_and_the_spare():
    assert members.serials(_point(4)) == ["lab-m0", "lab-m1", "lab-m2", "lab-m3"]
    assert members.serials(_point(3, "rebuilding"))[-1] == "lab-spare"
    assert members.serials(_point()) == ["lab-m0"]
    assert members.member_size(_point()) == "1G" and members.member_size(_point(2)) == "1G"


def test_too_few_named_devices_name_the_widest_point(tmp_path):
    block = _fake_block(tmp_path, sdb=2048, sdc=2048, sdd=2048)
    with pytest.raises(UserError, match=r"needs 4 devices \(point p3: 3 members and a spare\)"):
        members.check(("/dev/sdb", "/dev/sdc", "/dev/sdd"),
                      [_point(2), _point(3, "rebuilding")], "r", block)
    members.check(("/dev/sdb", "/dev/sdc"), [_point(2)], "r", block)


def test_a_named_device_smaller_than_a_member_is_refused(tmp_path):
    block = _fake_block(tmp_path, sdb=2048, sdc=1000)
    with pytest.raises(UserError, match="refusing /dev/sdc: it holds 1000 MiB, less than the "
                                        "1024 MiB each member"):
        members.check(("/dev/sdb", "/dev/sdc"), [_point(2)], "r", block)


@pytest.mark.parametrize("in_lab_vm", [True, False])
def test_a_device_named_twice_is_refused(monkeypatch, in_lab_vm):
    """Once resolved: a by-id link and its device are the same device (storage and lab)."""
    resolve = {"/dev/disk/by-id/x": "/dev/sdb", "/dev/sdb": "/dev/sdb"}
    monkeypatch.setattr(preflight.guard, "check_device", lambda d, consent: resolve[d])
    recipe_ = SimpleNamespace(label="r", in_lab_vm=in_lab_vm, storage=True)
    opts = runner.Options(devices=("/dev/disk/by-id/x", "/dev/sdb"), destroy_data=True)
    points = [_point(2)] if in_lab_vm else [SimpleNamespace(storage={"logs": "separate"})]
    with pytest.raises(UserError, match="named twice"):
        preflight.check_devices(recipe_, opts, points)


def test_named_member_disks_are_shown_to_the_guest_at_the_member_size():
    image = SimpleNamespace(kernel="/k", initrd="/i", root="/r")
    cmd = " ".join(qemu.command(image, [qemu.Disk(Path("/dev/sdb"), "lab-m0", size=2**30)],
                                "tcg"))
    assert "file=/dev/sdb,if=none,id=d1,format=raw,cache=none,size=1073741824" in cmd


# The guest runs on the image's Debian python3 with python3-pymysql and nothing else.
GUEST_IMPORT = """
import sys
for name in ("scipy", "jsonschema", "yaml", "plotly", "mkdocs", "invoke"):
    sys.modules[name] = None   # importing any of them now fails
import tuninglab.engine.lab.guest
"""


@pytest.mark.integration  # a Python subprocess, so the blocked packages are not loaded yet
def test_the_guest_imports_without_the_projects_dependencies():
    out = subprocess.run([sys.executable, "-c", GUEST_IMPORT], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr

