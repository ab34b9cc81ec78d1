"""A duet (issue 62): two points of a sweep measured at once, on twin servers from one
template, each with its own copy of the data, its own sandbox and memory cgroup, its own
CPUs and its own sysbench. A barrier starts both warm-ups together and both measured runs
together, so second i of one server's series is second i of the other's: whatever the
machine does in that second, it does to both, and their ratio leaves it out
(results/duet.py compares them).

A duet runs as two halves, each with fresh servers (as a restart design: a setting read only
at startup is measured as easily as any other). The second half swaps the points' places,
CPUs and sandbox slot, so that a placement asymmetry enters one half's ratio as a gain and
the other's as a loss.

What it changes: each server has half the machine (on two cores, one core each, and half the
device's bandwidth), so a load that was CPU-bound on two cores is CPU-bound on one. The
result records each server's CPUs; a recipe whose claim needs the whole machine (a scaling
claim, a concurrency sweep) is not one to run this way.
"""

import threading
from dataclasses import dataclass

from tuninglab.engine.run.progress import Progress
from tuninglab.engine.run.repeat import measure_run
from tuninglab.engine.server import pinning
from tuninglab.errors import UserError
from tuninglab.recipes.plan import Run
from tuninglab.results import document, duet as compare
from tuninglab.results.result import paired_series

# Longer than a template copy and a server start take here; a side stuck past it ends the half.
BARRIER_SECONDS = 900


class Stopped(Exception):
    """The other side of the duet failed, or the run was interrupted: this side stops at its
    next second."""


@dataclass
class _Clock:
    """One side's view of the run's progress: the first side's lines are shown, the second's
    not (they would interleave), and both stop at their next second once `stop` is set."""
    clock: object
    stop: threading.Event
    shown: bool

    def phase(self, *args):
        if self.shown:
            self.clock.phase(*args)

    def tick(self, interval):
        if self.stop.is_set():
            raise Stopped
        if self.shown:
            self.clock.tick(interval)

    def scanned(self, *args):
        if self.shown:
            self.clock.scanned(*args)


def slot_cpus(cpus: list[int] | None = None) -> tuple[list[int], list[int]]:
    """This runner's CPUs split in two equal sets, one per server (an odd one out is left to
    the clients)."""
    cpus = pinning.available() if cpus is None else cpus
    if len(cpus) < 2:
        raise UserError(f"a duet runs two servers, each on CPUs of its own, and this host "
                        f"gives the runner {len(cpus)} CPU: expected at least 2 (or another "
                        "design: switchback or restart)")
    half = len(cpus) // 2
    return cpus[:half], cpus[half:2 * half]


def at_once(runs: list[Run], binary, template_data, runs_dir, experiment, clock,
            cpus: tuple) -> list[dict]:
    """Both runs at once, runs[i] on cpus[i], their loads started together; their records, in
    the same order. An error on either side (or an interrupt) stops both, each cleaning up
    after itself, and is raised once both are done."""
    barrier = threading.Barrier(len(runs), timeout=BARRIER_SECONDS)
    stop = threading.Event()
    records, errors = [None] * len(runs), []

    def side(i):
        try:
            records[i] = measure_run(runs[i], binary, template_data, runs_dir, [], experiment,
                                     _Clock(clock, stop, i == 0), cpus=list(cpus[i]),
                                     sync=barrier.wait)
        except BaseException as exc:   # noqa: BLE001 (raised again below, in the caller)
            errors.append(exc)
            stop.set()
            barrier.abort()

    threads = [threading.Thread(target=side, args=(i,), name=f"duet-{i}")
               for i in range(len(runs))]
    for t in threads:
        t.start()
    try:
        for t in threads:
            t.join()
    except BaseException:   # Ctrl-C or SIGTERM in this thread: stop both sides, then go
        stop.set()
        barrier.abort()
        for t in threads:
            t.join()
        raise
    first = [e for e in errors if not isinstance(e, (Stopped, threading.BrokenBarrierError))]
    if errors:
        raise (first or errors)[0]
    return records


def halves(tested, baseline, repeat: int, binary, template_data, runs_dir, experiment,
           clock, cpus: tuple | None = None) -> list[dict]:
    """One duet repeat: the tested point on the first CPUs and the baseline on the others,
    then swapped; each half's {"tested": record, "baseline": record, "cpus": ...}."""
    cpus = cpus or slot_cpus()
    out = []
    for number, order in ((1, (tested, baseline)), (2, (baseline, tested))):
        runs = [Run(2 * (repeat - 1) + number - 1, point, 2 * (repeat - 1) + number)
                for point in order]
        say = getattr(clock, "say", print)
        say(f"duet repeat {repeat}, half {number} of 2: {order[0].id} on CPU {_cpus(cpus[0])}, "
            f"{order[1].id} on CPU {_cpus(cpus[1])}, both loads at once")
        a, b = at_once(runs, binary, template_data, runs_dir, experiment, clock, cpus)
        for record in (a, b):
            say(f"    {record['summary']['tps']:,.0f} tps on CPU "
                f"{_cpus(record.get('server_cpus') or [])}")
        pair = (a, b) if number == 1 else (b, a)
        out.append({"tested": pair[0], "baseline": pair[1],
                    "cpus": {"tested": list(cpus[number - 1]),
                             "baseline": list(cpus[2 - number])}})
    return out


def _cpus(cpus) -> str:
    return ",".join(map(str, cpus))


def paired(half: dict, metric: str = "tps", first: bool = True) -> compare.Half:
    """A half's per-second series of both servers as results/duet.py pairs them, second by
    second; first: the tested point had the first place."""
    return compare.Half(*paired_series(half["tested"], half["baseline"], metric),
                        first)


def comparison(halves: list[dict], metric: str = "tps", **levels):
    """The duet's comparison of the tested point to the baseline, from halves() (the first
    with the tested point in the first place, the second swapped)."""
    return compare.compare_duet([paired(h, metric, i % 2 == 0) for i, h in enumerate(halves)],
                                **levels)


def run_halves(plan, doc, todo, binary, template_data, runs_dir, saved, say,
               clock=None) -> None:
    """`invoke recipe` of a duet plan: its pending halves (todo; the stop rule's next round
    when it adds one), each its two runs at once, saved as it ends (a half is kept whole or
    not at all, so a rerun resumes at the next half)."""
    cpus = slot_cpus()
    halves = {}
    for run_ in todo:
        halves.setdefault(run_.repeat, []).append(run_)
    say(f"duet: {len(halves)} halves of two servers at once, on CPUs "
        f"{','.join(map(str, cpus[0]))} and {','.join(map(str, cpus[1]))}; each half's "
        "first point takes the first")
    clock = clock or Progress(len(plan.runs), len(plan.runs) - len(todo), plan.run_seconds(),
                              say)
    for repeat, runs in sorted(halves.items()):
        runs = sorted(runs, key=lambda r: r.index)   # the half's order: its places
        say(f"[half {repeat}/{plan.rounds}] " + " beside ".join(r.point.id for r in runs))
        records = at_once(runs, binary, template_data, runs_dir, plan.experiment, clock, cpus)
        for run_, finished in zip(runs, records):
            document.point(doc, run_.point.id)["runs"].append(finished)
            clock.end(finished)
        saved.save(doc)
