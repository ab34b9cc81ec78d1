"""What a reader calls the setting a recipe sweeps, in one table: charts title their axes,
legends and tooltips with it instead of the recipe's key.

A server option (innodb_flush_method) is named as it is: it is what a reader types in my.cnf
and searches for. The lab's own keys ("<table>.<key>": storage.read_ahead_kb, raid.chunk) are
internal names and get a reader's name, with the unit of their values when the values carry
none (read_ahead_kb is a number of KiB; raid.chunk's "64K" says its own).

Every key a recipe may sweep (recipes.model.SWEPT_TABLES) has an entry here; a test holds the
two together. Texts are plain: callers escape them where they put them on a page.
"""

from dataclasses import dataclass


@dataclass(frozen=True)
class Setting:
    label: str
    unit: str = ""  # of the swept values, when they carry none


SETTINGS = {
    "storage.filesystem": Setting("filesystem"),
    "storage.mount_options": Setting("mount options"),
    "storage.scheduler": Setting("IO scheduler"),
    "storage.read_ahead_kb": Setting("read-ahead", "KiB"),
    "storage.logs": Setting("redo log device"),  # same (as the data) or separate
    "raid.level": Setting("RAID level"),
    "raid.chunk": Setting("RAID chunk size"),
    "raid.disks": Setting("RAID member disks"),
    "raid.state": Setting("RAID array state"),
    "raid.layout": Setting("RAID10 layout"),   # n2, f2, o2: where md puts the second copy
    "lab.kernel": Setting("kernel flavour"),
    "lab.kernel_from": Setting("kernel from"),   # bookworm (6.1) or bookworm-backports
    "lab.mitigations": Setting("CPU mitigations"),
    "lab.pti": Setting("page-table isolation (pti=)"),
    "lab.disk_cache": Setting("disk write cache (qemu cache mode)"),
    "lab.topology": Setting("vCPU topology"),   # two cores, or one core's two threads
    "lab.memory": Setting("VM memory"),
    "lab.swap": Setting("swap disk"),
    "lab.swappiness": Setting("swappiness"),  # vm.swappiness in the guest
    "zfs.recordsize": Setting("ZFS recordsize"),
    "zfs.compression": Setting("ZFS compression"),
    "zfs.logbias": Setting("ZFS logbias"),
    "zfs.primarycache": Setting("ZFS primarycache"),
    "workload.commit": Setting("COMMIT every"),  # statement, N rows, or a time (1s)
    "workload.key": Setting("table key"),
    "workload.active_warehouses": Setting("active warehouses"),
    "workload.threads": Setting("client threads"),
    "server.allocator": Setting("memory allocator"),
    "server.cpus": Setting("server CPUs"),
    "server.defaults": Setting("defaults"),  # today's, or a named set of earlier ones
}


def setting_label(key: str) -> str:
    """The setting's name: "read-ahead", "innodb_flush_method"."""
    return SETTINGS[key].label if key in SETTINGS else key


def setting_title(key: str) -> str:
    """An axis title: the name with the values' unit, "read-ahead (KiB)"."""
    unit = SETTINGS[key].unit if key in SETTINGS else ""
    return f"{setting_label(key)} ({unit})" if unit else setting_label(key)


def setting_value(key: str, value: str) -> str:
    """One point of the sweep in words: "read-ahead = 128 KiB", "innodb_purge_threads = 4"."""
    unit = SETTINGS[key].unit if key in SETTINGS else ""
    return f"{setting_label(key)} = {value}" + (f" {unit}" if unit else "")
