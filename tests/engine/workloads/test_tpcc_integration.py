"""The TPC-C-like workload on a real server: a 1-warehouse load with the spec's cardinalities,
the dataset's state, consistency conditions 1-4 after the load and after runs, the metrics of a
run, retries after lock wait timeouts, and clear refusals."""

import subprocess
import threading
import time
from types import SimpleNamespace

import pymysql
import pytest

from helpers import needs_real_server, servers_under
from tuninglab.engine.server import mysqld as srv
from tuninglab.engine.workloads import tpcc

pytestmark = pytest.mark.integration

SETTINGS = {"innodb_buffer_pool_size": "256M", "innodb_flush_log_at_trx_commit": "0",
            "innodb_doublewrite": "OFF"}


def sysbench(command, timeout=120):
    out = subprocess.run(command, capture_output=True, text=True, timeout=timeout)
    return out.returncode, out.stdout + out.stderr


def loaded(command):
    code, text = sysbench(command)
    assert code == 0, text
    return text


@pytest.fixture(scope="module")
def db(tmp_path_factory):
    """One server with 1 warehouse loaded by 2 threads, for the whole module."""
    needs_real_server()
    binary = srv.find()
    base = tmp_path_factory.mktemp("tpcc")
    srv.initialize(binary, base / "data", base / "install.log")
    with srv.Server(binary, base / "run", base / "data", SETTINGS) as server:
        state = SimpleNamespace(server=server, query=server.query, socket=server.socket)
        state.before_create = tpcc.dataset_state(server.query)
        server.query(tpcc.CREATE_DATABASE)
        loaded(tpcc.create_command(server.socket, 1))
        state.after_create = tpcc.dataset_state(server.query)
        loaded(tpcc.prepare_command(server.socket, 1, 2))
        yield state
    assert servers_under(base) == []


@pytest.fixture
def uncommitted(db):
    """A connection whose changes are never committed, and a query callable that sees them."""
    conn = pymysql.connect(unix_socket=str(db.socket), user="root", password="",
                           autocommit=False)

    def query(sql):
        with conn.cursor() as cur:
            cur.execute(sql)
            return list(cur.fetchall())

    try:
        yield query
    finally:
        conn.rollback()
        conn.close()


def count(db, table):
    return db.query(f"SELECT COUNT(*) FROM tpcc.{table}")[0][0]


def assert_consistent(query):
    results = tpcc.check_consistency(query)
    assert [r.number for r in results] == [1, 2, 3, 4]
    assert all(r.ok and r.violations == 0 for r in results), results


def test_spec_cardinalities(db):
    expected = {"item": 100000, "warehouse": 1, "district": 10, "stock": 100000,
                "customer": 30000, "history": 30000, "orders": 30000, "new_orders": 9000}
    assert {t: count(db, t) for t in expected} == expected
    # 5 to 15 lines an order: about 10 on average
    assert 30000 * 9.8 < count(db, "order_line") < 30000 * 10.2
    lines = db.query("SELECT MIN(o_ol_cnt), MAX(o_ol_cnt), SUM(o_carrier_id IS NULL) "
                     "FROM tpcc.orders")[0]
    assert tuple(map(int, lines)) == (5, 15, 9000)
    # The first 1,000 customers of a district cover the 1,000 names; 10% bad credit
    names = db.query("SELECT COUNT(DISTINCT c_last), SUM(c_credit = 'BC') FROM tpcc.customer "
                     "WHERE c_d_id = 1")[0]
    assert names[0] == 1000 and 200 < names[1] < 400
    original = db.query("SELECT SUM(i_data LIKE '%ORIGINAL%') FROM tpcc.item")[0][0]
    assert 9000 < original < 11000


def test_dataset_state(db):
    assert db.before_create is None
    assert db.after_create is None   # tables made, nothing loaded yet
    assert tpcc.dataset_state(db.query) == (tpcc.SCHEMA_VERSION, 1)


def test_half_loaded_dataset_has_no_state(db, uncommitted):
    uncommitted("UPDATE tpcc.tpcc_meta SET loaded = 1")
    assert tpcc.dataset_state(uncommitted) is None


def test_consistent_after_load(db):
    assert_consistent(db.query)


@pytest.fixture(scope="module")
def run(db):
    """A 10 s run, 4 threads: its output, and the consistency conditions after it."""
    code, text = sysbench(tpcc.run_command(db.socket, 1, 4, 10))
    assert code == 0, text
    return SimpleNamespace(text=text, consistency=tpcc.check_consistency(db.query))


def test_run_metrics(run):
    total = tpcc.parse_total(run.text)
    assert all(total.types[name].count > 0 for name in tpcc.TRANSACTIONS), total
    assert all(0 < total.types[name].p95_ms < 5000 for name in tpcc.TRANSACTIONS), total
    assert 0.40 < total.new_orders / total.transactions < 0.50
    assert 0.002 < total.rollbacks / total.new_orders < 0.03
    assert total.deadlocks is not None and total.deadlocks <= total.retries
    intervals = tpcc.parse_intervals(run.text)
    assert 8 <= len(intervals) <= 10
    assert sum(m.new_orders for m in intervals) <= total.new_orders
    from tuninglab.engine.workloads import sysbench as sb
    assert sb.parse_summary(run.text)["transactions"] == total.transactions
    assert tpcc.tpm(total.new_orders, 10) > 0


def test_consistent_after_run(run):
    assert all(r.ok for r in run.consistency), run.consistency


def run_beside(db, steps, threads=2):
    """A 4 s run while another session (autocommit off) runs steps(cursor) a second in and
    then rolls back. Returns the run's totals."""
    holder = pymysql.connect(unix_socket=str(db.socket), user="root", password="",
                             autocommit=False)

    def hold():
        time.sleep(1)
        with holder.cursor() as cur:
            steps(cur)
        holder.rollback()

    try:
        thread = threading.Thread(target=hold)
        thread.start()
        code, text = sysbench(tpcc.run_command(db.socket, 1, threads, 4))
        thread.join()
    finally:
        holder.close()
    assert code == 0, text
    return tpcc.parse_total(text)


def test_lock_wait_timeouts_are_retried(db, run):
    # A session holding warehouse 1 makes payments time out after 1 s; they roll back and retry.
    def steps(cur):
        cur.execute("SELECT w_ytd FROM tpcc.warehouse WHERE w_id = 1 FOR UPDATE")
        time.sleep(1.5)

    db.query("SET GLOBAL innodb_lock_wait_timeout = 1")
    try:
        total = run_beside(db, steps)
    finally:
        db.query("SET GLOBAL innodb_lock_wait_timeout = 50")
    assert total.retries > 0 and total.deadlocks == 0  # timeouts, counted apart from deadlocks
    assert_consistent(db.query)


def test_deadlocks_are_retried_and_counted_apart(db, run):
    # A session that has changed many rows (so InnoDB rolls back the payment, the lighter
    # side) holds warehouse 1's districts, waits until a payment (which has updated the
    # warehouse) waits for its district, then asks for the warehouse: a deadlock, which the
    # payment retries. 8 threads: some thread's first blocked transaction is a payment.
    def steps(cur):
        cur.execute("UPDATE tpcc.stock SET s_quantity = s_quantity + 1 "
                    "WHERE s_w_id = 1 AND s_i_id <= 5000")
        cur.execute("SELECT d_ytd FROM tpcc.district WHERE d_w_id = 1 FOR UPDATE")
        for _ in range(40):
            cur.execute("SELECT COUNT(*) FROM information_schema.innodb_trx WHERE trx_state "
                        "= 'LOCK WAIT' AND trx_query LIKE 'UPDATE district SET d_ytd%'")
            if cur.fetchone()[0]:
                break
            time.sleep(0.05)
        cur.execute("UPDATE tpcc.warehouse SET w_ytd = w_ytd WHERE w_id = 1")

    total = run_beside(db, steps, threads=8)
    assert total.deadlocks >= 1 and total.retries >= total.deadlocks
    assert_consistent(db.query)


def test_broken_ytd_fails_condition_1(db, run, uncommitted):
    uncommitted("UPDATE tpcc.district SET d_ytd = d_ytd + 1 WHERE d_w_id = 1 AND d_id = 3")
    results = {r.number: r for r in tpcc.check_consistency(uncommitted)}
    assert not results[1].ok and results[1].violations == 1
    assert results[1].example[0] == 1   # warehouse 1
    assert all(results[n].ok for n in (2, 3, 4))


def test_deleted_new_order_fails_condition_3(db, run, uncommitted):
    middle = uncommitted("SELECT no_o_id FROM tpcc.new_orders WHERE no_w_id = 1 AND "
                         "no_d_id = 5 ORDER BY no_o_id LIMIT 1 OFFSET 10")[0][0]
    uncommitted(f"DELETE FROM tpcc.new_orders WHERE no_w_id = 1 AND no_d_id = 5 "
                f"AND no_o_id = {middle}")
    results = {r.number: r for r in tpcc.check_consistency(uncommitted)}
    assert not results[3].ok and results[3].violations == 1
    assert tuple(results[3].example[:2]) == (1, 5)
    assert results[1].ok and results[4].ok


def test_deleted_newest_order_fails_condition_2(db, run, uncommitted):
    uncommitted("DELETE FROM tpcc.new_orders WHERE no_w_id = 1 AND no_d_id = 7 "
                "ORDER BY no_o_id DESC LIMIT 1")
    results = {r.number: r for r in tpcc.check_consistency(uncommitted)}
    assert not results[2].ok and results[2].example[:2] == (1, 7)


def test_zero_warehouses_is_refused(db):
    code, text = sysbench(tpcc.run_command(db.socket, 0, 1, 1))
    assert code != 0
    assert "--warehouses=0: expected a whole number >= 1 (the number of warehouses)" in text


def test_run_at_another_scale_is_refused(db):
    code, text = sysbench(tpcc.run_command(db.socket, 2, 1, 1))
    assert code != 0
    assert "the tpcc dataset has 1 warehouses but --warehouses=2" in text


def test_create_over_a_dataset_and_reloading_are_refused(db):
    code, text = sysbench(tpcc.create_command(db.socket, 1))
    assert code != 0 and "the tpcc tables exist already: run the cleanup command first" in text
    code, text = sysbench(tpcc.prepare_command(db.socket, 1, 1))
    assert code != 0 and "is loaded already" in text
    assert tpcc.dataset_state(db.query) == (tpcc.SCHEMA_VERSION, 1)


def test_cleanup_drops_everything(db, run):
    # Last: the module's dataset is gone after it.
    loaded(tpcc.cleanup_command(db.socket))
    assert db.query("SELECT COUNT(*) FROM information_schema.tables "
                    "WHERE table_schema = 'tpcc'") == [(0,)]
    assert tpcc.dataset_state(db.query) is None
