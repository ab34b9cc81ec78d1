"""The work directory: templates, run directories and in-progress results, held by one run at a
time through a lock file."""

import errno
import fcntl
import os
import shutil
from contextlib import contextmanager
from pathlib import Path

from tuninglab.errors import UserError


@contextmanager
def held(path: Path):
    """Create (if needed) and lock the work directory; refuse if another run holds it."""
    path = Path(path).resolve()
    try:
        path.mkdir(parents=True, exist_ok=True)
        lock = open(path / ".lock", "a+")
    except OSError as exc:
        raise UserError(disk_error(exc, path)) from None
    try:
        fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        lock.seek(0)
        holder = lock.read().strip() or "unknown"
        lock.close()
        raise UserError(f"work directory {path} is in use by another run (pid {holder}); "
                        "wait for it, or pass --workdir DIR") from None
    try:
        lock.seek(0)
        lock.truncate()
        lock.write(str(os.getpid()))
        lock.flush()
        check_writable(path)
        yield path
    finally:
        lock.close()


def check_writable(path: Path) -> None:
    probe = path / f".probe-{os.getpid()}"
    try:
        probe.write_bytes(b"x" * 4096)
    except OSError as exc:
        raise UserError(disk_error(exc, path)) from None
    finally:
        try:
            probe.unlink()
        except OSError:
            pass


def check_free(path: Path, needed_bytes: int, what: str) -> None:
    free = shutil.disk_usage(path).free
    if free < needed_bytes:
        raise UserError(f"work directory {path} has {free / 2**20:.0f} MiB free but {what} needs "
                        f"about {needed_bytes / 2**20:.0f} MiB; free space or pass --workdir DIR")


def disk_error(exc: OSError, path) -> str:
    """A sentence for the storage errors a user can fix."""
    if exc.errno == errno.ENOSPC:
        return f"no space left in the work directory {path}; free space or pass --workdir DIR"
    if exc.errno == errno.EROFS:
        return f"the work directory {path} is on a read-only filesystem; pass --workdir DIR"
    if exc.errno in (errno.EACCES, errno.EPERM):
        return f"no permission to write in the work directory {path}; pass --workdir DIR"
    return f"cannot write in the work directory {path}: {exc.strerror or exc}"


def dir_bytes(path: Path) -> int:
    return sum(f.stat().st_size for f in Path(path).rglob("*") if f.is_file())
