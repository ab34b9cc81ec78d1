"""Prepares a result file for a pull request (invoke data.submit): checks it, removes what names
the user and every credential (scrub.py: work and home directories become placeholders, secrets
lose their values) and lists what it changed, marks it as contributed, refuses what CI would
refuse (forgery.check_contribution: a host id of the project's own results), writes it into
data/<recipe>/ and prints the git commands. It runs no git command itself but to tell which
results in data/ git tracks. --keep-paths keeps every path; credentials go in any case.
"""

import json
import os
import shlex
import subprocess
from collections import Counter
from pathlib import Path

from tuninglab import files
from tuninglab.contrib import check, forgery
from tuninglab.contrib.scrub import credential_kinds, kept_paths, strip_paths, strip_secrets
from tuninglab.errors import UserError
from tuninglab.results import document
from tuninglab.results.result import Result

MAX_DESCRIPTION = 500
TOOL = "data.submit"


def submit(path, description=None, keep_paths=False, data_dir=files.DATA_DIR,
           say=print) -> Path:
    """Prepare the result at path and write it into data_dir/<recipe>/; the written file."""
    description = check_description(description)
    path = Path(given("path", path, "a result file (a .json)"))
    data_dir = Path(given("data-dir", data_dir, "a directory (or no --data-dir: data/)"))
    doc = load(path, data_dir, say)
    in_place = path.resolve().is_relative_to(data_dir.resolve())
    stripped = {} if keep_paths else strip_paths(doc)
    kept = [] if keep_paths else kept_paths(doc)
    secrets = strip_secrets(doc)
    # The statistics as this version computes them: a result made by an older version (or
    # edited) is brought up to date, not refused; data.check then finds them in line.
    document.recompute(doc)
    if mark_contributed(doc, description):
        say("left out the result's noise block (invoke lab.noise): a contribution carries none")
    hosts = project_hosts(data_dir, path)
    refused = forgery.check_contribution(doc, hosts)  # what CI refuses in a pull request
    if refused:
        reject([check.one_line(f"{path}: {p}") for p in refused],
               f"{path} would be refused by CI's data.check; nothing written", say)
    original = files.read_regular(path, check.MAX_BYTES) if in_place else None
    target = write_new(doc, data_dir, replacing=path if in_place else None)
    problems = check.check_file(target, project_hosts=hosts)
    if problems:  # a bug of this command, not of the file: leave nothing half-done behind
        reject(problems, f"{target} failed data.check once prepared; {undo(target, original)}",
               say)
    report(stripped, kept, secrets, keep_paths, say)
    say(f"wrote {shown(target)}: data.check passes")
    for line in git_commands(doc, target, description):
        say(line)
    return target


def mark_contributed(doc: dict, description: str | None = None) -> bool:
    """Make doc a contribution (data.submit's block, as fleet fetches do too); whether it had a
    noise block, left out: noise figures come only from the project's own runs."""
    doc["contribution"] = {**({"description": description} if description else {}),
                           "submitted": document.now(), "tool": TOOL}
    return doc.pop("noise", None) is not None


def undo(target: Path, original: bytes | None) -> str:
    """Take back a prepared file that failed its check: the run's own file prepared in place
    gets its bytes back (it may be the only copy of the result), a new one goes."""
    if original is None:
        target.unlink()
        return "removed it"
    tmp = target.with_name(f".{target.name}.undo-{os.getpid()}")
    tmp.write_bytes(original)
    os.replace(tmp, target)   # whole or not at all
    return "put the run's own file back as it was"


def given(option: str, value, expected: str, empty: str = "an empty path"):
    """An option's value; an empty one (--path '') is refused as data.check refuses it:
    Path('') is the current directory, and an empty value taken for the default would do
    what was not asked."""
    if value is not None and not str(value).strip():
        raise UserError(f"--{option}: {empty}; expected {expected}")
    return value


def check_description(text):
    """The contributor's words on the hardware, held to data.check's text rules (and to the
    description's own: a word beginning with -p reads as a password, scrub.DESCRIPTION_SHORT)."""
    if text is None:
        return None
    text = given("description", text, "your hardware in a few words (or no --description)",
                 empty="empty").strip()
    problems = check.text_problems(text, MAX_DESCRIPTION)
    if problems:
        raise UserError(f"--description: {'; '.join(problems)}")
    kinds = credential_kinds(text, description=True)
    if kinds:  # data.check would refuse the prepared file: say so before anything is written
        raise UserError(f"--description: reads as a credential to data.check "
                        f"({'; '.join(k.split(' (')[0] for k in kinds)}), which would refuse "
                        "the file; expected words on the hardware: reword it (leave out "
                        "passwords, keys and tokens, and words beginning with -p)")
    return text


# --- the file -----------------------------------------------------------------------------------

def load(path: Path, data_dir: Path, say) -> dict:
    """The document, once data.check finds nothing wrong with it (but its place and its stored
    statistics: this command puts it in place and recomputes them)."""
    if not path.exists():
        raise UserError(f"--path {path}: no such file; expected a result file")
    if not path.is_file():
        raise UserError(f"--path {path}: not a file; expected one result file (a .json)")
    if path.resolve().is_relative_to(data_dir.resolve()) and tracked(path):
        raise UserError(f"--path {path}: already committed in {data_dir}/ (results there are "
                        "append-only); submit a result of your own run")
    problems = [p for p in check.check_file(path, stored_stats=False)
                if p not in misplaced(path)]
    if problems:
        reject(problems, f"{path} is not a result data.check accepts; nothing written", say)
    try:  # as data.check read it: never through a link, never waiting on a FIFO
        return json.loads(files.read_regular(path, check.MAX_BYTES).decode("utf-8"))
    except files.NotRegular as exc:  # swapped since data.check read it
        raise UserError(f"--path {path}: {exc.what}; expected one result file") from None


def project_hosts(data_dir: Path, path: Path) -> dict[str, Path]:
    """The host ids of the project's own results, as CI finds them in the pull request's
    checkout (forgery.project_hosts): the results git tracks in data_dir, without the file
    being submitted and the contributor's other runs that git does not track."""
    return forgery.project_hosts(data_dir, leave_out=[path, *untracked(data_dir)])


def untracked(data_dir: Path) -> list[Path]:
    """The files under data_dir git does not track (ignored ones included); none when git
    cannot tell (no git, no repository): every result there is then the project's."""
    try:
        out = subprocess.run(["git", "ls-files", "-z", "--others", "--", "."], cwd=data_dir,
                             capture_output=True)
    except OSError:  # no git, or no data_dir yet
        return []
    if out.returncode != 0:
        return []
    return [data_dir / os.fsdecode(name) for name in out.stdout.split(b"\0") if name]


def tracked(path: Path) -> bool:
    """Whether git has the file: a run's own new result in data/ is not tracked yet and is
    prepared where it is; a committed one belongs to someone already."""
    try:
        out = subprocess.run(["git", "ls-files", "--error-unmatch", path.name],
                             cwd=path.resolve().parent, capture_output=True)
    except FileNotFoundError:
        return True   # no git: cannot tell, so never rewrite a file in data/
    return out.returncode == 0


def misplaced(path: Path) -> set[str]:
    """data.check's lines saying the file is not where final_path puts it."""
    doc, _ = check.load(path)
    if doc is None or document.validate(doc):
        return set()  # data.check looks at the place of valid documents only
    return {check.one_line(f"{path}: {p}") for p in check.check_location(doc, path)}


def reject(problems, summary, say):
    for line in problems:
        say(line)
    say(summary)
    raise SystemExit(1)


def write_new(doc: dict, data_dir: Path, replacing: Path | None = None) -> Path:
    """Write doc where final_path names it, never over an existing file (but the run's own
    untracked result being prepared in place) nor outside data_dir/<recipe>/ (a profile is
    free text: it could hold '/' or '..')."""
    target = document.final_path(doc, data_dir)
    r = Result(doc)
    home = data_dir / r.recipe
    if target.parent != home or not target.resolve().is_relative_to(data_dir.resolve()):
        raise UserError(f"refusing to write {target}: outside {home}/ (profile "
                        f"{r.profile!r}); expected a file in data/<recipe>/")
    if replacing and target.resolve() == replacing.resolve():
        store(doc, target, in_place=True)
        return target
    if target.exists():  # checked first for the message; create_json closes the race
        raise UserError(f"{target} already exists: results are append-only, a submitted file "
                        "is never replaced")
    store(doc, target, in_place=False)
    return target


def store(doc: dict, target: Path, in_place: bool) -> None:
    """Write doc at target whole or not at all (files.py): over the run's own file in place,
    else only under a name no file has. A write the disk refuses (full, read-only, no
    permission) is one line and leaves nothing behind: files.py removes its temporary files,
    and this removes the folders it made and a copy cut short (files.create_json copies where
    the filesystem has no hard links)."""
    made = [d for d in (target.parent, *target.parent.parents) if not d.exists()]
    try:
        if in_place:
            files.atomic_write_json(target, doc)
            return
        target.parent.mkdir(parents=True, exist_ok=True)
        if not files.create_json(target, doc):
            raise UserError(f"{target} already exists: results are append-only")
    except OSError as exc:
        if not in_place:
            remove_quietly(target, made)
        kept = "the run's own file is as it was" if in_place else "nothing was written"
        raise UserError(f"cannot write {shown(target)}: {exc.strerror or exc}; {kept}") from None


def remove_quietly(target: Path, folders: list[Path]) -> None:
    """Remove what a failed write made: the file, then its folders, deepest first (each only
    if empty); what is not there, or what the disk refuses to remove too, is left."""
    try:
        target.unlink()
    except OSError:
        pass
    for folder in folders:
        try:
            folder.rmdir()
        except OSError:
            pass


# --- what the contributor sees ------------------------------------------------------------------

def report(stripped: Counter, kept: list[str], secrets: Counter, keep_paths: bool, say):
    if keep_paths:
        say("paths: kept as they are (--keep-paths)")
    elif stripped:
        say("paths: " + ", ".join(f"{rule} ({n} string{'s' * (n != 1)})"
                                  for rule, n in stripped.items()))
    else:
        say("paths: none under a home or work directory")
    if kept:
        say(f"kept, check that they name nothing private: {', '.join(kept)}")
    if secrets:  # how many of each kind, never a value
        say(f"secrets: removed the values of {sum(secrets.values())}: "
            + ", ".join(f"{n} {label}" for label, n in secrets.items()))


def git_commands(doc: dict, target: Path, description) -> list[str]:
    """The commands that open the pull request, for the contributor to run."""
    r = Result(doc)
    recipe = r.recipe
    branch = shlex.quote(f"result-{recipe}-{target.stem}")  # recipe, time, host id, profile
    hardware = " ".join((description or r.cpu_model or f"host {r.host_id[:8]}").split())
    return ["open the pull request (data.submit runs no git command):",
            f"  git checkout -b {branch}",
            f"  git add {shlex.quote(shown(target))}",
            f"  git commit -m {shlex.quote(f'{recipe} result from {hardware}')}",
            f"  git push -u origin {branch}   # origin: your fork; then open the pull request"]


def shown(path: Path) -> str:
    """A path as the contributor types it: relative to the checkout when inside it."""
    path = path.resolve()
    return str(path.relative_to(files.PROJECT_DIR)
               if path.is_relative_to(files.PROJECT_DIR) else path)
