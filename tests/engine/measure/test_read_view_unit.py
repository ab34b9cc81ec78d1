"""The read view holder's clock (engine/measure/read_view.py): opened before the load, released
at the workload's second, closed on every path; on a recording connection (the real server's
view is the integration test's)."""

import pytest

from helpers import FakeConnection
from tuninglab.engine.measure import read_view
from tuninglab.engine.workloads.sysbench import Interval
from tuninglab.errors import UserError


class Recording(FakeConnection):
    """A connection that records its statements (or fails on the one named) and its commits,
    and whether it was closed."""

    def __init__(self, fail_on=None):
        super().__init__()
        self.fail_on, self.closed = fail_on, False

    def execute(self, sql):
        if self.fail_on and self.fail_on in sql:
            raise RuntimeError("Table 'sbtest.sbtest1' doesn't exist")
        super().execute(sql)

    def commit(self):
        self.statements.append("COMMIT")

    def close(self):
        self.closed = True


class Server:
    def __init__(self, conn):
        self.conn, self.databases = conn, []

    def connect(self, database=None):
        self.databases.append(database)
        return self.conn


def second(t):
    return Interval(float(t), 4, 1000.0, 1000.0, 1.0, 0.0, 0.0)


def test_the_view_is_opened_with_a_read_and_released_at_its_second():
    conn = Recording()
    server = Server(conn)
    holder = read_view.ReadViewHolder(server, 3, "sysbench")
    holder.open()
    assert server.databases == ["sbtest"]
    assert conn.statements == ["START TRANSACTION WITH CONSISTENT SNAPSHOT",
                               "SELECT 1 FROM `sbtest1` LIMIT 1"]
    seen = []
    tick = holder.ticking(seen.append)
    for t in (1, 2):
        tick(second(t))
    assert "COMMIT" not in conn.statements and not conn.closed
    for t in (3, 4):
        tick(second(t))
    assert conn.statements.count("COMMIT") == 1 and conn.closed
    assert [i.t for i in seen] == [1, 2, 3, 4]   # the workload's own callback still sees each
    assert holder.record() == {"hold_s": 3.0, "released_at_s": 3.0}


def test_a_view_the_phase_outlived_records_no_release_and_is_closed():
    conn = Recording()
    holder = read_view.ReadViewHolder(Server(conn), 30, "tpcc")
    holder.open()
    assert "SELECT 1 FROM `warehouse` LIMIT 1" in conn.statements
    holder.tick(second(1))
    holder.close()
    holder.close()   # safe twice
    assert conn.closed and holder.record() == {"hold_s": 30.0, "released_at_s": None}


def test_a_view_that_cannot_be_opened_says_where_and_closes():
    conn = Recording(fail_on="SELECT")
    with pytest.raises(UserError, match=r"could not hold a read view on sbtest.sbtest1 "
                                        r"\(workload.hold_read_view\)"):
        read_view.ReadViewHolder(Server(conn), 3, "sysbench").open()
    assert conn.closed


def test_without_a_view_the_callback_is_the_workload_s_own():
    tick = print
    assert read_view.NoView().ticking(tick) is tick
