"""The one list of filesystems (recipes/filesystems.py) and the two places that make them: the
host's sandboxes and the lab VM's guest each have an mkfs command for exactly the filesystems
the table says that place makes, and refuse the others naming the table's list."""

import pytest

from tuninglab.engine.lab import guest
from tuninglab.engine.storage import sandbox
from tuninglab.errors import UserError
from tuninglab.recipes import filesystems


def test_the_sandbox_has_an_mkfs_for_exactly_the_hosts_filesystems():
    assert list(sandbox.MKFS) == list(filesystems.HOST_FILESYSTEMS)


def test_the_guest_has_an_mkfs_for_exactly_the_lab_vms_filesystems():
    assert list(guest.MKFS) == list(filesystems.LAB_FILESYSTEMS)


def test_each_mkfs_command_makes_its_own_filesystem():
    for fs, (command, _package) in sandbox.MKFS.items():
        assert command[0] == f"mkfs.{fs}"
    for fs, command in guest.MKFS.items():
        assert command[0] == f"mkfs.{fs}"


def test_every_filesystem_is_made_somewhere_and_the_generic_kernels_only_in_the_lab_vm():
    for fs in filesystems.TABLE:
        assert fs.host or fs.lab_vm, fs
        assert not (fs.generic_kernel_only and fs.host), fs
    assert filesystems.FILESYSTEMS == ("ext4", "xfs", "btrfs", "ext3", "ext2", "jfs", "reiserfs")


def test_the_guest_refuses_a_filesystem_the_lab_vm_does_not_make():
    with pytest.raises(RuntimeError, match="the lab VM makes ext4, xfs, ext3, ext2, jfs, "
                                           "reiserfs, not btrfs"):
        guest.make_filesystem({"filesystem": "btrfs"}, "/dev/null")


def test_the_sandbox_refuses_a_filesystem_the_host_does_not_make(tmp_path):
    box = sandbox.Sandbox(tmp_path, sandbox.Spec(filesystem="jfs"))
    with pytest.raises(UserError, match=r"filesystem 'jfs' is not supported \(expected one of "
                                        r"ext4, xfs, btrfs, ext3, ext2\)"):
        box._build()
