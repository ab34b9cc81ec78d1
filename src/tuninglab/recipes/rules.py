"""The checks across tables: what one table of a recipe rules out or implies for another, once
each table has been parsed alone (tables.py, lab.py). A ZFS pool is the storage itself; the lab
VM boots a default ext4 sandbox, keeps glibc's allocator, the VM's CPUs, a timed workload and
the redo log in the datadir; a sandbox needs root; a scan needs one; each filesystem is made
where it can be; a sweep's values are checked against the table it sweeps; a tpcc workload has
its warehouses. load._build applies them in the order of RULES: the first problem is reported.
"""

import dataclasses
from dataclasses import dataclass

from tuninglab.recipes.defaults_sets import check as check_defaults
from tuninglab.recipes.filesystems import GENERIC_KERNEL_FILESYSTEMS, LAB_FILESYSTEMS
from tuninglab.recipes.lab import LAB_DEFAULTS, check_lab_values
from tuninglab.recipes.model import LOGS, Dataset, Sweep, Workload, in_lab_vm
from tuninglab.recipes.reader import Reader
from tuninglab.recipes.warehouses import check_warehouses
from tuninglab.recipes.tables import (
    check_arrays,
    check_server_values,
    check_workload_values,
    check_zfs_values,
    parse_storage,
)


@dataclass(frozen=True)
class Tables:
    """A recipe's tables as parsed, each alone, and the Readers whose keys the errors name."""
    top: Reader
    sweep_table: Reader
    raid_table: Reader
    needs: tuple[str, ...]
    storage: tuple
    raid: tuple
    lab: tuple
    zfs: tuple
    sweep: Sweep
    workload: Workload
    allocator: str
    cpus: int | str
    dataset: Dataset

    @property
    def in_lab_vm(self) -> bool:
        return in_lab_vm(self.raid, self.lab, self.zfs)


def apply(t: Tables) -> Tables:
    """The tables checked against each other (Reader.fail on the first problem), with the
    storage and the needs they imply filled in."""
    zfs_is_the_storage(t)
    t = dataclasses.replace(t, storage=storage_under_test(t))
    t = dataclasses.replace(t, needs=needs_with_root(t))
    for rule in RULES:
        rule(t)
    return t


def zfs_is_the_storage(t: Tables) -> None:
    if t.zfs and (t.storage or t.raid):
        t.top.fail("zfs", "a ZFS pool is the storage itself: drop [storage] and [raid]")


def storage_under_test(t: Tables) -> tuple:
    """[storage]; the ZFS pool's; or, for an array or a lab VM without one, ext4."""
    if t.zfs:
        return (("filesystem", "zfs"), ("size", dict(t.zfs)["size"]))
    if (t.raid or t.lab) and not t.storage:
        return parse_storage(Reader(t.top.path, {"filesystem": "ext4"}, "storage"))
    return t.storage


def needs_with_root(t: Tables) -> tuple[str, ...]:
    if t.storage and "root" not in t.needs:
        return t.needs + ("root",)  # loop devices, mkfs and mount
    return t.needs


def swept_table_exists(t: Tables) -> None:
    swept = t.sweep.table
    tables = {"storage": t.storage, "raid": t.raid, "lab": t.lab, "zfs": t.zfs}
    if swept in tables and not tables[swept]:
        t.sweep_table.fail("setting", f"a {swept}.* sweep needs a [{swept}] table")


def sweep_values(t: Tables) -> None:
    """The sweep's values against the table it sweeps (and every point's md array)."""
    swept, sweep, sweep_table = t.sweep.table, t.sweep, t.sweep_table
    if swept == "workload":
        check_workload_values(sweep, t.workload, sweep_table)
    if t.raid:
        check_arrays(t.raid, sweep, t.raid_table, sweep_table)
    if swept == "lab":
        check_lab_values(sweep, sweep_table)
    if swept == "zfs":
        check_zfs_values(sweep, sweep_table)
    if swept == "server":
        check_server_values(sweep, sweep_table)
    if sweep.setting == "storage.logs":
        for value in sweep.values:
            if value not in LOGS:
                sweep_table.fail("values", f"{value!r}: expected one of {', '.join(LOGS)}")


def defaults_swept(t: Tables) -> None:
    check_defaults(t.sweep, t.sweep.sets, t.sweep_table, t.top)


def zfs_on_bookworms_kernel(t: Tables) -> None:
    if t.zfs and (dict(t.lab).get("kernel_from") == "bookworm-backports"
                  or t.sweep.setting == "lab.kernel_from"):
        t.top.fail("lab.kernel_from", "the ZFS image builds OpenZFS for bookworm's own kernel: "
                                      "expected bookworm with [zfs]")


def lab_vm_keeps_the_server(t: Tables) -> None:
    """Allocators and CPU counts are this host's: the lab VM's server has glibc's and the
    VM's CPUs."""
    swept = t.sweep.table == "server"
    if t.in_lab_vm and (t.allocator != "glibc" or t.cpus or swept):
        t.top.fail(t.sweep.setting if swept else "server",
                   "the lab VM's server keeps glibc's allocator and the VM's CPUs: allocators "
                   "and CPU counts are measured on this host (no [raid], [lab] or [zfs])")


def lab_vm_times_its_workload(t: Tables) -> None:
    if t.in_lab_vm and not t.workload.timed:
        t.top.fail("workload.tool", "recipes in the lab VM measure sysbench workloads")


def lab_vm_keeps_the_logs(t: Tables) -> None:
    if t.in_lab_vm and (dict(t.storage).get("logs") == "separate"
                        or t.sweep.setting == "storage.logs"):
        t.top.fail("storage.logs", "the lab VM keeps the redo log in the datadir")


def filesystems_made_where_they_run(t: Tables) -> None:
    """Each point's filesystem can be made where it runs (filesystems.TABLE): in the lab VM,
    only what its image has the tools for; JFS and ReiserFS only there, with the generic
    kernel. A ZFS pool is made by [zfs]."""
    if not t.storage or t.zfs:
        return
    lab = dict(t.lab) or (LAB_DEFAULTS if t.raid else {})
    swept = t.sweep.setting == "storage.filesystem"
    names = t.sweep.values if swept else (dict(t.storage)["filesystem"],)
    kernels = t.sweep.values if t.sweep.setting == "lab.kernel" else (lab.get("kernel"),)
    for fs in names:
        problem = _filesystem_problem(fs, bool(lab), kernels)
        if problem:
            t.top.fail("sweep.values" if swept else "storage.filesystem", f"{fs!r}: {problem}")


def _filesystem_problem(fs: str, in_lab: bool, kernels) -> str | None:
    if in_lab and fs not in LAB_FILESYSTEMS:
        return f"the lab VM's image makes {', '.join(LAB_FILESYSTEMS)}"
    if fs in GENERIC_KERNEL_FILESYSTEMS and not in_lab:
        return (f"this host's kernel cannot be relied on to have {fs}: it is made in the lab VM "
                '(add [lab] with kernel = "amd64")')
    if fs in GENERIC_KERNEL_FILESYSTEMS and set(kernels) != {"amd64"}:
        return (f"only the generic kernel flavour has the {fs} module "
                '(expected lab.kernel = "amd64")')
    return None


def tpcc_warehouses(t: Tables) -> None:
    check_warehouses(t.top, t.dataset, t.workload, t.sweep)


def scan_has_a_sandbox(t: Tables) -> None:
    if t.workload.is_scan and not t.storage:
        t.top.fail("workload.tool", "a scan needs a [storage] table: its sandbox lets the page "
                                    "cache be dropped before each scan")


# After the storage and needs are filled in (apply), in this order.
RULES = (swept_table_exists, sweep_values, defaults_swept, zfs_on_bookworms_kernel,
         lab_vm_keeps_the_server, lab_vm_times_its_workload, lab_vm_keeps_the_logs, filesystems_made_where_they_run,
         tpcc_warehouses, scan_has_a_sandbox)
