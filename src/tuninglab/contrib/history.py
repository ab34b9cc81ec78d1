"""The git history data.check reads: each version of a recipe file (the sha256 of its text) with
the commits that date it, and when a project revision was committed. A result names both (its
recipe/sha256 and software/project/revision), and a result that started before either existed is
no run of them: a forged file whose every timestamp was moved 300 days back passed every other
rule (past the lab's first recipe, in order, none in the future).

What is compared, and why it holds for every real run:
- the revision: a run records the commit it ran from (HEAD), which existed before it started,
  so its start is after that commit's committer date (a commit's hash covers that date);
- the recipe version, clean tree: the version is committed at or before the revision, so the
  run started after the author date of the oldest commit that holds it (an author date survives
  a rebase);
- the recipe version, edited tree (software/project/dirty not false): the version may be an
  edit not yet committed, but it was made from the file at the revision, so the run started
  after the author date of the commit of the version before it in the file's history.
A revision this checkout does not have (a fork's, a shallow clone's) is not compared; each
date may be a day early (CLOCK_SLACK).
"""

import datetime as dt
import hashlib
import re
import subprocess
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from tuninglab.contrib.jsonpaths import at
from tuninglab.errors import UserError
from tuninglab.files import PROJECT_DIR
from tuninglab.recipes.load import recipe_path
from tuninglab.results import document

# A host's clock may be hours off (one kept in local time read as UTC: up to 14), a forged date
# months: a run dated up to a day before what it names is let through.
CLOCK_SLACK = dt.timedelta(days=1)
COMMIT = re.compile(r"[0-9a-f]{40}")
SHOWN = 12  # the characters of a hash a line shows


@dataclass(frozen=True)
class Version:
    """One version of a recipe file in its git history."""
    commit: str                 # the oldest commit that holds it
    written: dt.datetime        # that commit's author date
    edited_from: tuple | None   # (commit, author date) of the version before it; None: the first


def git(cwd: Path, *args) -> bytes:
    return subprocess.run(["git", *args], cwd=cwd, capture_output=True, check=True).stdout


def _when(seconds: str) -> dt.datetime:
    return dt.datetime.fromtimestamp(int(seconds), dt.timezone.utc)


@lru_cache(maxsize=None)
def recipe_versions(name: str) -> tuple[dict, str | None]:
    """Each version of recipes/<name>/recipe.toml by sha256, the file as it is and each one in
    its git history (across renames): its Version, None for the file as it is when no commit
    holds it; and why the history could not be read in full, if it could not."""
    path = recipe_path(name)
    current = hashlib.sha256(path.read_bytes()).hexdigest()
    history, why = [], None  # (sha256, commit, author date), newest first
    try:
        if git(path.parent, "rev-parse", "--is-shallow-repository").strip() == b"true":
            why = "shallow clone; fetch the full history (git fetch --unshallow)"
        log = git(path.parent, "log", "--format=%H %at", "--name-only", "--follow", "--",
                  path.name).decode()
        commit = None
        for line in filter(None, log.splitlines()):
            head = line.split(" ")
            if len(head) == 2 and COMMIT.fullmatch(head[0]) and head[1].isdigit():
                commit = head
            else:  # the file's path (from the top of the repository) in that commit
                text = git(path.parent, "show", f"{commit[0]}:{line}")
                history.append((hashlib.sha256(text).hexdigest(), commit[0], _when(commit[1])))
    except FileNotFoundError:
        why = "git is not installed"
    except subprocess.CalledProcessError as exc:
        why = "git failed: " + (exc.stderr.decode(errors="replace").strip().splitlines()
                                or ["?"])[0]
    versions = {current: None}
    for i, (sha, commit, written) in enumerate(history):  # the oldest holding a version wins
        before = history[i + 1][1:] if i + 1 < len(history) else None
        versions[sha] = Version(commit, written, before)
    return versions, why


@lru_cache(maxsize=256)
def revision_time(revision) -> dt.datetime | None:
    """The committer date of a commit of this checkout, None for one it does not have."""
    if not isinstance(revision, str) or not COMMIT.fullmatch(revision):
        return None  # never hand git a value it could read as an option
    try:
        out = git(PROJECT_DIR, "show", "-s", "--format=%ct", f"{revision}^{{commit}}")
    except (FileNotFoundError, subprocess.CalledProcessError):
        return None
    return _when(out.decode().strip()) if out.strip().isdigit() else None


def bounds(doc: dict) -> list[tuple[dt.datetime, str]]:
    """(the earliest the run could have started, what says so) for the recipe version and the
    project revision the result names, as far as this checkout's history tells."""
    found = []
    name, sha = doc["recipe"]["name"], doc["recipe"]["sha256"]
    project = doc["software"]["project"]
    try:
        version = recipe_versions(name)[0].get(sha)
    except (UserError, OSError):  # no such recipe: check_recipe names it
        version = None
    where = f"recipes/{name}/recipe.toml"
    if version is not None and project.get("dirty") is False:
        found.append((version.written, f"the author date of commit {version.commit[:SHOWN]}, "
                                       f"the first in {where}'s history to hold recipe/sha256 "
                                       f"{sha[:SHOWN]}"))
    elif version is not None and version.edited_from:
        commit, written = version.edited_from
        found.append((written, f"the author date of commit {commit[:SHOWN]}, which holds the "
                               f"version of {where} that recipe/sha256 {sha[:SHOWN]} was "
                               "edited from (software/project/dirty: the run's tree was "
                               "edited)"))
    committed = revision_time(project.get("revision"))
    if committed is not None:
        found.append((committed, f"the committer date of software/project/revision "
                                 f"{project['revision'][:SHOWN]}, the commit the run ran from"))
    return found


def check_dates(doc: dict) -> list[str]:
    """The run started after the recipe version and the revision it names existed (every
    other time of the file is after its start: values.check_times)."""
    started = document.parse_time(doc["started"])
    if started is None:
        return []  # values.check_times names it
    return [at("started", f"{doc['started']} is before {when.isoformat(timespec='seconds')}, "
                          f"{what}; expected a run after the recipe version and revision it "
                          f"names existed (a day of clock error allowed)")
            for when, what in bounds(doc) if started < when - CLOCK_SLACK]
