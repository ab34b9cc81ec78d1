"""A scan's dataset sized to the named device it runs on, before anything is written
(recipes/scan_size.py says why): fio reads the device sequentially for a few seconds, read-only
with direct IO so the page cache serves none of it, and the tables grow until a cold scan at that
rate lasts [dataset] read_seconds. A dataset the device cannot hold is refused. The rate is kept
in the work directory (RATES), so that a resumed run sizes its tables as the first did and finds
its results and its template datadir again; delete the file to measure again. It is an
estimate (the server's reads go through the page cache and read-ahead): the scan's regime check
(scan_seconds) says afterwards whether the scan read as long as it had to.
"""

import dataclasses
import json
import os
import subprocess
from pathlib import Path

from tuninglab.engine.server import datadir
from tuninglab.errors import UserError
from tuninglab.recipes import scan_size

FIO_SECONDS = 5
RATES = "device-read-rates.json"  # in the work directory: {"<device> <bytes>": MiB/s}
# The share of the device the dataset may take: the filesystem, the redo log, the server's own
# files and a run's growth need the rest.
FIT = 0.8
GIB = 2**30


def read_mib_s(device: str, seconds: int = FIO_SECONDS) -> float:
    """The device's sequential read rate in MiB/s (fio, read-only, direct, 1 MiB blocks)."""
    argv = ["fio", "--name=scan-size", f"--filename={device.replace(':', chr(92) + ':')}",
            "--readonly", "--rw=read", "--bs=1M", "--direct=1", "--ioengine=libaio",
            "--iodepth=8", "--time_based", f"--runtime={seconds}", "--output-format=json"]
    try:
        out = subprocess.run(argv, capture_output=True, text=True, timeout=seconds + 120)
    except FileNotFoundError:
        raise UserError("fio not found: install it with `apt-get install fio`") from None
    except subprocess.TimeoutExpired:
        raise UserError(f"fio did not finish reading {device} in {seconds + 120} s, to size "
                        "the scan's dataset") from None
    if out.returncode != 0:
        raise UserError(f"fio could not read {device} to size the scan's dataset: "
                        f"{(out.stderr or out.stdout).strip()[-300:]}")
    return parse_read_mib_s(out.stdout, device)


def parse_read_mib_s(text: str, device: str) -> float:
    """The read rate of fio's first job, in MiB/s, from --output-format=json."""
    try:
        job = json.loads(text[text.index("{"):])["jobs"][0]
        rate = job["read"]["bw_bytes"] / scan_size.MIB
    except (ValueError, KeyError, IndexError, TypeError):
        raise UserError(f"fio's report on {device} holds no read rate: expected its JSON "
                        "output with jobs[0].read.bw_bytes") from None
    if job.get("error") or not rate > 0:
        raise UserError(f"fio read nothing from {device} (error {job.get('error', 0)}): the "
                        "scan's dataset cannot be sized to it")
    return rate


def device_bytes(device: str, sys_root: str = "/sys") -> int:
    """The device's size, from /sys (512-byte sectors, whatever its logical block size)."""
    name = Path(os.path.realpath(device)).name
    return int((Path(sys_root) / "class" / "block" / name / "size").read_text()) * 512


def remembered_rate(device: str, workdir: Path, measure=read_mib_s) -> float:
    """The device's read rate as first measured from this work directory (measured now, and
    kept, if it never was): one disk is one rate, whatever a second fio run reads."""
    path = Path(workdir) / RATES
    key = f"{os.path.realpath(device)} {device_bytes(device)}"
    try:
        rates = json.loads(path.read_text())
    except (OSError, ValueError):
        rates = {}
    rate = rates.get(key) if isinstance(rates, dict) else None
    if not (isinstance(rate, (int, float)) and rate > 0):
        rates = rates if isinstance(rates, dict) else {}
        rates[key] = rate = round(measure(device), 1)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(rates, indent=1, sort_keys=True) + "\n")
    return float(rate)


def sized(experiment, device: str, workdir: Path, mib_s: float | None = None,
          capacity: int | None = None):
    """The experiment with its dataset sized to the device (unchanged without read_seconds);
    mib_s (else remembered_rate) and capacity (else the device's size) as given."""
    d = experiment.dataset
    if not d.read_seconds or d.warehouses:
        return experiment
    rate = remembered_rate(device, workdir) if mib_s is None else mib_s
    new = scan_size.sized(d, rate)
    need = datadir.estimated_bytes(new)
    have = device_bytes(device) if capacity is None else capacity
    if need > FIT * have:
        raise UserError(
            f"{device}: a {d.read_seconds:g} s scan at its {rate:.0f} MiB/s sequential read "
            f"needs {new.tables} tables x {new.table_size:,} rows (about {need / GIB:.1f} GiB), "
            f"more than {FIT:.0%} of its {have / GIB:.1f} GiB: name a larger (or slower) disk")
    return dataclasses.replace(experiment, dataset=new)
