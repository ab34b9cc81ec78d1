"""Where a build may write. MkDocs' --clean empties the site directory before it writes, so a
build writes only into a new or empty folder, the checkout's own site/, or a folder an earlier
build marked as its own (MARKER: a hidden file, which MkDocs' clean leaves in place); never into
the checkout, one of its tracked folders, or a folder that holds the checkout. An empty
--site-dir is refused, and a build a full, read-only or forbidden disk stopped is one line."""

import errno
import re
from pathlib import Path

from tuninglab.errors import STORAGE_REASONS, UserError
from tuninglab.files import PROJECT_DIR
from tuninglab.visible import visible

MARKER = ".tuninglab-site"
# The checkout's folders that hold what the project is: a site built into one would empty it.
PROTECTED = ("data", "docs", "recipes", "src", "tests", ".git", ".github", ".ci")
EMPTIED = "a build empties its site directory first"


def chosen(value, default: Path) -> Path:
    """--site-dir's folder, else default (the checkout's site/). An empty value is refused,
    never taken as the default: `--site-dir "$OUT"` with OUT unset built into site/."""
    if value is None:
        return Path(default)
    if not str(value).strip():
        raise UserError("--site-dir: expected a folder, got an empty value; leave --site-dir "
                        "out to build into site/")
    return Path(value)


def check(site_dir: Path, default: Path) -> None:
    """Refuse a site directory whose emptying would remove what no build made (UserError)."""
    target, project = Path(site_dir).resolve(), PROJECT_DIR.resolve()
    if project.is_relative_to(target):
        raise UserError(f"--site-dir {site_dir}: holds this checkout ({project}); {EMPTIED}: "
                        "name a new or empty folder")
    for name in PROTECTED:
        if target.is_relative_to(project / name):
            raise UserError(f"--site-dir {site_dir}: inside the checkout's {name}/; {EMPTIED}"
                            ": name a new or empty folder outside it")
    if target == Path(default).resolve() or not target.exists():
        return
    if not target.is_dir():
        raise UserError(f"--site-dir {site_dir}: not a folder")
    marker = target / MARKER
    # A link is no mark: mark() would write through it into whatever it names.
    if (marker.is_file() and not marker.is_symlink()) or not any(target.iterdir()):
        return
    raise UserError(f"--site-dir {site_dir}: not empty, and no build of the guide marked it as "
                    f"its own ({MARKER}); {EMPTIED}: name a new or empty folder, or empty this "
                    "one yourself")


def mark(site_dir: Path) -> None:
    """Mark a built site as the build's own: a later build may empty it (nothing to mark
    where no build wrote a folder)."""
    if Path(site_dir).is_dir():
        marker = Path(site_dir) / MARKER
        try:
            marker.unlink(missing_ok=True)  # never write through a link left in its place
            marker.write_text("built by invoke docs.build: a later build empties this folder\n")
        except OSError as exc:
            raise UserError(storage_line(exc, site_dir) or f"{site_dir}: {exc}") from None


# What each storage error a user can fix asks of them.
REMEDY = {errno.ENOSPC: "free space there, or pass --site-dir DIR on another filesystem",
          errno.EDQUOT: "free space there, or pass --site-dir DIR on another filesystem",
          errno.EROFS: "pass --site-dir DIR on a filesystem you can write",
          errno.EACCES: "pass --site-dir DIR in a folder you can write",
          errno.EPERM: "pass --site-dir DIR in a folder you can write"}


def storage_line(exc: OSError, site_dir: Path) -> str | None:
    """One line for a write a full, read-only or forbidden place refused (what, where, what to
    do); None for any other error."""
    if exc.errno not in REMEDY:
        return None
    where = visible(exc.filename) if exc.filename else str(site_dir)
    return (f"the site did not build: {STORAGE_REASONS[exc.errno]} at {where}; "
            f"{REMEDY[exc.errno]}")


# The last line of the traceback a build (MkDocs' own process) ends with on an OSError:
# "OSError: [Errno 28] No space left on device: '/x/site/index.html'", the path optional, and
# a copy's "'docs/x.css' -> '/x/site/x.css'" (the second is where it wrote).
OS_ERROR = re.compile(r"(?:\w+\.)*\w*Error: \[Errno (\d+)\] [^\n]*?"
                      r"(?:: (['\"])(.*?)\2(?: -> (['\"])(.*)\4)?)?")


def write_failure(stderr: str, site_dir: Path) -> str | None:
    """The one line for a build that stopped on a full, read-only or forbidden disk, read from
    the traceback it printed; None for any other failure (its own lines are shown then)."""
    lines = stderr.strip().splitlines()
    found = OS_ERROR.fullmatch(lines[-1].strip()) if lines else None
    if not found:
        return None
    exc = OSError(int(found[1]), "", found[5] or found[3])
    return storage_line(exc, site_dir)
