"""workload.commit's read-back (engine/run/repeat.py): the server's Com_commit and Com_insert
counters around a run's load, recorded only where the sweep is of workload.commit."""

from types import SimpleNamespace

from tuninglab.engine.run import repeat


class Server:
    """A server whose SHOW GLOBAL STATUS answers the next of its readings."""
    def __init__(self, *readings):
        self.readings, self.asked = list(readings), []

    def query(self, sql):
        self.asked.append(sql)
        commits, inserts = self.readings.pop(0)
        return [("Com_commit", str(commits)), ("Com_insert", str(inserts))]


def sweep_of(setting):
    return SimpleNamespace(sweep=SimpleNamespace(setting=setting))


def test_the_counters_grow_over_the_run():
    server = Server((10, 500), (210, 20500))
    before = repeat._statements(server, sweep_of("workload.commit"))
    got = repeat._statements_since(server, before, began=0.0)
    assert {k: got[k] for k in ("com_commit", "com_insert")} == {"com_commit": 200,
                                                                 "com_insert": 20000}
    assert got["seconds"] > 0
    assert "Com_commit" in server.asked[0] and "Com_insert" in server.asked[0]


def test_other_sweeps_record_nothing():
    server = Server()
    before = repeat._statements(server, sweep_of("innodb_doublewrite"))
    assert before is None and repeat._statements_since(server, before, 0.0) is None
    assert server.asked == []
