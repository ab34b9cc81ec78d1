"""The project's own places (its checkout, data/, recipes/), the one safe way to write a JSON
file and the one way to list and read what data/ holds (regular files only: never a link, a
FIFO or a device). Every package may import it."""

import errno
import json
import os
import stat
from pathlib import Path

PROJECT_DIR = Path(__file__).resolve().parents[2]
DATA_DIR = PROJECT_DIR / "data"
RECIPES_DIR = PROJECT_DIR / "recipes"
WORK_DIR = PROJECT_DIR / "work"
# In a tree a fleet run shipped (fleet/ship.py): the commit it holds, which has no .git.
REVISION_FILE = ".tuninglab-revision"


def default_workdir() -> Path:
    """Where runs keep templates and runs: $TUNINGLAB_WORKDIR, else ./work in the checkout."""
    return Path(os.environ.get("TUNINGLAB_WORKDIR") or WORK_DIR)


def atomic_write_json(path: Path, data) -> None:
    """Write to a temp file, fsync, rename: a crash leaves the old file or the new, never half."""
    path = Path(path)
    tmp = path.with_name(f".{path.name}.tmp-{os.getpid()}")
    try:
        with open(tmp, "w") as f:
            json.dump(data, f, indent=1, sort_keys=False)
            f.write("\n")
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    finally:
        tmp.unlink(missing_ok=True)


def create_json(path: Path, data) -> bool:
    """Write a new file as atomic_write_json does, but only if none of that name exists (a
    hard link is created or fails atomically); False, writing nothing, when one does."""
    path = Path(path)
    tmp = path.with_name(f".{path.name}.new-{os.getpid()}")
    try:
        atomic_write_json(tmp, data)
        try:
            os.link(tmp, path)
        except FileExistsError:
            return False
        except OSError as exc:  # a filesystem without hard links: exclusive create, then copy
            if exc.errno not in (errno.EPERM, errno.EOPNOTSUPP):
                raise
            try:
                with open(path, "xb") as out:
                    try:
                        out.write(tmp.read_bytes())
                        out.flush()
                        os.fsync(out.fileno())
                    except OSError:  # a full disk: no half-written file left under the name
                        path.unlink(missing_ok=True)
                        raise
            except FileExistsError:
                return False
        return True
    finally:
        tmp.unlink(missing_ok=True)


# --- reading data/ ----------------------------------------------------------------------------
# Anyone may put a name in data/ (a pull request, a copy, a fleet fetch): a symbolic link (to a
# result counted a second time under a new name, or to any file of the machine), a FIFO (whose
# read never returns), a socket or a device. Every reader of data/ (data.check, data.submit,
# data.claims, the site, the campaign) lists and opens what it reads here: regular files only,
# each other name refused with one line and never followed, read or counted.

# The largest file data/ holds: a result (a full run is ~1 MB); a claims or historical file is
# a few kB. contrib/check.py refuses a result above it.
MAX_DATA_BYTES = 20_000_000
_KINDS = ((stat.S_ISLNK, "a symbolic link"), (stat.S_ISFIFO, "a FIFO (named pipe)"),
          (stat.S_ISSOCK, "a socket"), (stat.S_ISCHR, "a character device"),
          (stat.S_ISBLK, "a block device"), (stat.S_ISDIR, "a directory"),
          (stat.S_ISREG, "a regular file"))


def shown(path) -> str:
    """A path as a line names it: data/doublewrite/x.json inside the checkout, else as given
    (never resolved: a link is named, not its target)."""
    path = Path(path)
    try:
        return str(path.absolute().relative_to(PROJECT_DIR))
    except ValueError:
        return str(path)


class NotRegular(OSError):
    """A name that is not what its reader reads (a link, a FIFO, ...): str() is the line that
    says so, what is the same without the path (for a line that names the file its own way)."""

    def __init__(self, path, mode: int, expected: str = "a regular file"):
        self.path, self.mode = Path(path), mode
        self.what = f"{kind(mode)}, not {expected}: not read"
        super().__init__(f"{shown(path)}: {self.what}")


class TooLarge(ValueError):
    """A regular file of more bytes than its reader takes (str(): what, without the path)."""

    def __init__(self, path, size: int, limit: int):
        self.path, self.size, self.limit = Path(path), size, limit
        super().__init__(f"{size:,} bytes; expected at most {limit:,} bytes")


def kind(mode: int) -> str:
    return next((name for test, name in _KINDS if test(mode)), "no regular file")


def listing(directory, suffix: str) -> tuple[list[Path], list[NotRegular]]:
    """The regular files of directory named *<suffix>, by name (the names glob("*" + suffix)
    gives), and a NotRegular for every other name of that form, or for the directory itself
    when it is a link or no directory: what the first list holds is read, the rest never is.
    A missing directory holds nothing."""
    directory = Path(directory)
    try:
        mode = os.lstat(directory).st_mode
    except FileNotFoundError:
        return [], []
    if not stat.S_ISDIR(mode):
        return [], [NotRegular(directory, mode, "a directory")]
    found, refused = [], []
    with os.scandir(directory) as entries:
        names = sorted(e.name for e in entries if e.name.endswith(suffix))
    for name in names:
        try:
            mode = os.lstat(directory / name).st_mode
        except FileNotFoundError:
            continue  # removed since the directory was read
        if stat.S_ISREG(mode):
            found.append(directory / name)
        else:
            refused.append(NotRegular(directory / name, mode))
    return found, refused


def directories(parent) -> tuple[list[Path], list[NotRegular]]:
    """The directories in parent, by name, and a NotRegular for each symbolic link there
    (never followed: a link to a recipe's directory would count its results twice). Other
    names are no directories and left out, as before."""
    found, refused = [], []
    with os.scandir(parent) as entries:
        for entry in sorted(entries, key=lambda e: e.name):
            mode = entry.stat(follow_symlinks=False).st_mode
            if stat.S_ISDIR(mode):
                found.append(Path(parent) / entry.name)
            elif stat.S_ISLNK(mode):
                refused.append(NotRegular(Path(parent) / entry.name, mode, "a directory"))
    return found, refused


def stamp(directory, suffix: str) -> float:
    """When the files of listing(directory, suffix) last changed, or the directory's names did
    (one added, removed or swapped for a link): what a cache of what they hold is keyed on; 0
    for a missing directory."""
    found, _ = listing(directory, suffix)
    times = []
    for path in [Path(directory), *found]:
        try:
            times.append(os.lstat(path).st_mtime)
        except FileNotFoundError:
            continue
    return max(times, default=0)


def read_regular(path, limit: int) -> bytes:
    """The bytes of a regular file, at most limit of them. A link, a FIFO, a socket or a device
    is refused (NotRegular) before it is opened, and what is opened is checked again: opened
    without following a link (O_NOFOLLOW) and without waiting (O_NONBLOCK), a FIFO put in the
    file's place after the check opens at once and is refused before any read. TooLarge above
    limit; FileNotFoundError and other OSErrors as they come."""
    path = Path(path)
    mode = os.lstat(path).st_mode
    if not stat.S_ISREG(mode):
        raise NotRegular(path, mode)
    flags = os.O_RDONLY | os.O_NONBLOCK | os.O_NOFOLLOW | os.O_NOCTTY | os.O_CLOEXEC
    try:
        fd = os.open(path, flags)
    except OSError as exc:
        if exc.errno in (errno.ELOOP, errno.ENXIO):  # swapped for a link, or for a socket
            raise NotRegular(path, os.lstat(path).st_mode) from None
        raise
    with os.fdopen(fd, "rb") as f:
        opened = os.fstat(fd)
        if not stat.S_ISREG(opened.st_mode):
            raise NotRegular(path, opened.st_mode)
        if opened.st_size > limit:
            raise TooLarge(path, opened.st_size, limit)
        data = f.read(limit + 1)  # bounded even if it grows while read
    if len(data) > limit:
        raise TooLarge(path, len(data), limit)
    return data
