"""What a fleet run ships to each host: the exact revision of this checkout, as an archive of
its tracked tree (hosts need no access to any git remote, nor git itself), plus a file naming
the revision, which result files then record as the code that ran (hostinfo.git_revision)."""

import hashlib
import subprocess
import tempfile
from pathlib import Path

from tuninglab import files
from tuninglab.errors import UserError
from tuninglab.files import REVISION_FILE


def head(repo: Path) -> str:
    """HEAD's commit, whatever the working tree holds."""
    return _git(repo, "rev-parse", "--verify", "HEAD").strip()


def revision(repo: Path) -> str:
    """HEAD's commit; refused while tracked files differ from it: the hosts would run other
    code than the revision the results name."""
    head_ = head(repo)
    changed = _git(repo, "status", "--porcelain", "--untracked-files=no").splitlines()
    if changed:
        shown = ", ".join(line[3:] for line in changed[:5]) + (" ..." if len(changed) > 5 else "")
        raise UserError(f"{repo} has uncommitted changes ({shown}): fleet hosts run a commit, "
                        "so commit (or stash) them first")
    return head_


def archive(repo: Path, rev: str, dest: Path) -> Path:
    """A tar.gz of the revision's tracked files with REVISION_FILE at the top."""
    dest.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        marker = Path(tmp) / REVISION_FILE
        marker.write_text(rev + "\n")
        tmpfile = dest.with_name(dest.name + ".tmp")
        _git(repo, "archive", "--format=tar.gz", f"--add-file={marker}", "-o", str(tmpfile), rev)
        tmpfile.replace(dest)
    return dest


def archive_in(repo: Path, rev: str, base: Path) -> Path:
    """The revision's archive in the fleet's work directory (base), one per revision, which
    `invoke fleet.run`, `fleet.survey --setup` and `advise --on` ship."""
    return archive(repo, rev, base / f"{rev[:12]}.tar.gz")


def recipe_sha256(repo: Path, rev: str, name: str) -> str:
    """The sha256 of recipes/NAME/recipe.toml as the revision holds it: what the hosts run,
    and so what their results must name (recipe/sha256)."""
    where = files.RECIPES_DIR.relative_to(files.PROJECT_DIR).as_posix()
    return hashlib.sha256(_git(repo, "show", f"{rev}:{where}/{name}/recipe.toml",
                               raw=True)).hexdigest()


def _git(repo: Path, *args, raw: bool = False) -> str | bytes:
    """git's output, as text (or bytes, raw); UserError when git is missing or fails."""
    try:
        done = subprocess.run(["git", "-C", str(repo), *args], capture_output=True)
    except FileNotFoundError:
        raise UserError("fleet runs ship this checkout's revision: they need git") from None
    if done.returncode:
        why = done.stderr.decode(errors="replace").strip()[:300]
        raise UserError(f"git {args[0]} in {repo} failed: {why} (fleet runs ship a git "
                        "checkout's revision)")
    return done.stdout if raw else done.stdout.decode(errors="replace")
