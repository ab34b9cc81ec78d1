"""Where a build may write. MkDocs' --clean empties the site directory before it writes, so a
build writes only into a new or empty folder, the checkout's own site/, or a folder an earlier
build marked as its own (MARKER: a hidden file, which MkDocs' clean leaves in place); never into
the checkout, one of its tracked folders, or a folder that holds the checkout."""

from pathlib import Path

from tuninglab.errors import UserError
from tuninglab.files import PROJECT_DIR

MARKER = ".tuninglab-site"
# The checkout's folders that hold what the project is: a site built into one would empty it.
PROTECTED = ("data", "docs", "recipes", "src", "tests", ".git", ".github", ".ci")
EMPTIED = "a build empties its site directory first"


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
    if (target / MARKER).is_file() or not any(target.iterdir()):
        return
    raise UserError(f"--site-dir {site_dir}: not empty, and no build of the guide marked it as "
                    f"its own ({MARKER}); {EMPTIED}: name a new or empty folder, or empty this "
                    "one yourself")


def mark(site_dir: Path) -> None:
    """Mark a built site as the build's own: a later build may empty it (nothing to mark
    where no build wrote a folder)."""
    if Path(site_dir).is_dir():
        (Path(site_dir) / MARKER).write_text("built by invoke docs.build: a later build "
                                             "empties this folder\n")
