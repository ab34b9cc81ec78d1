"""CPU pinning ([measure] pin = true): the server on some CPUs, the load generator on the
others, so that the two do not take each other's CPU in turns (one source of the per-second
noise). Off by default: `invoke bench --only noise` measures whether it helps on a host,
and on this project's 2-core machine it did not (README: Noise control).

The server's threads are pinned where they run (every thread under /proc/PID/task; threads
it starts later inherit their creator's CPUs); the client by pinning the engine's own thread
while it starts sysbench, whose process inherits the CPUs, and giving it back its own after."""

import os
from contextlib import contextmanager
from pathlib import Path


def split(cpus) -> dict | None:
    """{"server": [...], "client": [...]}: a quarter of the CPUs (at least one) for the load
    generator, the rest for the server; None with fewer than two CPUs to split."""
    cpus = sorted(cpus)
    if len(cpus) < 2:
        return None
    client = max(1, len(cpus) // 4)
    return {"server": cpus[client:], "client": cpus[:client]}


def available() -> list[int]:
    return sorted(os.sched_getaffinity(0))


def first(count: int) -> list[int] | None:
    """The first count of this runner's CPUs, for a server held to them ([server] cpus);
    None for 0 (all of them)."""
    return available()[:count] if count else None


def cpus_for(measure) -> dict | None:
    """The split of this host's CPUs if the recipe pins ([measure] pin), else None."""
    return split(available()) if measure.pin else None


@contextmanager
def pinned(server, cpus: dict | None):
    """While inside: the running server's threads on cpus["server"], and this thread (so the
    sysbench it starts) on cpus["client"]; this thread's CPUs given back on the way out. cpus
    None: nothing pinned."""
    if cpus is None:
        yield
        return
    own = os.sched_getaffinity(0)
    pin_process(server.process.pid, cpus["server"])
    os.sched_setaffinity(0, cpus["client"])
    try:
        yield
    finally:
        os.sched_setaffinity(0, own)


def pin_process(pid: int, cpus) -> None:
    """Every thread of a process on cpus (a thread that ends meanwhile is skipped)."""
    for task in Path(f"/proc/{pid}/task").iterdir():
        try:
            os.sched_setaffinity(int(task.name), cpus)
        except (ProcessLookupError, FileNotFoundError):
            pass
