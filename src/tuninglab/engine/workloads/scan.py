"""The sequential-scan workload of the 2008 scheduler test: one full scan of every table, one
query at a time, on a cold buffer pool and page cache. It reports the runtime and the rate at
which InnoDB read pages (Innodb_data_read over the runtime), in MiB/s.

FORCE INDEX (PRIMARY) with a column no secondary index covers makes InnoDB read the clustered
index: COUNT(*) alone would read the smaller secondary index k_1.
"""

import time

from tuninglab.errors import UserError


def statements(tables: int) -> list[str]:
    return [f"SELECT COUNT(*), SUM(LENGTH(c)) FROM sbtest.sbtest{i} FORCE INDEX (PRIMARY)"
            for i in range(1, tables + 1)]


def summarize(runtime_s: float, rows: int, read_bytes: int) -> dict:
    if runtime_s <= 0:
        raise ValueError(f"a scan runtime must be positive, got {runtime_s}")
    return {"runtime_s": round(runtime_s, 3), "rows": rows, "scanned_bytes": read_bytes,
            "mib_per_s": round(read_bytes / 2**20 / runtime_s, 2)}


def _data_read(cur) -> int:
    cur.execute("SHOW GLOBAL STATUS LIKE 'Innodb_data_read'")
    row = cur.fetchone()
    return int(row[1]) if row else 0


def run(server, tables: int, on_table=None) -> dict:
    """Scan every table; on_table(i, n, elapsed_s) after each one, for the progress line."""
    with server.connect() as conn, conn.cursor() as cur:
        before = _data_read(cur)
        started = time.monotonic()
        rows = 0
        for i, sql in enumerate(statements(tables), 1):
            cur.execute(sql)
            count, _ = cur.fetchone()
            rows += count
            if on_table:
                on_table(i, tables, time.monotonic() - started)
        runtime = time.monotonic() - started
        read = _data_read(cur) - before
    if rows == 0:
        raise UserError("the scan read no rows: the dataset's tables are empty")
    return summarize(runtime, rows, read)
