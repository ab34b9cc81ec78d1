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

from tuninglab.engine.host import hostinfo
from tuninglab.errors import UserError


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


def first(count) -> list[int] | None:
    """The CPUs a server is held to ([server] cpus): the first count of this runner's, None
    for 0 (all of them); or two placed by SMT (placed)."""
    if isinstance(count, str):
        return placed(count)
    return available()[:count] if count else None


def placed(placement: str, cores=None) -> list[int]:
    """Two CPUs: "siblings", the two hardware threads of one core; "cores", one thread on each
    of two cores. cores: the host's SMT cores (hostinfo.smt_cores), each its threads' CPUs."""
    cores = [[c for c in core if c in available()] for core in
             (hostinfo.smt_cores() if cores is None else cores)]
    cores = [core for core in cores if len(core) > 1]
    if not cores or (placement == "cores" and len(cores) < 2):
        raise UserError(f"server.cpus = {placement}: expected a host with SMT ({SMT_NEEDS})")
    return cores[0][:2] if placement == "siblings" else [cores[0][0], cores[1][0]]


SMT_NEEDS = "two cores of two hardware threads each, as /sys/devices/system/cpu/cpu*/topology/" \
    "thread_siblings_list lists them"


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
