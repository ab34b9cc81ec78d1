"""The files a pull request adds or changes under data/, as `git diff --raw -z` lists them
(.github/check-new-results.sh): each must be a regular file, by git's mode and in the checkout,
and one of the kinds data/ holds: a result (data/<recipe>/<name>.json), a claims file
(data/claims/<source>.toml) or a file of a historical source (data/historical/<source>/
source.toml or <table>.csv). Each is copied, as git holds it, into the base branch's worktree,
where the results are checked here as `invoke data.check --contributions` checks them; the
script then checks the claims and historical files with the site's readers
(evidence/check_sources.py), which contrib/ does not import.

    python -m tuninglab.contrib.pull_request CHECKOUT RAW_DIFF     run in the base's worktree

RAW_DIFF: the output of `git diff --raw -z --no-renames --no-abbrev BASE...HEAD -- data/`.
Every path is taken as git writes it with -z, unquoted: a name holding a non-ASCII byte, a
quote or a backslash, which git quotes otherwise, is checked like any other.
"""

import os
import re
import stat
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

from tuninglab.contrib import check
from tuninglab.results import calibrations
from tuninglab.results.calibrations import DIR as CALIBRATIONS  # the project's A/A records

RESULT, CLAIMS, HISTORICAL = "result file", "claims file", "historical file"
SLUG = re.compile(r"[a-z0-9]+(-[a-z0-9]+)*")  # a source, a claims file, a table (site's rules)
# git's modes of a file that is no file: its content would be a target path (cp follows a
# link, and its target can change later in a pull request that does not touch data/) or a
# commit of another repository.
NOT_FILES = {"120000": "a symbolic link", "160000": "a git submodule (gitlink)"}
REGULAR = ("100644", "100755")
EXPECTED = ("expected data/<recipe>/<name>.json, data/claims/<source>.toml, "
            "data/historical/<source>/source.toml or data/historical/<source>/<table>.csv")


@dataclass(frozen=True)
class Change:
    status: str   # git's letter: A added, M modified, T type changed, D deleted
    mode: str     # the new file's git mode: 100644 a file, 120000 a link, 160000 a gitlink
    blob: str     # the new content's object id
    path: str     # as git holds it, every byte kept (os.fsdecode)


def changes(raw: bytes) -> list[Change]:
    """The records of `git diff --raw -z --no-renames`: ':<old mode> <new mode> <old id> <new
    id> <status>' then the path, each ended by NUL."""
    fields = raw.split(b"\0")
    if fields[-1] == b"":
        fields.pop()
    if len(fields) % 2:
        raise ValueError("not `git diff --raw -z --no-renames` output: a record without a path")
    out = []
    for meta, path in zip(fields[::2], fields[1::2]):
        parts = meta.decode("ascii", "replace").removeprefix(":").split(" ")
        if len(parts) != 5:
            raise ValueError(f"not `git diff --raw -z --no-renames` output: {meta!r}")
        out.append(Change(parts[4][:1], parts[1], parts[3], os.fsdecode(path)))
    return out


def kind(path: str) -> str | None:
    """Which of data/'s files the path names, by its place and name; None: none of them."""
    parts, name = path.split("/"), path.rsplit("/", 1)[-1]
    if len(parts) == 3 and parts[:2] == ["data", "claims"]:
        named = name.endswith(".toml") and SLUG.fullmatch(name.removesuffix(".toml"))
        return CLAIMS if named else None
    if len(parts) == 4 and parts[:2] == ["data", "historical"] and SLUG.fullmatch(parts[2]):
        table = name.endswith(".csv") and SLUG.fullmatch(name.removesuffix(".csv"))
        return HISTORICAL if name == "source.toml" or table else None
    if len(parts) == 3 and parts[0] == "data" \
            and parts[1] not in ("claims", "historical", CALIBRATIONS) and name.endswith(".json"):
        return RESULT  # its name and place are checked with its content (check_location)
    return None


def refusal(change: Change, checkout: Path) -> str | None:
    """Why the changed path cannot join data/ whatever it holds, or None."""
    itself = f"add the {kind(change.path) or 'file'} itself"
    if change.status not in ("A", "M", "T"):
        return f"git reports status {change.status!r}; expected a file added or modified"
    if change.mode in NOT_FILES:
        return f"{NOT_FILES[change.mode]}: {itself}"
    if change.mode not in REGULAR:
        return f"git mode {change.mode}; expected a regular file (mode 100644)"
    try:
        mode = os.lstat(checkout / change.path).st_mode
    except FileNotFoundError:
        return "not in the checkout; expected the file git lists"
    if stat.S_ISLNK(mode):
        return f"a symbolic link in the checkout: {itself}"
    if not stat.S_ISREG(mode):
        return f"not a regular file in the checkout: {itself}"
    if change.path.startswith(f"data/{CALIBRATIONS}/"):
        return f"{calibrations.NOT_CONTRIBUTED}; {EXPECTED}"
    if kind(change.path) is None:
        return f"not a result file, a claims file or a historical file; {EXPECTED}"
    return None


def copy(change: Change, checkout: Path, tree: Path) -> None:
    """The content git holds for the change (not the checkout's file, which could be made to
    read as another) into the base's worktree, at the same path."""
    blob = subprocess.run(["git", "cat-file", "blob", change.blob], cwd=checkout,
                          capture_output=True, check=True).stdout
    target = tree / change.path
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_bytes(blob)


def check_changes(raw: bytes, checkout: Path, tree: Path) -> tuple[list[str], dict]:
    """(every problem's line, the number of files of each kind taken), the files taken copied
    into tree and the results among them checked as contributions. A deletion is left to the
    workflow's append-only step, which refuses it."""
    lines, results, taken = [], [], {RESULT: 0, CLAIMS: 0, HISTORICAL: 0}
    for change in changes(raw):
        if change.status == "D":
            continue
        why = refusal(change, checkout)
        if why:
            lines.append(check.one_line(f"{change.path}: {why}"))
            continue
        copy(change, checkout, tree)
        taken[kind(change.path)] += 1
        if kind(change.path) == RESULT:
            results.append(change.path)
    if results:
        lines += check.check_paths(results, contributions=True)
    return lines, taken


def main(argv: list[str]) -> int:
    if len(argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    lines, taken = check_changes(Path(argv[1]).read_bytes(), Path(argv[0]), Path.cwd())
    for line in lines:
        print(line)
    counts = ", ".join(f"{n} {what}{'' if n == 1 else 's'}" for what, n in taken.items())
    print(f"{counts} checked, {len(lines)} problem{'' if len(lines) == 1 else 's'}")
    return 1 if lines else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
