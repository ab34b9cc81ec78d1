"""`invoke lab.servers`: every server a run can test by name, its state and versions, and the
building of their roots (roots.py) on request."""

from pathlib import Path

from tuninglab.engine.server import mysqld, roots
from tuninglab.engine.host.workdir import dir_bytes
from tuninglab.errors import UserError
from tuninglab.results.report import table


def report(workdir: Path, build: str | None = None, say=print) -> str:
    """The table of servers; build: a server's name (or "all") whose root to build first, or
    check and rebuild if it fails its check."""
    wanted = _wanted(build)
    for name in wanted:
        roots.ensure(workdir, name, say)
    rows = [["server", "from", "version", "state", "size"], _host_row()]
    rows += [_root_row(workdir, spec) for spec in roots.SPECS.values()]
    lines = [table(rows), "", f"Roots live in {Path(workdir) / 'servers'}; a run builds the one "
             "it needs on first use (`invoke recipe NAME --server mysql-9.7`)."]
    return "\n".join(lines)


def _wanted(build: str | None) -> list:
    if not build:
        return []
    if build == "all":
        return list(roots.SPECS)
    if build == roots.HOST_SERVER:
        raise UserError(f"--build {build}: the host's own server has no root to build")
    roots.spec(build)
    return [build]


def _host_row() -> list:
    try:
        binary = mysqld.find()
        return [roots.HOST_SERVER, f"this host ({binary.path})", binary.label, "installed", ""]
    except UserError as exc:
        return [roots.HOST_SERVER, "this host", "", str(exc)[:60], ""]


def _root_row(workdir: Path, spec: roots.Spec) -> list:
    source = f"Debian {spec.suite}: {', '.join(spec.packages)}"
    root = roots.cached(workdir, spec.name)
    if root is None:
        return [spec.name, source, "", "not built yet", ""]
    wrong = roots.problems(root)
    version = mysqld.in_root(root).label if not wrong else ""
    state = f"fails its check: {wrong}" if wrong else f"built {root.manifest.get('built', '')}"
    return [spec.name, source, version, state, f"{dir_bytes(root.path) / 2**20:,.0f} MiB"]
