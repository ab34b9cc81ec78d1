"""What the lab created on this host, in a state file in the work directory, so that
`invoke lab.clean` can remove exactly that after a killed run: never by guessing.

The file is read as untrusted input: a file that is not what the lab writes stops with one line
naming the file and the entry, and nothing is undone. Whether each entry is one the lab could
have made in this work directory, naming only what the same ledger made (a mount's loop device
attached by its loop entry, a queue setting only of a device it mounted), is checked where that
kind of thing is made (sandbox.refusal, memory.refusal)."""

import json
import os
import threading
from pathlib import Path

from tuninglab.errors import UserError
from tuninglab.files import atomic_write_json

FILE_NAME = "lab-state.json"
MAX_BYTES = 1 << 20  # a run records a few dozen entries; anything bigger is not the lab's
# A duet's two runs record at once (engine/run/duet.py): each read-and-rewrite is whole.
_WRITING = threading.Lock()

# Each kind of entry, and the text fields it must have.
FIELDS = {"cgroup": ("path",), "queue": ("path", "previous"), "mount": ("path", "device"),
          "loop": ("device", "backing"), "dir": ("path",), "file": ("path",)}


class Ledger:
    """An ordered list of resources (files, loop devices, mounts, changed settings)."""

    def __init__(self, workdir: Path):
        self.path = Path(workdir) / FILE_NAME

    def entries(self) -> list[dict]:
        try:
            with open(self.path, "rb") as f:
                raw = f.read(MAX_BYTES + 1)
        except FileNotFoundError:
            return []
        except OSError as exc:
            raise UserError(f"{self.path}: cannot be read ({exc.strerror})") from None
        if len(raw) > MAX_BYTES:
            raise self._malformed(f"larger than {MAX_BYTES // 1024} KiB")
        try:
            doc = json.loads(raw)
        except (UnicodeDecodeError, json.JSONDecodeError) as exc:
            raise self._malformed(f"not JSON ({exc.__class__.__name__})") from None
        resources = doc.get("resources") if isinstance(doc, dict) else None
        if not isinstance(resources, list):
            raise self._malformed('expected an object with a "resources" list')
        for number, entry in enumerate(resources, 1):
            if problem := entry_problem(entry):
                raise self._malformed(f"entry {number}: {problem}")
        return resources

    def record(self, entry: dict) -> dict:
        entry = {**entry, "pid": os.getpid()}
        with _WRITING:
            self._write(self.entries() + [entry])
        return entry

    def forget(self, entry: dict) -> None:
        with _WRITING:
            self._write([e for e in self.entries() if e != entry])

    def _write(self, entries: list[dict]) -> None:
        if entries:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            atomic_write_json(self.path, {"resources": entries})
        else:
            self.path.unlink(missing_ok=True)

    def _malformed(self, why: str) -> UserError:
        return UserError(f"{self.path}: not a lab state file the lab wrote: {why}. Nothing was "
                         "undone; look at what it lists, undo that by hand, then remove the file")


def entry_problem(entry) -> str | None:
    """What is wrong with one entry's shape, or None."""
    if not isinstance(entry, dict):
        return "expected an object"
    kind = entry.get("kind")
    if kind not in FIELDS:
        return f"kind {str(kind)[:40]!r} is not one of {', '.join(FIELDS)}"
    for name in FIELDS[kind]:
        if not isinstance(entry.get(name), str) or not entry[name]:
            return f"a {kind} entry needs a text {name!r}"
    if not isinstance(entry.get("pid", 0), int) or isinstance(entry.get("pid"), bool):
        return "its pid is not a whole number"
    return None
