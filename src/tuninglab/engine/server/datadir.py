"""Template datadirs: initialise and load a dataset once, cached by (server version, dataset),
then copy it for every run so each run starts from the same bytes in a second or two.

Two kinds of dataset: sysbench's tables, and the TPC-C-like workload's warehouses (a dataset
with `warehouses`). A TPC-C-like template is keyed by its schema version too, so a dataset of an
older version of the workload is never reused: it is loaded again. It is cached only if it
passes the spec's consistency conditions."""

import errno
import hashlib
import json
import os
import shutil
import subprocess
import time
from pathlib import Path

from tuninglab.engine.server import mysqld as srv
from tuninglab.engine.server import template_check
from tuninglab.results import redo
from tuninglab.engine.host.workdir import blame_full_disk, check_free, disk_error
from tuninglab.engine.workloads import sysbench, tpcc
from tuninglab.errors import UserError
from tuninglab.files import atomic_write_json
from tuninglab.results.metrics import TPCC

# Loading is not measured: make it fast and leave no redo or undo backlog in the copy.
LOAD_SETTINGS = {"innodb_buffer_pool_size": "1G", "innodb_flush_log_at_trx_commit": "0",
                 "innodb_doublewrite": "OFF"}
ROW_BYTES = 300  # on-disk bytes per sysbench row with its secondary index, rounded up
WAREHOUSE_BYTES = 110 * 2**20  # on-disk bytes per TPC-C-like warehouse, rounded up


def identity(dataset) -> dict:
    """What a template holds, beyond the server's version."""
    if dataset.warehouses:
        return {"warehouses": dataset.warehouses, "workload": TPCC,
                "schema_version": tpcc.SCHEMA_VERSION}
    return {"tables": dataset.tables, "table_size": dataset.table_size,
            "workload": "sysbench-oltp"}


def key(binary: srv.ServerBinary, dataset) -> str:
    ident = json.dumps({"server": binary.version_text, **identity(dataset)}, sort_keys=True)
    return hashlib.sha256(ident.encode()).hexdigest()[:16]


def path_for(workdir: Path, binary, dataset) -> Path:
    return Path(workdir) / "templates" / key(binary, dataset)


def is_cached(workdir: Path, binary, dataset) -> bool:
    return (path_for(workdir, binary, dataset) / "meta.json").is_file()


def estimated_bytes(dataset) -> int:
    if dataset.warehouses:
        return dataset.warehouses * WAREHOUSE_BYTES + 250 * 2**20
    return dataset.tables * dataset.table_size * ROW_BYTES + 200 * 2**20


def ensure(workdir: Path, binary, dataset, threads: int, say=print) -> Path:
    """The template's datadir, built now if it is not cached (or no longer intact)."""
    final = path_for(workdir, binary, dataset)
    if intact(final, say):
        return final / "data"
    check_free(Path(workdir), 2 * estimated_bytes(dataset), "the template datadir")
    building = final.with_name(final.name + f".building-{os.getpid()}")
    shutil.rmtree(building, ignore_errors=True)
    building.mkdir(parents=True)
    what = (f"{dataset.warehouses} TPC-C-like warehouses" if dataset.warehouses else
            f"{dataset.tables} tables x {dataset.table_size} rows")
    say(f"building the template datadir ({binary.label}, {what}); this happens once per server "
        "version and dataset")
    started = time.monotonic()
    try:
        with blame_full_disk(Path(workdir), "building the template datadir"):
            tables = _build(binary, building, dataset, threads)
        say("template loaded and verified (rows, indexes, CHECK TABLE); recording its files")
        atomic_write_json(building / "meta.json", {
            "server": binary.describe(), **identity(dataset),
            "build_seconds": round(time.monotonic() - started, 1),
            **({"tables": tables} if tables else {}),
            "files": template_check.manifest(building / "data")})
        shutil.rmtree(final, ignore_errors=True)
        building.rename(final)
    finally:
        shutil.rmtree(building, ignore_errors=True)  # a failed build leaves nothing to reuse
    say(f"template ready in {time.monotonic() - started:.1f}s")
    return final / "data"


def _build(binary, building: Path, dataset, threads: int) -> dict | None:
    """Initialise, load and verify the dataset, then shut the server down cleanly (a template
    is copied as files, so its server must have written everything). The sysbench tables'
    rows and checksums, verified."""
    srv.initialize(binary, building / "data", building / "install.log")
    with srv.Server(binary, building, building / "data", LOAD_SETTINGS) as server:
        if dataset.warehouses:
            _load_tpcc(server, dataset, threads)
            tables = None
        else:
            _load_sysbench(server, dataset, threads)
            tables = template_check.sysbench_tables(server, dataset)
        code = server.stop(slow=True)
    if code != 0:
        raise template_check.TemplateBroken(
            f"the server's shutdown after the load failed (exit {code}): {server.explain_failure()}")
    return tables


def intact(final: Path, say) -> bool:
    """A cached template whose files are still those it was built with. One that is not (a
    disk filled, a file was changed, or it predates the manifest) is removed to be built
    again: a run must never copy a dataset other than the one its result names."""
    meta_path = final / "meta.json"
    if not meta_path.is_file():
        return False
    try:
        recorded = json.loads(meta_path.read_text()).get("files")
    except (OSError, ValueError):
        recorded = None
    problems = template_check.changed_files(final / "data", recorded) if recorded else \
        ["built by an older version, without a manifest of its files"]
    if not problems:
        return True
    more = f" (and {len(problems) - 1} more)" if len(problems) > 1 else ""
    say(f"the cached template {final} is not as it was built: {problems[0]}{more}; "
        "building it again")
    shutil.rmtree(final)
    return False


def _load_sysbench(server, dataset, threads: int) -> None:
    server.query("CREATE DATABASE sbtest")
    sysbench.prepare(sysbench.prepare_command(
        server.socket, "oltp_read_write", dataset.tables, dataset.table_size,
        min(threads, dataset.tables, os.cpu_count() or 1)))


def _load_tpcc(server, dataset, threads: int) -> None:
    """Warehouses loaded in parallel, then checked: a template that breaks the spec's
    consistency conditions would make every run's result invalid, so it is not kept."""
    w = dataset.warehouses
    tpcc.load(server, w, threads)
    state = tpcc.dataset_state(server.query)
    if state != (tpcc.SCHEMA_VERSION, w):
        raise UserError(f"the TPC-C-like load did not finish: the dataset reads as {state}, "
                        f"expected schema version {tpcc.SCHEMA_VERSION} with {w} warehouses")
    failed = [c for c in tpcc.check_consistency(server.query) if not c.ok]
    if failed:
        raise UserError("the freshly loaded TPC-C-like dataset fails the consistency check: " +
                        tpcc.describe_failures(failed))


def clone(template_data: Path, dest: Path) -> None:
    """Copy the template datadir; reflinks where the filesystem has them."""
    if dest.exists():
        shutil.rmtree(dest)
    dest.parent.mkdir(parents=True, exist_ok=True)
    out = subprocess.run(["cp", "-a", "--reflink=auto", str(template_data), str(dest)],
                         capture_output=True, text=True)
    if out.returncode != 0:
        shutil.rmtree(dest, ignore_errors=True)
        if "No space left" in out.stderr:
            raise UserError(disk_error(OSError(errno.ENOSPC, "No space left"), dest.parent))
        raise UserError(f"copying the template datadir to {dest} failed: {out.stderr.strip()}")


# The redo log's files in a datadir: MariaDB's and older MySQL's ib_logfileN, MySQL 8.0.30+'s
# #innodb_redo directory.
REDO_FILES = ("ib_logfile*", "#innodb_redo")


WRITE_CHUNK = 1 << 20


def makes_redo_anew(settings: dict) -> bool:
    """Whether a run's settings size the redo log (results/redo.py: the server
    then makes it anew at start), so that it is written over before the run (write_over)."""
    return redo.sets_size(settings)


def redo_files(where: Path) -> list[Path]:
    """The redo log's files in a datadir or a log directory (REDO_FILES; MySQL's directory's
    files)."""
    found = [p for pattern in REDO_FILES for p in sorted(Path(where).glob(pattern))]
    return [f for p in found for f in (sorted(x for x in p.iterdir() if x.is_file())
                                       if p.is_dir() else [p])]


def write_over(paths: list[Path]) -> int:
    """Read each file and write its bytes back where they were, then fsync it: its content is
    unchanged (an unwritten extent reads as zeros, and zeros are written back) and every block
    of it is written, as in a log that has wrapped. The bytes written."""
    total = 0
    for path in paths:
        with open(path, "r+b") as f:
            while chunk := f.read(WRITE_CHUNK):
                f.seek(-len(chunk), 1)
                f.write(chunk)
                total += len(chunk)
            f.flush()
            os.fsync(f.fileno())
    return total


def move_redo(datadir: Path, logs: Path) -> None:
    """Put a fresh copy's redo log where innodb_log_group_home_dir will point: the server
    refuses to start on a datadir whose log it cannot find."""
    logs.mkdir(parents=True, exist_ok=True)
    moved = [p for pattern in REDO_FILES for p in datadir.glob(pattern)]
    if not moved:
        raise UserError(f"no redo log ({', '.join(REDO_FILES)}) in {datadir} to move to {logs}")
    for path in moved:
        shutil.move(str(path), str(logs / path.name))
