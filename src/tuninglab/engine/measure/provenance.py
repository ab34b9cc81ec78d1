"""Where a result came from: software versions, the host, the work directory's storage and
its device baseline (fio)."""

import os
import secrets
from pathlib import Path

from tuninglab import files
from tuninglab.engine.host import devices, hostinfo
from tuninglab.engine.measure import device_baseline, noise


def provenance(runs_dir: Path, baseline_seconds: int) -> dict:
    """runs_dir: in the work directory, whose noise.json (invoke lab.noise) joins the result
    when it is this host's."""
    versions = hostinfo.tool_versions()
    host = hostinfo.host_info(host_salt())
    calibration = noise.load(runs_dir.parent, host["id"])
    return {
        "software": {"sysbench": versions["sysbench"], "fio": versions["fio"],
                     "python": versions["python"], "kernel": os.uname().release,
                     "project": hostinfo.git_revision(files.PROJECT_DIR)},
        "host": host,
        "storage": devices.storage_info(runs_dir),
        "device_baseline": device_baseline.device_baseline(runs_dir, seconds=baseline_seconds),
        **({"noise": calibration} if calibration else {}),
    }


def host_id() -> str:
    """This host's id, as results give it."""
    return hostinfo.host_info(host_salt())["id"]


def host_salt() -> str:
    """A random salt kept per user, so host ids group one host's results but reveal no name."""
    path = Path(os.environ.get("XDG_CONFIG_HOME") or Path.home() / ".config") / "tuninglab" / "salt"
    try:
        return path.read_text().strip()
    except OSError:
        salt = secrets.token_hex(16)
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(salt + "\n")
        except OSError:
            pass  # no writable home: this run's id is still a salted hash, just not a stable one
        return salt
