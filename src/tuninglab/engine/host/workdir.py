"""The work directory: templates, run directories and in-progress results, held by one run at a
time through a lock file."""

import errno
import fcntl
import os
import re
import shutil
from contextlib import contextmanager
from pathlib import Path

from tuninglab import files
from tuninglab.errors import STORAGE_REASONS, UserError


# The lab's mark on a work directory it made: a run and lab.clean remove what a failed run left
# (runs/*, half-built templates) only in a directory that carries it, never in one the lab did
# not make (`--workdir ~` emptied ~/runs/).
MARKER = ".tuninglab-workdir"
LOCK = ".lock"


@contextmanager
def held(path: Path):
    """Create (if needed), mark and lock the work directory; refuse if another run holds it,
    or if it holds files the lab did not make."""
    path = Path(path).resolve()
    check_place(path)
    try:
        path.mkdir(parents=True, exist_ok=True)
        claim(path)
        lock = open(path / LOCK, "a+")
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


# What the lab keeps in a work directory (besides MARKER and LOCK): a directory without the mark
# may be adopted only if it holds nothing else (made before the mark existed, or by a command that
# builds without a run: `invoke lab.servers --build` makes servers/; the tests' own work
# directories below it).
LAB_ENTRIES = {"runs", "templates", "servers", "progress", "sandboxes", "vm", "fleet",
               "lab-state.json", "noise.json", "dynamic-variables.json", "bench-tpcc",
               "lab-tests", "server-roots-tests"}
# And only if one of these proves the lab made it: a file only the lab writes, a template's or a
# server root's manifest, a test's marked work directory, or the lab's lock file (LOCK_PID).
# Never names alone: a bare runs/ may hold anybody's files, and a run removes runs/*.
PROOF = ("lab-state.json", "noise.json", "dynamic-variables.json", "templates/*/meta.json",
         "servers/*/manifest.json", "server-roots-tests/servers/*/manifest.json",
         f"lab-tests/{MARKER}", f"server-roots-tests/{MARKER}")
LOCK_PID = re.compile(rb"[0-9]{1,10}\n?")  # what held() leaves in LOCK: the last run's pid


def claim(path: Path) -> None:
    """Mark the work directory as the lab's: a new or empty one, or one the lab made before
    the mark existed (lab_made). Any other directory that holds files is refused: what a failed
    run left is removed only where the lab made it."""
    if is_marked(path):
        return
    if why := foreign(path):
        raise UserError(why)
    (path / MARKER).write_text("made by InnoDB Tuning Lab: its runs and lab.clean remove what "
                               "a failed run left here\n")


def foreign(path: Path) -> str | None:
    """Why claim() refuses an unmarked directory, or None."""
    entries = {p.name for p in path.iterdir()}
    if not entries:
        return None
    others = sorted(entries - LAB_ENTRIES - {LOCK})
    if not others and lab_made(path):
        return None
    if others:
        shown = ", ".join(others[:3]) + (", ..." if len(others) > 3 else "")
        why = f"holds files the lab did not make ({shown})"
    else:
        why = (f"holds {', '.join(sorted(entries))} but none of the lab's own files (a "
               "template's meta.json, a server root's manifest.json, lab-state.json, noise.json,"
               " the lab's .lock)")
    return (f"work directory {path}: {why}; a run removes what a failed run left in its work "
            "directory, so it takes a new or empty directory, or one the lab made "
            f"({MARKER}): pass --workdir {path / 'tuninglab-work'}")


def lab_made(path: Path) -> bool:
    """Whether an unmarked directory shows the lab's own files (PROOF), or is the checkout's
    ./work, which is the lab's by definition (commands that hold no run write there too)."""
    path = Path(path)
    if path.resolve() == files.WORK_DIR.resolve():
        return True
    if any(p.is_file() and not p.is_symlink() for pattern in PROOF for p in path.glob(pattern)):
        return True
    lock = path / LOCK
    if not lock.is_file() or lock.is_symlink():
        return False
    with open(lock, "rb") as f:
        return bool(LOCK_PID.fullmatch(f.read(16)))


def chosen(value) -> Path:
    """The work directory a command names: --workdir's value, else $TUNINGLAB_WORKDIR, else
    ./work in the checkout (files.default_workdir). An empty value is refused, never taken as
    the default: `--workdir "$DIR"` with DIR unset ran (and lab.clean cleaned) ./work."""
    if value is None:
        env = os.environ.get("TUNINGLAB_WORKDIR")
        if env is not None and not env.strip():
            raise UserError("$TUNINGLAB_WORKDIR is set but empty: set it to a directory, or "
                            "unset it for ./work")
        return files.default_workdir()
    if not str(value).strip():
        raise UserError("--workdir: expected a directory, got an empty value; leave --workdir "
                        "out for ./work (or $TUNINGLAB_WORKDIR)")
    return Path(value)


def check_usable(path: Path) -> None:
    """What held() would refuse, said without making or writing anything: a dry run says it
    too, instead of planning a run in / or /etc that the run itself would refuse."""
    path = Path(path).resolve()
    check_place(path)
    if path.is_dir() and not is_marked(path) and (why := foreign(path)):
        raise UserError(why)


def is_marked(path: Path) -> bool:
    return (Path(path) / MARKER).is_file()


# Filesystems the kernel makes up: no run's files can live there (mkdir -p /proc succeeds, and
# then the lock file is "No such file or directory").
VIRTUAL_FILESYSTEMS = {"proc", "sysfs", "devtmpfs", "devpts", "cgroup", "cgroup2", "debugfs",
                       "tracefs", "securityfs", "configfs", "pstore", "bpf", "efivarfs",
                       "fusectl", "mqueue", "binfmt_misc", "autofs", "hugetlbfs", "nsfs"}


def check_place(path: Path) -> None:
    """Refuse in words a work directory that cannot be one, which mkdir and open would call
    "File exists" or "No such file or directory": a file, or a virtual filesystem."""
    path = Path(path).resolve()
    existing = next(p for p in (path, *path.parents) if os.path.exists(p))
    if not os.path.isdir(existing):
        what = "is a file" if existing == path else f"is below the file {existing}"
        raise UserError(f"work directory {path}: {what}, expected a directory; "
                        "pass --workdir DIR")
    kind = filesystem_type(existing)
    if kind in VIRTUAL_FILESYSTEMS:
        raise UserError(f"work directory {path}: a virtual filesystem ({kind}), expected a "
                        "directory on a real filesystem you can write; pass --workdir DIR")


def filesystem_type(path: Path, mountinfo: str | None = None) -> str:
    """The type of the filesystem that holds path (the deepest, latest mount over it), from
    /proc/self/mountinfo; "" if unknown."""
    if mountinfo is None:
        try:
            mountinfo = Path("/proc/self/mountinfo").read_text()
        except OSError:
            return ""
    best, kind = None, ""
    for fields in (line.split() for line in mountinfo.splitlines()):
        if "-" not in fields[6:]:
            continue
        # Octal escapes: \040 is a space in a mount point.
        mount = Path(re.sub(r"\\([0-7]{3})", lambda m: chr(int(m[1], 8)), fields[4]))
        if (mount == path or mount in path.parents) and \
                (best is None or len(mount.parts) >= len(best.parts)):
            best, kind = mount, fields[fields.index("-", 6) + 1]
    return kind


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


# Storage errors a user can fix: full, over quota, read-only, no permission.
FIXABLE = tuple(STORAGE_REASONS)


def fixable_reason(exc: OSError) -> str:
    return STORAGE_REASONS.get(exc.errno, "no permission to write")


def disk_error(exc: OSError, path) -> str:
    """A sentence for the storage errors a user can fix."""
    if exc.errno == errno.ENOSPC:
        free = shutil.disk_usage(path).free if Path(path).exists() else 0
        return (f"no space left in the work directory {path} ({free / 2**20:,.0f} MiB free "
                "now); free space (or pass --workdir DIR) and run the same command again to "
                "resume: finished runs are kept")
    if exc.errno == errno.EROFS:
        return f"the work directory {path} is on a read-only filesystem; pass --workdir DIR"
    if exc.errno in (errno.EACCES, errno.EPERM):
        return f"no permission to write in the work directory {path}; pass --workdir DIR"
    return f"cannot write in the work directory {path}: {exc.strerror or exc}"


# Free space under which a failure is blamed on a full filesystem: a write that failed for lack
# of space leaves little, whatever the filesystem's size.
FULL_BELOW = 64 * 2**20


@contextmanager
def blame_full_disk(path: Path, what: str):
    """A failure while the work directory's filesystem is (nearly) full becomes one sentence
    saying so. Servers and sysbench report a full disk in their own words ("The table
    'sbtest1' is full", errno 28), or not at all (a load that stops short); free space is
    read at once, before the failed step's files are removed and the evidence with them."""
    path = Path(path)
    before = shutil.disk_usage(path).free
    try:
        yield
    except Exception as exc:
        usage = shutil.disk_usage(path)
        if usage.free >= max(FULL_BELOW, usage.total // 100):
            raise
        raise UserError(
            f"the work directory's filesystem filled up while {what}: {path} had "
            f"{before / 2**20:,.0f} MiB free at the start, {usage.free / 2**20:,.0f} MiB of "
            f"{usage.total / 2**20:,.0f} MiB when it failed; free space (or pass --workdir "
            "DIR) and run the same command again to resume: finished runs are kept") from exc


def dir_bytes(path: Path) -> int:
    """The bytes of the files under path; symbolic links are not followed (what one points to
    may lie outside, and is not freed with the tree)."""
    return sum(f.lstat().st_size for f in Path(path).rglob("*")
               if f.is_file() and not f.is_symlink())
