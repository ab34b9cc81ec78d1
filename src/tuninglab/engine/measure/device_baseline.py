"""A short fio measurement of the storage under the datadir.

Two numbers make runs from different machines comparable: how many
fsyncs per second the device sustains (the redo log's limit) and its 16K
random write IOPS (page flushing's limit).
"""

import contextlib
import json
import os
import shutil
import subprocess
import tempfile

from tuninglab.engine.host.hostinfo import parse_fio_version
from tuninglab.errors import UserError

MIB = 1024 * 1024


def device_baseline(directory, seconds=3, size_mb=64) -> dict:
    for name, value in (("seconds", seconds), ("size_mb", size_mb)):
        if not isinstance(value, int) or value <= 0:
            raise ValueError(f"{name} must be a positive int, not {value!r}")
    directory = os.fspath(directory)
    _check_free_space(directory, size_mb)
    fd, path = tempfile.mkstemp(prefix=".tuninglab-fio-", dir=directory)
    os.close(fd)
    try:
        direct = _accepts_o_direct(path)
        fsync = _run_fio(path, seconds, size_mb, "--rw=write", "--ioengine=sync",
                         "--fsync=1")
        randwrite = _run_fio(path, seconds, size_mb, "--rw=randwrite",
                             "--ioengine=libaio", "--iodepth=16",
                             f"--direct={int(direct)}")
    finally:  # also on KeyboardInterrupt: never leave the test file behind
        with contextlib.suppress(FileNotFoundError):
            os.remove(path)
    return {
        "tool": "fio",
        "fio_version": fsync["fio_version"],
        "fsync_per_s": fsync["fsync_per_s"],
        "randwrite_16k_iops": randwrite["write_iops"],
        "direct": direct,
        "seconds": seconds,
        "size_mb": size_mb,
    }


def parse_fio_json(text: str) -> dict:
    """Write figures of the first job of fio --output-format=json."""
    # fio may print warnings on stdout before the JSON document.
    start = text.find("{")
    if start < 0:
        raise ValueError("no JSON document in fio output")
    data = json.loads(text[start:])
    job = data["jobs"][0]
    runtime_s = job["job_runtime"] / 1000
    sync_ios = job.get("sync", {}).get("total_ios", 0)
    return {
        "fio_version": parse_fio_version(data.get("fio version")),
        "error": job["error"],
        "runtime_s": runtime_s,
        "write_iops": job["write"]["iops"],
        "write_bw_bytes": job["write"]["bw_bytes"],
        "write_ios": job["write"]["total_ios"],
        "fsync_per_s": sync_ios / runtime_s if runtime_s else 0.0,
    }


def _run_fio(path, seconds, size_mb, *job_options) -> dict:
    argv = ["fio", "--name=baseline", f"--filename={_fio_escape(path)}",
            "--bs=16k", f"--size={size_mb}M", "--time_based",
            f"--runtime={seconds}", "--output-format=json", *job_options]
    try:
        proc = subprocess.run(argv, capture_output=True, text=True)
    except FileNotFoundError:
        raise UserError("fio not found: install it with `apt-get install fio`")
    if proc.returncode != 0:
        raise UserError(f"fio failed on {path}: {_tail(proc.stderr or proc.stdout)}")
    result = parse_fio_json(proc.stdout)
    if result["error"]:
        raise UserError(f"fio failed on {path} with error {result['error']}: "
                        f"{_tail(proc.stderr)}")
    return result


def _check_free_space(directory, size_mb):
    if not os.path.isdir(directory):
        raise UserError(f"{directory} is not a directory: create it before the baseline")
    free = shutil.disk_usage(directory).free
    if free < size_mb * 2 * MIB:
        raise UserError(f"{directory} has {free / MIB:.0f} MiB free; the fio baseline "
                        f"needs {size_mb * 2} MiB: free space or lower size_mb")


def _accepts_o_direct(path) -> bool:
    # Some filesystems (tmpfs before Linux 6.6) refuse O_DIRECT with EINVAL.
    try:
        os.close(os.open(path, os.O_WRONLY | os.O_DIRECT))
    except OSError:
        return False
    return True


def _fio_escape(path):
    return path.replace(":", "\\:")  # fio splits file names on ':'


def _tail(text, lines=5):
    return " | ".join(text.strip().splitlines()[-lines:]) or "(no output)"
