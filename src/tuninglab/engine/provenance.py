"""Where a result came from: software versions, the host, the work directory's storage and
its device baseline (fio)."""

import os
from pathlib import Path

from tuninglab import files
from tuninglab.engine import device_baseline, devices, hostinfo, record


def provenance(runs_dir: Path, baseline_seconds: int) -> dict:
    versions = hostinfo.tool_versions()
    return {
        "software": {"sysbench": versions["sysbench"], "fio": versions["fio"],
                     "python": versions["python"], "kernel": os.uname().release,
                     "project": hostinfo.git_revision(files.PROJECT_DIR)},
        "host": hostinfo.host_info(record.host_salt()),
        "storage": devices.storage_info(runs_dir),
        "device_baseline": device_baseline.device_baseline(runs_dir, seconds=baseline_seconds),
    }
