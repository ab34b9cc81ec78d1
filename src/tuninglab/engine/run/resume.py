"""The unfinished result of a plan, saved in the work directory after every finished run, so
that the same command resumes it."""

import json
import time
from pathlib import Path

from tuninglab import files
from tuninglab.engine.run import record
from tuninglab.results import document


def progress_path(wd: Path, recipe: str, variant: str, profile: str,
                  design: str | None = None) -> Path:
    """Where a recipe variant's unfinished result of a profile is saved; a duet's apart (its
    results answer for half the machine: the campaign may run a variant both ways)."""
    duet = "-duet" if design == "duet" else ""
    return wd / "progress" / f"{recipe}{f'-{variant}' if variant else ''}-{profile}{duet}.json"


class Saved:
    """The unfinished result of this plan in the work directory, which a rerun resumes."""

    def __init__(self, wd: Path, plan, binary):
        e = plan.experiment
        self.path = progress_path(wd, e.recipe.name, e.recipe.variant, e.profile, plan.design)
        self.key = record.resume_key(plan, binary)

    def load(self, say, move_stale=True):
        if not self.path.is_file():
            return None
        try:
            doc = json.loads(self.path.read_text())
        except (OSError, ValueError):
            doc = None
        if doc and doc.get("resume_key") == self.key:
            say(f"resuming: {len(document.done_keys(doc))} finished runs kept from {self.path}")
            return doc
        if move_stale:  # another plan's runs: keep them aside, never mix them in
            aside = self.path.with_name(f"{self.path.stem}.stale-{int(time.time())}.json")
            self.path.rename(aside)
            say(f"an earlier run with other settings left {self.path}; moved it to {aside.name}")
        return None

    def save(self, doc) -> None:
        doc["resume_key"] = self.key
        self.path.parent.mkdir(exist_ok=True)
        files.atomic_write_json(self.path, doc)

    def remove(self) -> None:
        self.path.unlink(missing_ok=True)
