"""The TPC-C-like workload (lua/tpcc.lua): command lines, parsers for its metrics lines, the
dataset's state and the spec's consistency conditions 1-4. Stdlib only (it runs in a lab VM
guest too); `query` is any callable taking SQL and returning a list of tuples, as
tuninglab.server.Server.query does.

The dataset lives in its own database, DATABASE, made by the caller (CREATE_DATABASE) before
create. A load is: cleanup (if anything is there), create (one thread: the tables and the
tpcc_meta row), prepare (parallel: thread i loads warehouses i+1, i+1+T, ...)."""

import os
import re
from dataclasses import asdict, dataclass

from tuninglab.engine.workloads import sysbench
from tuninglab.recipes.scripts import TPCC_SCRIPT

SCRIPT = TPCC_SCRIPT   # lua/tpcc.lua: a tpcc workload's script (Workload.script)
DATABASE = "tpcc"
CREATE_DATABASE = f"CREATE DATABASE IF NOT EXISTS {DATABASE}"
SCHEMA_VERSION = 1   # SCHEMA_VERSION in lua/tpcc.lua: a dataset of another version is reloaded
TRANSACTIONS = ("new_order", "payment", "order_status", "delivery", "stock_level")
# Deadlock, lock wait timeout, "record changed": sysbench hands these to the script, which rolls
# back and retries the transaction (its default list, given explicitly).
IGNORE_ERRORS = "1213,1205,1020"

_PAIR = r"\s+".join(rf"{name} (?P<{name}>\d+) (?P<{name}_p95>[\d.]+)ms" for name in TRANSACTIONS)
# deadlocks: printed since the script counted them apart; None in older output.
_TAIL = r" rollbacks (?P<rollbacks>\d+) retries (?P<retries>\d+)(?: deadlocks (?P<deadlocks>\d+))?$"
_INTERVAL = re.compile(r"^\[ *(?P<t>\d+(?:\.\d+)?)s \] tpcc: " + _PAIR + _TAIL)
_TOTAL = re.compile(r"^tpcc total: " + _PAIR + _TAIL, re.MULTILINE)


@dataclass(frozen=True)
class TypeStats:
    count: int
    p95_ms: float


@dataclass(frozen=True)
class Metrics:
    """One tpcc line: a second's (t set) or the whole run's (t None)."""
    t: float | None
    types: dict            # transaction name -> TypeStats
    rollbacks: int         # new-orders rolled back on purpose (1%); counted in new_order too
    retries: int           # transactions retried after a deadlock or lock wait timeout
    deadlocks: int | None = None   # those of the retries a deadlock caused

    @property
    def new_orders(self) -> int:
        return self.types["new_order"].count

    @property
    def transactions(self) -> int:
        return sum(s.count for s in self.types.values())


def _metrics(match, t) -> Metrics:
    types = {name: TypeStats(int(match[name]), float(match[f"{name}_p95"]))
             for name in TRANSACTIONS}
    deadlocks = None if match["deadlocks"] is None else int(match["deadlocks"])
    return Metrics(t, types, int(match["rollbacks"]), int(match["retries"]), deadlocks)


def parse_interval(line: str) -> Metrics | None:
    m = _INTERVAL.match(line.strip())
    return _metrics(m, float(m["t"])) if m else None


def parse_total(text: str) -> Metrics:
    m = _TOTAL.search(text)
    if not m:
        raise ValueError("no 'tpcc total:' line in the output (did the run reach its end?)")
    return _metrics(m, None)


def parse_intervals(text: str) -> list[Metrics]:
    return [m for m in map(parse_interval, text.splitlines()) if m]


def tpm(new_orders: int, seconds: float) -> float:
    """New-order transactions a minute (tpmC-like; the spec counts rolled-back ones too)."""
    if seconds <= 0:
        raise ValueError(f"tpm needs a positive duration, got {seconds}")
    return new_orders * 60.0 / seconds


# Command lines -----------------------------------------------------------------------------

def common_args(socket, warehouses, threads=1) -> list[str]:
    return [sysbench.executable(), sysbench.script_path(SCRIPT), f"--mysql-socket={socket}",
            "--mysql-user=root", "--mysql-password=", f"--mysql-db={DATABASE}",
            f"--warehouses={warehouses}", f"--threads={threads}"]


def create_command(socket, warehouses) -> list[str]:
    """The tables and the meta row, in one thread (parallel loaders never race on DDL)."""
    return common_args(socket, warehouses) + ["create"]


def prepare_command(socket, warehouses, threads) -> list[str]:
    return common_args(socket, warehouses, threads) + ["prepare"]


def cleanup_command(socket, warehouses=1) -> list[str]:
    return common_args(socket, warehouses) + ["cleanup"]


def run_command(socket, warehouses, threads, seconds, active_warehouses=0) -> list[str]:
    """A timed run; active_warehouses N > 0 draws home warehouses from 1..N only."""
    if seconds < 1:
        raise ValueError(f"a sysbench run needs at least 1 second, got {seconds}")
    return common_args(socket, warehouses, threads) + [
        f"--active-warehouses={active_warehouses}", f"--time={int(round(seconds))}",
        "--report-interval=1", "--percentile=95", "--events=0",
        f"--mysql-ignore-errors={IGNORE_ERRORS}", "run"]


def load(server, warehouses: int, threads: int) -> int:
    """W warehouses into a server without the dataset (its database made here), by up to
    `threads` loaders in parallel (no more than W or the CPUs). Returns how many loaded."""
    threads = min(threads, warehouses, os.cpu_count() or 1)
    server.query(CREATE_DATABASE)
    sysbench.prepare(create_command(server.socket, warehouses))
    sysbench.prepare(prepare_command(server.socket, warehouses, threads))
    return threads


# The dataset -------------------------------------------------------------------------------

def dataset_state(query) -> tuple[int, int] | None:
    """(schema version, warehouses) of a fully loaded dataset; None if there is none usable (no
    schema, or a load that did not finish): then cleanup, create and prepare. Later schema
    versions must keep tpcc_meta's version, warehouses and loaded columns."""
    rows = query("SELECT COUNT(*) FROM information_schema.tables "
                 f"WHERE table_schema = '{DATABASE}' AND table_name = 'tpcc_meta'")
    if not rows or not rows[0][0]:
        return None
    rows = query(f"SELECT version, warehouses, loaded FROM {DATABASE}.tpcc_meta WHERE id = 1")
    if not rows:
        return None
    version, warehouses, loaded = (int(v) for v in rows[0])
    # One unit per warehouse and one for item, each counted once its rows are committed.
    return (version, warehouses) if loaded == warehouses + 1 else None


@dataclass(frozen=True)
class Condition:
    number: int
    name: str
    ok: bool
    violations: int        # rows (warehouses or districts) that break it
    example: tuple | None  # the first of them, as the query returns it


# Clause 3.3.2.1-3.3.2.4, each as one query over whole tables returning the rows that break it.
_CONDITIONS = (
    (1, "W_YTD = sum(D_YTD)",
     "SELECT w.w_id, w.w_ytd, d.ytd FROM {db}.warehouse w JOIN "
     "(SELECT d_w_id, SUM(d_ytd) AS ytd FROM {db}.district GROUP BY d_w_id) d "
     "ON d.d_w_id = w.w_id WHERE w.w_ytd <> d.ytd"),
    # A district whose new orders have all been delivered has no max(NO_O_ID) to compare.
    (2, "D_NEXT_O_ID - 1 = max(O_ID) = max(NO_O_ID)",
     "SELECT d.d_w_id, d.d_id, d.d_next_o_id - 1, o.max_o, n.max_no FROM {db}.district d "
     "LEFT JOIN (SELECT o_w_id, o_d_id, MAX(o_id) AS max_o FROM {db}.orders "
     "GROUP BY o_w_id, o_d_id) o ON o.o_w_id = d.d_w_id AND o.o_d_id = d.d_id "
     "LEFT JOIN (SELECT no_w_id, no_d_id, MAX(no_o_id) AS max_no FROM {db}.new_orders "
     "GROUP BY no_w_id, no_d_id) n ON n.no_w_id = d.d_w_id AND n.no_d_id = d.d_id "
     "WHERE NOT (o.max_o <=> d.d_next_o_id - 1) "
     "OR (n.max_no IS NOT NULL AND n.max_no <> d.d_next_o_id - 1)"),
    (3, "max(NO_O_ID) - min(NO_O_ID) + 1 = count(NEW_ORDER)",
     "SELECT no_w_id, no_d_id, MAX(no_o_id) - MIN(no_o_id) + 1 AS span, COUNT(*) AS n "
     "FROM {db}.new_orders GROUP BY no_w_id, no_d_id HAVING span <> n"),
    (4, "sum(O_OL_CNT) = count(ORDER_LINE)",
     "SELECT o.o_w_id, o.o_d_id, o.ol_cnt, l.n FROM "
     "(SELECT o_w_id, o_d_id, SUM(o_ol_cnt) AS ol_cnt FROM {db}.orders "
     "GROUP BY o_w_id, o_d_id) o LEFT JOIN "
     "(SELECT ol_w_id, ol_d_id, COUNT(*) AS n FROM {db}.order_line "
     "GROUP BY ol_w_id, ol_d_id) l ON l.ol_w_id = o.o_w_id AND l.ol_d_id = o.o_d_id "
     "WHERE NOT (o.ol_cnt <=> l.n)"),
)


def check_consistency(query) -> list[Condition]:
    """The spec's consistency conditions 1 to 4 (clause 3.3.2), one result each."""
    results = []
    for number, name, sql in _CONDITIONS:
        rows = query(sql.format(db=DATABASE))
        results.append(Condition(number, name, not rows, len(rows),
                                 tuple(rows[0]) if rows else None))
    return results


def describe_failures(failed: list[Condition]) -> str:
    """Broken conditions in one line: which, how many rows, the first of them."""
    return "; ".join(f"condition {c.number} ({c.name}) is broken in {c.violations} "
                     f"row{'s' if c.violations != 1 else ''}, for example {c.example}"
                     for c in failed)


# Into a result file ----------------------------------------------------------------------------

def summary(text: str, seconds: float) -> dict:
    """A measured run's TPC-C-like figures: new-order TPM (the primary metric) and, per
    transaction type, its count and p95 latency; the intended rollbacks and the retries."""
    total = parse_total(text)
    return {"new_order_tpm": round(tpm(total.new_orders, seconds), 1), "tpcc": {
        "transactions": {name: {"count": s.count, "latency_p95_ms": s.p95_ms}
                         for name, s in total.types.items()},
        "rollbacks": total.rollbacks, "retries": total.retries,
        **({} if total.deadlocks is None else {"deadlocks": total.deadlocks})}}


def series(text: str, n: int) -> dict:
    """Second by second: new-order TPM, each type's count and p95 latency, the rollbacks,
    retries and deadlocks; n values each (padded with None, like the other series)."""
    seconds = parse_intervals(text)[:n]
    pad = [None] * (n - len(seconds))
    out = {"new_order_tpm": [m.new_orders * 60 for m in seconds] + pad,
           "tpcc_rollbacks": [m.rollbacks for m in seconds] + pad,
           "tpcc_retries": [m.retries for m in seconds] + pad}
    if seconds and all(m.deadlocks is not None for m in seconds):
        out["tpcc_deadlocks"] = [m.deadlocks for m in seconds] + pad
    for name in TRANSACTIONS:
        out[f"{name}_per_s"] = [m.types[name].count for m in seconds] + pad
        out[f"{name}_p95_ms"] = [m.types[name].p95_ms for m in seconds] + pad
    return out


def consistency(query) -> dict:
    """The conditions after a run, as the result file keeps them; ok False makes it invalid."""
    conditions = check_consistency(query)
    return {"ok": all(c.ok for c in conditions),
            "conditions": [{**asdict(c), "example": None if c.example is None
                            else [str(v) for v in c.example]} for c in conditions]}
