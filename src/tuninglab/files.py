"""The project's own places (its checkout, data/, recipes/) and the one safe way to write a JSON
file. Every package may import it."""

import json
import os
from pathlib import Path

PROJECT_DIR = Path(__file__).resolve().parents[2]
DATA_DIR = PROJECT_DIR / "data"
RECIPES_DIR = PROJECT_DIR / "recipes"
WORK_DIR = PROJECT_DIR / "work"


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
