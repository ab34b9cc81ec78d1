"""The lab VM's machine, as a recipe's [lab] table and [raid] shape it: the disks' write cache,
the vCPU topology, memory and swap, the kernel's source, nested RAID10 and md's raid10 layouts,
and the host's SMT placements. Units only: the boots are in test_lab_vm.py."""

from pathlib import Path
from types import SimpleNamespace

import pytest

from helpers import FakeLabImage, make_doc, recipe_text
from tuninglab.engine.host import hostinfo
from tuninglab.engine.run import preflight
from tuninglab.engine.server import pinning
from tuninglab.engine.lab import guest, image, qemu, raid, vm
from tuninglab.errors import UserError
from tuninglab.recipes import plan
from tuninglab.recipes.lab import image_name, lab_problem
from tuninglab.recipes.load import load as load_recipe
from tuninglab.recipes.raid import ArraySpec, nested_arrays
from tuninglab.site import result_tables


def load(tmp_path, **tables):
    path = tmp_path / "r" / "recipe.toml"
    path.parent.mkdir(exist_ok=True)
    path.write_text(recipe_text(**tables))
    return load_recipe(path)


def test_the_topology_and_each_disks_cache_mode_reach_qemu(monkeypatch):
    monkeypatch.setattr(qemu, "executable", lambda: "qemu-system-x86_64")
    disks = [qemu.Disk(Path("/j/m0.img"), "lab-m0", cache="directsync"),
             qemu.Disk(Path("/j/swap.img"), "lab-swap")]
    cmd = " ".join(qemu.command(FakeLabImage(), disks, "tcg", memory_mib=768, topology="threads",
                                cpu=qemu.cpu_model("tcg", smt=True)))
    assert "-smp 2,sockets=1,cores=1,threads=2" in cmd and "-m 768" in cmd
    assert "file=/j/m0.img,if=none,id=d1,format=raw,cache=directsync" in cmd
    assert "file=/j/swap.img,if=none,id=d2,format=raw,cache=none" in cmd
    assert "snapshot=on" in cmd   # the root image stays a throwaway overlay
    assert "-smp 2,sockets=1,cores=2,threads=1" in " ".join(
        qemu.command(FakeLabImage(), [], "tcg"))
    # Under TCG, Linux reads the threads from Intel's CPUID leaves only (AMD's: not emulated).
    assert "-cpu max,vendor=GenuineIntel" in cmd
    assert qemu.cpu_model("tcg") == "max" and qemu.cpu_model("kvm", smt=True) == "host"
    # bookworm-backports' kernel double-faulted on TCG's CMPXCHG16B: no cx16 at any point.
    assert qemu.cpu_model("tcg", smt=True, newer_kernel=True) == "max,vendor=GenuineIntel,-cx16"
    assert qemu.cpu_model("kvm", newer_kernel=True) == "host"


def test_only_two_or_more_members_can_share_a_device(tmp_path, monkeypatch):
    one = load(tmp_path, lab="[lab]\n", sweep='[sweep]\nsetting = "lab.swappiness"\n'
               'values = [60, 1]\nbaseline = 60\n')
    point = plan.build(one.experiment()).points[0]
    assert not vm._shared(point, ()) and not vm._shared(point, ("/dev/loop7",))
    array = SimpleNamespace(raid={"disks": 2, "state": "normal"}, zfs=None, lab={})
    monkeypatch.setattr(vm.members, "serials", lambda p: ["lab-m0", "lab-m1"])
    assert vm._shared(array, ())   # sparse files, all on the work directory's disk
    monkeypatch.setattr(vm.members, "shared_physical", lambda devices: False)
    assert not vm._shared(array, ("/dev/sdb", "/dev/sdc"))


def test_a_lab_sweep_gives_each_point_its_machine(tmp_path):
    r = load(tmp_path, lab='[lab]\nmemory = "768M"\nswap = "1G"\n',
             sweep='[sweep]\nsetting = "lab.swappiness"\nvalues = [60, 1]\nbaseline = 60\n')
    points = plan.build(r.experiment()).points
    assert [p.lab["swappiness"] for p in points] == ["60", "1"]
    assert points[1].lab["memory"] == "768M" and points[1].lab["swap"] == "1G"


def test_a_backports_kernel_boots_its_own_image(tmp_path):
    r = load(tmp_path, lab='[lab]\nkernel = "amd64"\n',
             sweep='[sweep]\nsetting = "lab.kernel_from"\n'
                   'values = ["bookworm", "bookworm-backports"]\n')
    assert [p.lab["image"] for p in plan.build(r.experiment()).points] == ["amd64", "amd64-bpo"]
    assert vm._cpu(r.experiment(), "tcg") == "max,-cx16"   # at both points
    assert image.split_name("amd64-bpo") == ("amd64", True, False)
    assert image.split_name("cloud-amd64-zfs") == ("cloud-amd64", False, True)
    assert image_name("amd64", "bookworm-backports") == "amd64-bpo"
    assert image.split_name(image_name("rt-amd64", zfs=True)) == ("rt-amd64", False, True)
    assert image.key("amd64-bpo") != image.key("amd64")
    with pytest.raises(UserError, match="OpenZFS for bookworm's own kernel"):
        image.split_name("cloud-amd64-bpo-zfs")


def test_zfs_refuses_the_backports_kernel(tmp_path):
    with pytest.raises(UserError, match="lab.kernel_from: the ZFS image builds OpenZFS"):
        load(tmp_path, storage="", lab='[lab]\nkernel_from = "bookworm-backports"\n',
             zfs='[zfs]\nrecordsize = "16K"\n')


@pytest.mark.parametrize("key, value, words", [
    ("disk_cache", "unsafe", None),
    ("topology", "threads", None),
    ("memory", "768M", None),
    ("memory", "32G", "expected the VM's memory from 512M to 16G"),
    ("swap", "0", None),
    ("swap", "1G", None),
    ("swap", "4K", "a swap disk of at least 16M"),
    ("swappiness", "1", None),
    ("swappiness", "-1", "expected vm.swappiness from 0 to 200"),
    ("kernel_from", "trixie", "expected one of bookworm, bookworm-backports"),
])
def test_lab_values(key, value, words):
    problem = lab_problem(key, value)
    assert problem is None if words is None else words in problem


def test_the_os_lists_of_cpus():
    assert hostinfo.parse_cpu_list("0-3,8,10-11\n") == [0, 1, 2, 3, 8, 10, 11]
    assert hostinfo.parse_cpu_list("") == []


def _cpu_dir(tmp_path, siblings: dict) -> str:
    for cpu, text in siblings.items():
        topo = tmp_path / f"cpu{cpu}" / "topology"
        topo.mkdir(parents=True)
        (topo / "thread_siblings_list").write_text(text + "\n")
    (tmp_path / "cpufreq").mkdir()   # not a CPU
    return str(tmp_path)


def test_smt_cores_are_read_from_sysfs(tmp_path):
    smt = _cpu_dir(tmp_path / "smt", {0: "0,2", 1: "1,3", 2: "0,2", 3: "1,3"})
    assert hostinfo.smt_cores(smt) == [[0, 2], [1, 3]]
    assert hostinfo.smt_cores(_cpu_dir(tmp_path / "no", {0: "0", 1: "1"})) == []


def test_smt_placements(monkeypatch):
    monkeypatch.setattr(pinning, "available", lambda: [0, 1, 2, 3])
    assert pinning.placed("siblings", [[0, 2], [1, 3]]) == [0, 2]
    assert pinning.placed("cores", [[0, 2], [1, 3]]) == [0, 1]
    with pytest.raises(UserError, match="server.cpus = cores: expected a host with SMT"):
        pinning.placed("cores", [[0, 2]])
    with pytest.raises(UserError, match="server.cpus = siblings: expected a host with SMT"):
        pinning.placed("siblings", [])


def test_smt_on_a_host_without_it_names_the_lab_recipe(tmp_path, monkeypatch):
    r = load(tmp_path, sweep='[sweep]\nsetting = "server.cpus"\n'
                             'values = ["cores", "siblings"]\n')
    points = plan.build(r.experiment()).points
    assert [p.cpus for p in points] == ["cores", "siblings"]
    monkeypatch.setattr(preflight.hostinfo, "smt_cores", lambda: [])
    with pytest.raises(UserError) as err:
        preflight.check_cpus(r, r.experiment(), points)
    assert "needs SMT, and this host has none" in str(err.value)
    assert "`invoke recipe smt-lab`" in str(err.value) and "\n" not in str(err.value)


def test_cpu_counts_and_placements_do_not_mix(tmp_path):
    with pytest.raises(UserError, match="numbers of CPUs or SMT placements"):
        load(tmp_path, sweep='[sweep]\nsetting = "server.cpus"\nvalues = ["1", "siblings"]\n')


def test_nested_raid10_is_built_inner_arrays_first():
    spec = ArraySpec("1+0", 1024, 4, "1G")
    assert nested_arrays(spec) == [("1", [0, 1]), ("1", [2, 3]), ("0", [0, 1])]
    assert nested_arrays(ArraySpec("0+1", 1024, 4, "1G")) == [
        ("0", [0, 1]), ("0", [2, 3]), ("1", [0, 1])]
    assert raid.inner_names(spec) == ["/dev/md1", "/dev/md2"]
    assert raid.inner_names(ArraySpec("10", 64, 4, "1G")) == []
    outer = raid.create_command(spec, "/dev/md0", ["/dev/md1", "/dev/md2"], "0")
    assert "--level=0" in outer and "--chunk=1024K" in outer and "--layout=n2" not in outer
    inner = raid.create_command(spec, "/dev/md1", ["/dev/vdb", "/dev/vdc"], "1")
    assert "--level=1" in inner and not any(a.startswith("--chunk") for a in inner)


def test_raid10_layouts_reach_mdadm_and_are_checked():
    spec = ArraySpec("10", 64, 4, "1G", layout="f2")
    assert "--layout=f2" in raid.create_command(spec, "/dev/md0", ["a", "b", "c", "d"])
    state = {"level": "raid10", "raid_disks": 4, "chunk_bytes": 65536,
             "detail": {"Layout": "near=2"}}
    assert raid.matches(spec, state) == ["layout near=2, asked far=2"]
    assert raid.matches(ArraySpec("10", 64, 4, "1G"), state) == []


def test_a_nested_array_is_checked_part_by_part():
    spec = ArraySpec("0+1", 64, 4, "1G")
    part = {"level": "raid0", "raid_disks": 2, "device": "/dev/md1"}
    state = {"level": "raid1", "raid_disks": 2, "device": "/dev/md0",
             "inner": [part, dict(part, device="/dev/md2")]}
    assert raid.matches(spec, state) == []
    state["inner"][1] = dict(part, device="/dev/md2", level="raid1")
    assert raid.matches(spec, state) == ["/dev/md2: raid1 over 2, asked raid0 over 2"]


def test_swap_rates_and_gauges(monkeypatch, tmp_path):
    readings = iter([(0.0, "pswpin 10\npswpout 100\n"), (2.0, "pswpin 12\npswpout 300\n")])
    now = {}

    def read_text(self):
        now["t"], text = next(readings)
        return text

    monkeypatch.setattr(guest.Path, "read_text", read_text)
    monkeypatch.setattr(guest.time, "monotonic", lambda: now["t"])
    rates = guest.SwapRates()
    assert rates() == {"swap_in_per_s": None, "swap_out_per_s": None}
    assert rates() == {"swap_in_per_s": 1, "swap_out_per_s": 100}
    both = guest.gauges(lambda: {"a": 1}, None, lambda: {"b": 2})
    assert both() == {"a": 1, "b": 2} and guest.gauges(None, None) is None


def test_threads_per_core_from_the_guests_sysfs(tmp_path):
    (tmp_path / "thread_siblings_list").write_text("0-1\n")
    assert guest.threads_per_core(tmp_path) == 2


def test_the_guest_makes_the_2004_filesystems():
    for fs in ("ext2", "ext3", "jfs", "reiserfs"):
        assert guest.MKFS[fs][0] == f"mkfs.{fs}"


def test_a_lab_vm_larger_than_the_free_memory_is_refused(tmp_path):
    r = load(tmp_path, lab='[lab]\nmemory = "8G"\n')
    points = plan.build(r.experiment()).points
    meminfo = "MemTotal: 8000000 kB\nMemAvailable: 6000000 kB\n"
    with pytest.raises(UserError, match="the lab VM is to have 8192 MiB of memory, but this host "
                                        "has 5859 MiB available"):
        preflight.check_lab_memory(r, points, meminfo)
    preflight.check_lab_memory(r, points, "MemAvailable: 20000000 kB\n")
    host = load(tmp_path, lab=None)
    preflight.check_lab_memory(host, plan.build(host.experiment()).points, meminfo)


def test_the_lab_machine_table_shows_what_each_guest_saw():
    doc = make_doc()
    assert result_tables.lab_machine(doc) == ""
    caches = {"ON": "write back", "OFF": "write through"}
    for p in doc["points"]:
        for i, run in enumerate(p["runs"]):
            run["lab"] = {"where": "vm", "accelerator": "tcg", "shared_physical_device": True,
                          "kernel": "6.1.0-56-cloud-amd64", "write_cache": caches[p["value"]],
                          "fio": {"fsync_per_s": 400.0 + 100 * i}}
    table = result_tables.lab_machine(doc)
    assert "write cache the guest saw" in table and "fio fsyncs/s" in table
    assert "write through" in table and ">500<" in table   # the median of 400, 500, 600
    assert "threads per core" not in table   # no run recorded it


def test_each_smt_placement_is_checked_whatever_the_order(tmp_path, monkeypatch):
    r = load(tmp_path, sweep='[sweep]\nsetting = "server.cpus"\n'
                             'values = ["siblings", "cores"]\n')
    points = plan.build(r.experiment()).points
    monkeypatch.setattr(preflight.hostinfo, "smt_cores", lambda: [[0, 1]])   # one SMT core
    monkeypatch.setattr(pinning, "available", lambda: [0, 1])
    with pytest.raises(UserError, match="server.cpus = cores: expected a host with SMT"):
        preflight.check_cpus(r, r.experiment(), points)
