"""Proof that a template datadir holds the whole dataset, before it is cached and each time it is
reused. A load that ran out of disk can leave tables short, without their index, or missing,
and still exit 0; every result measured on such a copy would describe a dataset it did not have.

At build: every table has its rows and its secondary index, CHECK TABLE finds it sound, and
CHECKSUM TABLE's value is recorded. After the server's clean shutdown: the size and sha256 of
every file of the datadir, recorded in the template's meta.json. At reuse: the files must match
that manifest, or the template is removed and built again."""

import hashlib
from pathlib import Path

from tuninglab.errors import UserError

CHUNK = 1 << 20


def sysbench_tables(server, dataset) -> dict:
    """Each sbtestN: its row count and CHECKSUM TABLE value, once every table is checked to
    exist with all its rows, its index k_N, and a CHECK TABLE status of OK."""
    expected = [f"sbtest{i}" for i in range(1, dataset.tables + 1)]
    present = {name for (name,) in server.query(
        "SELECT table_name FROM information_schema.tables WHERE table_schema = 'sbtest'")}
    missing = [t for t in expected if t not in present]
    if missing:
        raise TemplateBroken(f"table(s) {', '.join(missing)} missing")
    indexes = {(t, i) for t, i in server.query(
        "SELECT table_name, index_name FROM information_schema.statistics "
        "WHERE table_schema = 'sbtest'")}
    tables = {}
    for n, table in enumerate(expected, 1):
        (rows,), = server.query(f"SELECT COUNT(*) FROM sbtest.{table}")
        if rows != dataset.table_size:
            raise TemplateBroken(f"{table} has {rows:,} rows, expected {dataset.table_size:,}")
        if (table, f"k_{n}") not in indexes:
            raise TemplateBroken(f"{table} has no index k_{n}")
        status = [row[3] for row in server.query(f"CHECK TABLE sbtest.{table}")]
        if status[-1:] != ["OK"]:
            raise TemplateBroken(f"CHECK TABLE {table}: {'; '.join(map(str, status))}")
        (_, checksum), = server.query(f"CHECKSUM TABLE sbtest.{table}")
        tables[table] = {"rows": rows, "checksum": checksum}
    return tables


def manifest(datadir: Path) -> dict:
    """relative path -> [size, sha256] of every file of a stopped server's datadir."""
    datadir = Path(datadir)
    return {str(f.relative_to(datadir)): [f.stat().st_size, file_sha256(f)]
            for f in sorted(datadir.rglob("*")) if f.is_file()}


def changed_files(datadir: Path, recorded: dict) -> list[str]:
    """What differs from the manifest: missing, extra, resized or changed files. Sizes first,
    so a truncated file is found without reading the whole datadir."""
    datadir = Path(datadir)
    now = {str(f.relative_to(datadir)): f for f in datadir.rglob("*") if f.is_file()}
    problems = [f"{name} missing" for name in recorded if name not in now]
    problems += [f"{name} not in the template's manifest" for name in now if name not in recorded]
    for name, (size, digest) in recorded.items():
        f = now.get(name)
        if f is None:
            continue
        if f.stat().st_size != size:
            problems.append(f"{name} is {f.stat().st_size:,} bytes, expected {size:,}")
        elif file_sha256(f) != digest:
            problems.append(f"{name} changed (sha256)")
    return problems


def file_sha256(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        while block := f.read(CHUNK):
            h.update(block)
    return h.hexdigest()


class TemplateBroken(UserError):
    """The loaded dataset is not the one asked for: nothing is cached."""

    def __init__(self, what: str):
        super().__init__(f"the template's dataset is incomplete: {what}")
