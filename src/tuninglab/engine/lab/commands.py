"""Running the guest's storage commands (mdadm, zpool, zfs, modprobe): the output, or an
error that names the command and carries its message."""

import subprocess


def run(cmd: list[str]) -> str:
    out = subprocess.run(cmd, capture_output=True, text=True)
    if out.returncode != 0:
        raise RuntimeError(f"`{' '.join(cmd)}` failed: {out.stderr.strip()}")
    return out.stdout
