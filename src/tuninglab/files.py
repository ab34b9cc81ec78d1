"""The project's own places (its checkout, data/, recipes/) and the one safe way to write a JSON
file. Every package may import it."""

import errno
import json
import os
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
                    out.write(tmp.read_bytes())
            except FileExistsError:
                return False
        return True
    finally:
        tmp.unlink(missing_ok=True)
