"""guard.check_device: every refusal on a fake /sys and /proc built under tmp_path (device nodes
made with mknod), then on this host: its root disk, and a loop device the test attaches."""

import os
import stat
import subprocess
from pathlib import Path

import pytest

from helpers import attached_loop, mounted
from tuninglab.engine.host import devices
from tuninglab.engine.storage import guard
from tuninglab.errors import UserError

ROOT = os.geteuid() == 0


class FakeHost:
    """A host with a root disk vda (254:0, mounted on /) and a spare disk sdb (8:16) with
    partitions sdb1 and sdb2, in sysfs's layout: partitions inside their disk's directory."""

    def __init__(self, base: Path):
        self.base, self.sys, self.dev = base, base / "sys", base / "dev"
        self.mountinfo, self.swaps, self.types = [], [], {}
        self.blkid = str(base / "blkid")
        self.add("vda", 254, 0)
        self.mount("/", "vda")
        self.sdb = self.add("sdb", 8, 16)
        self.add("sdb1", 8, 17, disk="sdb")
        self.add("sdb2", 8, 18, disk="sdb")

    def add(self, name, major, minor, disk=None) -> Path:
        d = self.sys / "devices/block" / (f"{disk}/{name}" if disk else name)
        (d / "holders").mkdir(parents=True)
        (d / "slaves").mkdir()
        (d / "dev").write_text(f"{major}:{minor}\n")
        if disk:
            (d / "partition").write_text("1\n")
        for link in (self.sys / "class/block" / name, self.sys / f"dev/block/{major}:{minor}"):
            link.parent.mkdir(parents=True, exist_ok=True)
            link.symlink_to(d)
        self.dev.mkdir(exist_ok=True)
        try:
            os.mknod(self.dev / name, 0o600 | stat.S_IFBLK, os.makedev(major, minor))
        except PermissionError:
            pytest.skip("needs root to make the fake device nodes (mknod)")
        return self.dev / name

    def mount(self, point, name=None, source=None, fstype="ext4"):
        number = (self.sys / "class/block" / name / "dev").read_text().strip() if name else "0:55"
        source = source or f"/dev/{name}"
        self.mountinfo.append(f"{len(self.mountinfo) + 20} 1 {number} / {point} rw,relatime "
                              f"- {fstype} {source} rw")

    def link(self, holder, below):
        (self.sys / "class/block" / below / "holders" / holder).touch()
        (self.sys / "class/block" / holder / "slaves" / below).touch()

    def check(self, path=None, destroy_data=True):
        (self.base / "proc/self").mkdir(parents=True, exist_ok=True)
        (self.base / "proc/self/mountinfo").write_text("\n".join(self.mountinfo) + "\n")
        (self.base / "proc/swaps").write_text(
            "Filename\tType\tSize\tUsed\tPriority\n" +
            "".join(f"{s}\tpartition\t1024\t0\t-2\n" for s in self.swaps))
        cases = "".join(f"  {n}) echo {t}; exit 0;;\n" for n, t in self.types.items())
        script = self.base / "blkid"  # prints the TYPE set in self.types, else finds nothing
        script.write_text(f'#!/bin/sh\ncase "$(basename "$6")" in\n{cases}esac\nexit 2\n')
        script.chmod(0o755)
        return guard.check_device(str(path or self.sdb), destroy_data, sys_root=str(self.sys),
                                  proc_root=str(self.base / "proc"), blkid=self.blkid)


@pytest.fixture
def host(tmp_path):
    return FakeHost(tmp_path)


def test_a_free_disk_is_accepted_by_any_name(host):
    by_id = host.dev / "disk/by-id/ata-SPARE"
    by_id.parent.mkdir(parents=True)
    by_id.symlink_to("../../sdb")
    assert host.check(by_id) == str(host.sdb)


def test_without_destroy_data_it_asks_for_it(host):
    with pytest.raises(UserError, match=r"erases everything on .*/sdb: add --destroy-data"):
        host.check(destroy_data=False)


def test_a_missing_path_or_a_file_is_refused(host, tmp_path):
    with pytest.raises(UserError, match=r"refusing .*/sdz: it does not exist"):
        host.check(host.dev / "sdz")
    (tmp_path / "plain").write_text("")
    with pytest.raises(UserError, match=r"refusing .*/plain: it is not a block device"):
        host.check(tmp_path / "plain")


@pytest.mark.parametrize("name, how", [("sdb", "number"), ("sdb1", "number"),
                                       ("sdb2", "source")])  # btrfs: 0:N and the source
def test_a_mounted_disk_or_partition_is_refused(host, name, how):
    if how == "number":
        host.mount("/mnt/data", name)
    else:
        host.mount("/mnt/data", source=str(host.dev / name), fstype="btrfs")
    with pytest.raises(UserError, match=rf"refusing .*/sdb: /dev/{name} is mounted on /mnt/data"):
        host.check()


def test_a_disk_mounted_in_another_mount_namespace_is_refused(host):
    """Only this process's mountinfo was read: a mount in a container's namespace passed."""
    sdb1 = (host.sys / "class/block/sdb1/dev").read_text().strip()
    other = host.base / "proc/4242"
    other.mkdir(parents=True)
    (other / "mountinfo").write_text(f"30 1 {sdb1} / /srv rw - ext4 /dev/sdb1 rw\n")
    with pytest.raises(UserError, match=r"refusing .*/sdb: /dev/sdb1 is mounted on /srv in the "
                                        r"mount namespace of pid 4242$"):
        host.check()


def test_a_disk_that_backs_a_loop_device_is_refused(host):
    """loop2 attached to the disk held a filesystem mounted elsewhere: it was formatted."""
    host.add("loop2", 7, 2)
    (host.sys / "class/block/loop2/loop").mkdir()
    (host.sys / "class/block/loop2/loop/backing_file").write_text("/dev/sdb2\n")
    with pytest.raises(UserError, match=r"refusing .*/sdb: /dev/sdb2 backs the loop device "
                                        r"/dev/loop2 \(losetup\)"):
        host.check()
    host.add("loop3", 7, 3)  # a loop device on a plain file is no use of the disk
    (host.sys / "class/block/loop3/loop").mkdir()
    (host.sys / "class/block/loop3/loop/backing_file").write_text(str(host.base / "x.img"))
    (host.sys / "class/block/loop2/loop/backing_file").unlink()
    assert host.check() == str(host.sdb)


def test_a_swap_partition_is_refused(host):
    host.swaps.append(str(host.dev / "sdb2"))
    with pytest.raises(UserError, match=r"refusing .*/sdb: .*/sdb2 is in use as swap"):
        host.check()


def test_a_partition_with_holders_is_refused(host):
    host.add("md0", 9, 0)
    host.link("md0", "sdb1")
    with pytest.raises(UserError, match=r"refusing .*/sdb: /dev/sdb1 is held by md0 \(md RAID"):
        host.check()


@pytest.mark.parametrize("kind", ["linux_raid_member", "LVM2_member", "zfs_member"])
def test_a_raid_lvm_or_zfs_signature_is_refused(host, kind):
    host.types["sdb2"] = kind
    with pytest.raises(UserError, match=rf"refusing .*/sdb: /dev/sdb2 carries a {kind} signature"):
        host.check()


def test_missing_blkid_is_named(host):
    host.blkid = str(host.base / "no-such-blkid")
    with pytest.raises(UserError, match=r"refusing .*/sdb: blkid is missing"):
        host.check()


def test_the_disk_and_partition_of_root_are_refused_and_so_is_a_sibling(host):
    host.mount("/", "sdb2")  # stacked over the first /: this one is in force
    for name in ("sdb", "sdb2"):
        with pytest.raises(UserError, match=rf"refusing .*/{name}: it holds /"):
            host.check(host.dev / name)
    with pytest.raises(UserError, match=r"refusing .*/sdb1: it is a partition of /dev/sdb, the "
                                        r"disk that holds /"):
        host.check(host.dev / "sdb1")


def test_a_disk_under_an_lvm_root_is_refused(host):
    host.add("dm-0", 253, 0)
    host.link("dm-0", "sdb2")
    host.mount("/", "dm-0")
    with pytest.raises(UserError, match=r"refusing .*/sdb: it holds /"):
        host.check()


# --- this host -----------------------------------------------------------------------------

@pytest.fixture
def loop(tmp_path):
    if not ROOT:
        pytest.skip("needs root: loop devices, mkfs and mount")
    with attached_loop(tmp_path / "disk.img") as device:
        yield device


@pytest.mark.integration
def test_this_hosts_root_disk_is_refused():
    if not ROOT:
        pytest.skip("needs root to read block devices")
    device = devices.storage_info("/")["device"]
    if device is None:
        pytest.skip("/ is not on a block device here (overlay or tmpfs)")
    with pytest.raises(UserError, match=rf"refusing /dev/{device}: it holds /"):
        guard.check_device(f"/dev/{device}", destroy_data=True)


@pytest.mark.integration
def test_a_free_loop_device_is_accepted_only_with_destroy_data(loop):
    assert guard.check_device(loop, destroy_data=True) == loop
    with pytest.raises(UserError, match=f"erases everything on {loop}: add --destroy-data"):
        guard.check_device(loop, destroy_data=False)


@pytest.mark.integration
@pytest.mark.parametrize("fs", ["ext4", "btrfs"])  # btrfs mounts show 0:N, not the device
def test_a_mounted_loop_device_is_refused(loop, tmp_path, fs):
    with mounted(loop, tmp_path / "mnt", fs):
        with pytest.raises(UserError, match=rf"refusing {loop}: {loop} is mounted on {tmp_path}"):
            guard.check_device(loop, destroy_data=True)
    assert guard.check_device(loop, destroy_data=True) == loop


@pytest.mark.integration
def test_a_loop_device_with_a_mounted_partition_is_refused(tmp_path):
    if not ROOT:
        pytest.skip("needs root: loop devices, mkfs and mount")
    with attached_loop(tmp_path / "disk.img", partitioned=True) as disk:
        part = f"{disk}p1"
        with mounted(part, tmp_path / "mnt"):
            with pytest.raises(UserError, match=rf"refusing {disk}: {part} is mounted on"):
                guard.check_device(disk, destroy_data=True)
        assert guard.parent_disk(Path(part).name) == Path(disk).name


@pytest.mark.integration
def test_a_loop_device_another_loop_device_is_attached_to_is_refused(loop):
    """The issue's case (57): loop B attached to the named loop A; B's filesystem is its data."""
    on_top = subprocess.run(["losetup", "--find", "--show", loop], capture_output=True,
                            text=True, check=True).stdout.strip()
    try:
        with pytest.raises(UserError, match=rf"refusing {loop}: {loop} backs the loop device "
                                            rf"{on_top} \(losetup\)"):
            guard.check_device(loop, destroy_data=True)
    finally:
        subprocess.run(["losetup", "-d", on_top], check=True)
    assert guard.check_device(loop, destroy_data=True) == loop
