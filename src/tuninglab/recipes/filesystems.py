"""The filesystems a recipe may name (storage.filesystem), and where each can be made: the one
list that the recipe checks, the host's loop-device sandboxes (engine/storage/sandbox.py) and
the lab VM's guest (engine/lab/guest.py) take their names from. Those two keep their own mkfs
commands (how a filesystem is made, not which); a unit test holds them to this table. Standard
library only: the guest imports it.

ZFS is not here: [zfs] makes a pool in the lab VM (engine/lab/zfs.py), never [storage].
"""

from dataclasses import dataclass


@dataclass(frozen=True)
class Filesystem:
    name: str
    host: bool     # made in a sandbox on this host, by the host's mkfs and kernel
    lab_vm: bool   # made in the lab VM, whose image carries its mkfs tool
    # Only the generic kernel flavour has its module: the cloud and realtime ones do not, so
    # in the lab VM it needs lab.kernel = "amd64", and on the host it cannot be relied on.
    generic_kernel_only: bool = False


# In the order recipe errors list them. ext2 and ext3: the 2004 filesystems, which today's ext4
# driver still mounts; JFS and ReiserFS 3, the 2004 talk's others, only in the lab VM. The lab
# VM's image has no btrfs-progs.
TABLE = (
    Filesystem("ext4", host=True, lab_vm=True),
    Filesystem("xfs", host=True, lab_vm=True),
    Filesystem("btrfs", host=True, lab_vm=False),
    Filesystem("ext3", host=True, lab_vm=True),
    Filesystem("ext2", host=True, lab_vm=True),
    Filesystem("jfs", host=False, lab_vm=True, generic_kernel_only=True),
    Filesystem("reiserfs", host=False, lab_vm=True, generic_kernel_only=True),
)
FILESYSTEMS = tuple(f.name for f in TABLE)
HOST_FILESYSTEMS = tuple(f.name for f in TABLE if f.host)
LAB_FILESYSTEMS = tuple(f.name for f in TABLE if f.lab_vm)
GENERIC_KERNEL_FILESYSTEMS = tuple(f.name for f in TABLE if f.generic_kernel_only)
