"""The server's memory allocator (a recipe's [server] allocator, sweepable as server.allocator):
glibc's malloc, the default, or jemalloc or tcmalloc preloaded into the server's process
(LD_PRELOAD), as mysqld_safe's --malloc-lib does. MariaDB says which allocator it runs
(version_malloc_library): a run that asked for one and got another fails rather than record a
result under the wrong name."""

import os
import subprocess
from pathlib import Path

from tuninglab.errors import UserError

# Each preloadable allocator: its library's name, and the Debian package that has it.
LIBRARIES = {"jemalloc": ("libjemalloc.so.2", "libjemalloc2"),
             "tcmalloc": ("libtcmalloc_minimal.so.4", "libtcmalloc-minimal4")}
LIB_DIRS = ("/lib/x86_64-linux-gnu", "/usr/lib/x86_64-linux-gnu", "/usr/lib64", "/usr/lib")


def library(name: str) -> str | None:
    """The path of allocator name's library (None for glibc's own malloc); UserError naming
    the package when it is not installed."""
    if name == "glibc":
        return None
    soname, package = LIBRARIES[name]
    found = _from_ldconfig(soname) or next(
        (str(Path(d) / soname) for d in LIB_DIRS if (Path(d) / soname).is_file()), None)
    if found is None:
        raise UserError(f"the {name} allocator needs {soname}, which is not installed "
                        f"(`apt-get install {package}`, or ./setup.sh)")
    return found


def _from_ldconfig(soname: str) -> str | None:
    try:
        out = subprocess.run(["ldconfig", "-p"], capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired):
        return None
    for line in out.stdout.splitlines():
        name, _, path = line.strip().partition(" => ")
        if name.split(" ", 1)[0] == soname and Path(path).is_file():
            return path
    return None


def environment(name: str) -> dict | None:
    """The server process's environment for allocator name (None: inherit this one)."""
    path = library(name)
    return None if path is None else {**os.environ, "LD_PRELOAD": path}


def check(asked: str, reported: str | None) -> None:
    """UserError when the server reports another allocator than the one asked for (a server
    that reports none, as MySQL, is taken at its word: nothing to compare)."""
    if reported is None:
        return
    running = "glibc" if reported.lower() == "system" else reported.split(" ", 1)[0].lower()
    if running != asked:
        raise UserError(f"the server was to run the {asked} allocator but reports "
                        f"version_malloc_library = {reported!r}: the result would name an "
                        "allocator that never ran")
