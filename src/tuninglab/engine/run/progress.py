"""What a run prints while it measures: run i of n, elapsed and remaining time, and a live line
on a terminal."""

import sys
import time

from tuninglab.results import report
from tuninglab.units import human_seconds


class Progress:
    """Point i of n, elapsed and remaining time; a live line on a terminal."""

    def __init__(self, total, done, run_seconds, say):
        self.total, self.done, self.say = total, done, say
        self.run_seconds, self.started = run_seconds, time.monotonic()
        self.finished_here = 0
        self.spent = 0.0  # seconds from begin() to end() of the runs finished here
        self.began = None
        self.phase_name, self.phase_seconds, self.phase_start = "", 0, 0
        self.live = sys.stdout.isatty()

    def remaining(self) -> float:
        """From the runs' own times: a switchback's warm-up, before its first block, is no
        block's time."""
        per_run = self.spent / self.finished_here if self.finished_here else self.run_seconds
        return per_run * (self.total - self.done)

    def begin(self, run_):
        self.began = time.monotonic()
        elapsed = human_seconds(time.monotonic() - self.started)
        self.say(f"[{self.done + 1}/{self.total}] {run_.point.id}, repeat {run_.repeat} "
                 f"(elapsed {elapsed}, about {human_seconds(self.remaining())} left)")

    def phase(self, name, seconds, start=0):
        """A phase of `seconds`, from the workload's second `start` (a switchback's block
        starts within one long workload)."""
        self.phase_name, self.phase_seconds, self.phase_start = name, seconds, start

    def tick(self, interval):
        if self.live:
            t = interval.t - self.phase_start
            sys.stdout.write(f"\r    {self.phase_name} {t:.0f}/{self.phase_seconds:.0f}s"
                             f"  {interval.tps:,.0f} tps  p95 {interval.latency_p95_ms} ms   ")
            sys.stdout.flush()

    def scanned(self, table, tables, elapsed):
        if self.live:
            sys.stdout.write(f"\r    scan: table {table}/{tables} after {elapsed:.1f}s   ")
            sys.stdout.flush()

    def end(self, record):
        if self.live:
            sys.stdout.write("\r" + " " * 60 + "\r")
        self.say(f"    {report.run_line(record['summary'])}")
        if self.began is not None:
            self.spent += time.monotonic() - self.began
        self.done += 1
        self.finished_here += 1
