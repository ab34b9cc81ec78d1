"""What building a Debian root here needs (the lab VM image, a server's root): root, the tools,
and each step's output kept in a log whose end an error shows."""

import os
import shutil
import subprocess
from pathlib import Path

from tuninglab.errors import UserError


def check_tools(what: str, tools: tuple, packages: str) -> None:
    """what: "the lab VM image", say; packages: the apt-get line that installs the tools."""
    if os.geteuid() != 0:
        raise UserError(f"building {what} needs root (debootstrap and chroot); run it with sudo")
    missing = [t for t in tools if not shutil.which(t)]
    if missing:
        raise UserError(f"building {what} needs {', '.join(missing)} (`apt-get install "
                        f"{packages}`)")


def run_logged(cmd: list, log: Path, what: str, hint: str = "") -> None:
    """Run one build step, its output appended to log; a failure shows the log's end."""
    with open(log, "ab") as out:
        done = subprocess.run(cmd, stdout=out, stderr=subprocess.STDOUT, check=False)
    if done.returncode != 0:
        tail = "\n".join(Path(log).read_text(errors="replace").splitlines()[-15:])
        raise UserError(f"building {what}: `{' '.join(map(str, cmd[:3]))} ...` failed (exit "
                        f"{done.returncode}){hint}; the end of its log:\n{tail}")
