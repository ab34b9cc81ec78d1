"""Servers and lab VMs a killed run left behind in a work directory, found by their pid files."""

import os
import signal
from pathlib import Path


def reap_stale_servers(wd: Path) -> list[int]:
    """Stop servers (and lab VMs) a killed run left behind in this work directory (found by
    pid file)."""
    reaped = []
    for pattern in ("runs/*/mysqld.pid", "templates/*/mysqld.pid", "sandboxes/*/*/mysqld.pid",
                    "vm/jobs/*/qemu.pid"):
        for pidfile in wd.glob(pattern):
            try:
                pid = int(pidfile.read_text().strip())
                cmdline = Path(f"/proc/{pid}/cmdline").read_bytes().decode(errors="replace")
            except (OSError, ValueError):
                continue
            if str(pidfile.parent) in cmdline:
                os.kill(pid, signal.SIGKILL)
                reaped.append(pid)
    return reaped
