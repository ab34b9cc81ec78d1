"""What a failed or killed run left in a work directory: its servers and lab VMs (found by their
pid files) and its files (run directories, half-built templates, temporary files). A run removes
them when it starts; `invoke lab.clean` removes them and says what it removed."""

import os
import re
import shutil
import signal
import time
from pathlib import Path

from tuninglab.engine.host.ledger import Ledger
from tuninglab.engine.host import workdir
from tuninglab.engine.host.workdir import dir_bytes
from tuninglab.engine.server import memory
from tuninglab.engine.storage import sandbox
from tuninglab.errors import UserError


def undo_recorded(workdir: Path) -> list[str]:
    """Undo whatever a killed run left, newest first, as the work directory's ledger lists it:
    the server's memory cgroups and the storage sandboxes' steps. The ledger is checked whole
    first: one entry the lab could not have made here and nothing is undone."""
    ledger = Ledger(workdir)
    entries = ledger.entries()
    for number, entry in enumerate(entries, 1):
        why = (memory.refusal(entry["path"], workdir) if entry["kind"] == "cgroup"
               else sandbox.refusal(entry, entries, workdir))
        if why:
            raise UserError(f"{ledger.path}: entry {number} ({entry['kind']}) is not one the lab "
                            f"makes in {workdir}: {why}. Nothing was undone; undo what the file "
                            "lists by hand, then remove it")
    done = []
    for entry in reversed(entries):
        done.append(memory.remove(Path(entry["path"])) if entry["kind"] == "cgroup"
                    else sandbox.undo(entry, workdir, entries))
        ledger.forget(entry)
    return done


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
    for pid in reaped:
        _wait_gone(pid)
    return reaped


def _wait_gone(pid: int, timeout: float = 30) -> None:
    """Until a killed process has exited: until then its threads may still write into the
    directories about to be removed."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
        except (OSError, IndexError):
            return
        if state in ("Z", "X"):  # exited; a zombie only waits for its parent to read it
            return
        time.sleep(0.05)


# What a failed or killed run leaves on disk, relative to the work directory. The caller holds
# the work directory's lock, so no other run is using any of it.
STALE = ("runs/*", "templates/*.building-*", "servers/*.build-*", "progress/.*.tmp-*",
         "progress/.*.new-*", ".probe-*")


def remove_stale_files(wd: Path) -> list[str]:
    """Remove the run directories, half-built templates and temporary files a failed or killed
    run left; one line per removal, with the space it freed. A tree holding a mount point is
    left alone (lab.clean unmounts the sandboxes first, as its ledger lists them). Nothing is
    removed from a directory the lab did not mark as its work directory (workdir.MARKER)."""
    if not workdir.is_marked(wd):
        return [f"kept everything in {wd}: not a work directory the lab made "
                f"(no {workdir.MARKER})"]
    done = []
    for pattern in STALE:
        for path in sorted(wd.glob(pattern)):
            for pid in _workers_in(path):  # e.g. the bootstrap server of a killed initialise
                os.kill(pid, signal.SIGKILL)
                _wait_gone(pid)
            if path.is_dir() and not path.is_symlink() and _holds_mount(path):
                done.append(f"kept {path}: something is mounted in it")
                continue
            size = _bytes(path)
            if path.is_dir() and not path.is_symlink():
                shutil.rmtree(path)
            else:
                path.unlink()
            done.append(f"removed {path} ({size / 2**20:,.0f} MiB), left by a failed run")
    return done


# The programs a run starts that write into its directories. A killed run's direct children die
# with it (PR_SET_PDEATHSIG), not theirs: mariadb-install-db's bootstrap server lives on.
WORKERS = re.compile(r"(?:^|/)(?:mariadbd|mysqld|mariadb-install-db|mysql_install_db|sysbench"
                     r"|fio)$")


def _workers_in(path: Path) -> list[int]:
    """The pids of server, loader and benchmark processes whose command line names path."""
    needle = str(path)
    pids = []
    for proc in Path("/proc").iterdir():
        if not proc.name.isdigit() or int(proc.name) == os.getpid():
            continue
        try:
            argv = (proc / "cmdline").read_bytes().decode(errors="replace").split("\0")
        except OSError:
            continue
        if WORKERS.search(argv[0]) and any(needle in arg for arg in argv[1:]):
            pids.append(int(proc.name))
    return pids


def _holds_mount(path: Path) -> bool:
    return any(os.path.ismount(p) for p in [path, *path.rglob("*")] if p.is_dir()
               and not p.is_symlink())


def _bytes(path: Path) -> int:
    if path.is_symlink() or not path.is_dir():
        return path.lstat().st_size
    return dir_bytes(path)
