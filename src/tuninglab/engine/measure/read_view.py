"""A long read view held over the first seconds of the measured phase ([workload]
hold_read_view), then released: purge may not remove a row version that an open read view could
still see, so while the view is held the history list grows under any write load, whatever the
purge threads; once it is released, purge must catch up with the backlog, and the per-second
series shows how fast it drains (results/read_view.py).

The view is a side connection's transaction: START TRANSACTION WITH CONSISTENT SNAPSHOT and one
read of a workload table, left open. It is released on the workload's own clock (sysbench's
per-second report), so the release falls between two of the series' seconds.

Standard library only (and the server's connection): the lab VM's guest measures with this too.
"""

from tuninglab.errors import UserError

# The table each workload kind reads from: the view is a consistent read of it.
TABLES = {"sysbench": ("sbtest", "sbtest1"), "tpcc": ("tpcc", "warehouse")}


class ReadViewHolder:
    """Opens the view with open(), releases it once the workload's clock reaches `seconds`
    (tick, called with each per-second report), and closes on every exit path (close)."""

    def __init__(self, server, seconds: float, tool: str):
        self.server, self.seconds = server, float(seconds)
        self.schema, self.table = TABLES[tool]
        self._conn = None
        self.released_at = None   # the workload's second at which the view was released

    def open(self) -> None:
        self._conn = self.server.connect(database=self.schema)
        try:
            with self._conn.cursor() as cur:
                cur.execute("START TRANSACTION WITH CONSISTENT SNAPSHOT")
                # The read makes sure InnoDB has assigned the view (and the table exists).
                cur.execute(f"SELECT 1 FROM `{self.table}` LIMIT 1")
                cur.fetchall()
        except Exception as exc:
            self.close()
            raise UserError(f"could not hold a read view on {self.schema}.{self.table} "
                            f"(workload.hold_read_view): {exc}") from exc

    def ticking(self, tick):
        """The workload's per-second callback, with the release checked after it."""
        def both(interval):
            tick(interval)
            self.tick(interval)
        return both

    def tick(self, interval) -> None:
        """The workload's report of one second: release the view once its time is up."""
        if self._conn is not None and self.released_at is None and interval.t >= self.seconds:
            self._conn.commit()
            self.released_at = interval.t
            self.close()

    def close(self) -> None:
        """Ends the transaction (closing the connection rolls it back): safe more than once."""
        if self._conn is not None:
            try:
                self._conn.close()
            finally:
                self._conn = None

    def record(self) -> dict:
        """What the run's summary records: the seconds asked for, and the second of the
        measured phase at which the view was released (None: the phase ended first)."""
        return {"hold_s": self.seconds, "released_at_s": self.released_at}


class NoView:
    """The holder of a run without [workload] hold_read_view: the callback unchanged."""

    def ticking(self, tick):
        return tick
