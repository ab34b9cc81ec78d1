"""A scan's dataset sized to the disk it reads from ([dataset] read_seconds). The 2008 scheduler
scans read 13 GB from one SATA drive for 300-480 s; the disk-bound shape's tables (about 366 MB)
are read in seconds by any disk, and the scheduler then has no queue to order. On a named
device (--device) the tables grow until a cold scan at the device's sequential read rate lasts
read_seconds (engine/run/sizing.py measures the rate before anything is written); on a loop
device they keep the shape's rows, and the scan's regime check (scan_seconds) says the run
answers another question.

Standard library only, as model.py.
"""

import dataclasses
import math

MIB = 2**20
# The bytes a cold clustered-index scan reads per sysbench row: 365,920,256 for 1.6M rows
# (229) on the disk-bound shape (data/io-schedulers), rounded down so a dataset errs large.
SCAN_ROW_BYTES = 225


def rows_per_table(dataset, mib_s: float) -> int:
    """The rows per table a scan at mib_s takes dataset.read_seconds to read (never fewer than
    the shape's)."""
    wanted = dataset.read_seconds * mib_s * MIB / SCAN_ROW_BYTES
    return max(dataset.table_size, math.ceil(wanted / dataset.tables))


def sized(dataset, mib_s: float):
    """The dataset sized to a device that reads mib_s MiB/s sequentially, the rate kept."""
    mib_s = round(mib_s, 1)
    return dataclasses.replace(dataset, table_size=rows_per_table(dataset, mib_s),
                               device_read_mib_s=mib_s)


def text(dataset) -> str:
    """What a plan says of the sizing: "" for a dataset without read_seconds."""
    if not dataset.read_seconds:
        return ""
    if dataset.device_read_mib_s is None:
        return (f" (sized only on a named disk, --device, to a {dataset.read_seconds:g} s "
                "scan: on a loop device its regime check is not reached)")
    return (f" (sized to a {dataset.read_seconds:g} s scan at the device's "
            f"{dataset.device_read_mib_s:g} MiB/s sequential read)")
