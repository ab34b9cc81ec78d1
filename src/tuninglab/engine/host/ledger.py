"""What the lab created on this host, in a state file in the work directory, so that
`invoke lab.clean` can remove exactly that after a killed run: never by guessing."""

import json
import os
from pathlib import Path

from tuninglab.files import atomic_write_json

FILE_NAME = "lab-state.json"


class Ledger:
    """An ordered list of resources (files, loop devices, mounts, changed settings)."""

    def __init__(self, workdir: Path):
        self.path = Path(workdir) / FILE_NAME

    def entries(self) -> list[dict]:
        try:
            return json.loads(self.path.read_text())["resources"]
        except FileNotFoundError:
            return []

    def record(self, entry: dict) -> dict:
        entry = {**entry, "pid": os.getpid()}
        self._write(self.entries() + [entry])
        return entry

    def forget(self, entry: dict) -> None:
        self._write([e for e in self.entries() if e != entry])

    def _write(self, entries: list[dict]) -> None:
        if entries:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            atomic_write_json(self.path, {"resources": entries})
        else:
            self.path.unlink(missing_ok=True)
