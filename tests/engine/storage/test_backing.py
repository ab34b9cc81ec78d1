"""What physical disks a block device's IO ends on (engine/storage/backing.py), on a captured
/sys/class/block tree: a loop device's backing file's disk, a partition's disk, an md or
device-mapper device's members; [] where no disk can be told."""

from pathlib import Path

from tuninglab.engine.storage import backing


def sys_tree(tmp_path: Path) -> Path:
    """loop0 and loop1 over files on vda1; loop2 over a file on tmpfs; md0 over vdb and vdc;
    dm-0 over vdd1."""
    root = tmp_path / "class-block"
    for name, file in (("loop0", "/work/a.img"), ("loop1", "/work/b.img"),
                       ("loop2", "/dev/shm/c.img")):
        (root / name / "loop").mkdir(parents=True)
        (root / name / "loop" / "backing_file").write_text(file + "\n")
    for name, members in (("md0", ("vdb", "vdc")), ("dm-0", ("vdd1",))):
        (root / name / "slaves").mkdir(parents=True)
        for m in members:
            (root / name / "slaves" / m).mkdir()
    return root


def fake_host(monkeypatch):
    where = {"/work": "vda1", "/dev/shm": None}
    monkeypatch.setattr(backing, "storage_info", lambda path: {"device": where[path]})
    monkeypatch.setattr(backing, "whole_disk", lambda name: name[:-1] if name[-1].isdigit()
                        and name.startswith("vd") else name)


def test_loop_devices_over_files_on_one_disk_end_on_that_disk(tmp_path, monkeypatch):
    fake_host(monkeypatch)
    root = sys_tree(tmp_path)
    assert backing.physical_disks("/dev/loop0", root) == ["vda"]
    assert backing.physical_disks("loop1", root) == ["vda"]


def test_arrays_end_on_their_members_and_a_partition_on_its_disk(tmp_path, monkeypatch):
    fake_host(monkeypatch)
    root = sys_tree(tmp_path)
    assert backing.physical_disks("md0", root) == ["vdb", "vdc"]
    assert backing.physical_disks("dm-0", root) == ["vdd"]
    assert backing.physical_disks("/dev/vde2", root) == ["vde"]


def test_a_file_on_no_disk_tells_none(tmp_path, monkeypatch):
    fake_host(monkeypatch)
    assert backing.physical_disks("loop2", sys_tree(tmp_path)) == []


def test_this_hosts_root_disk_is_its_own():
    disk = Path("/sys/class/block").iterdir()
    name = next((p.name for p in disk if not p.name.startswith(("loop", "ram"))), None)
    if name:
        assert backing.physical_disks(name)
