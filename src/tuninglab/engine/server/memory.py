"""The memory model of a disk-bound shape ([dataset] memory_limit): the server runs in a memory
cgroup whose limit holds its buffer pool and a stated headroom, so that the OS page cache cannot
keep the dataset that the buffer pool does not (on a 24 GiB host it otherwise keeps all of it,
and buffered IO then "reads" from RAM while O_DIRECT goes to the device).

The cgroup v1 memory controller (/sys/fs/cgroup/memory) where the host mounts it, else cgroup
v2's where the unified hierarchy offers "memory". The page cache a process fills is charged to
its cgroup, so the server's buffered reads and writes are held to the limit with its own
memory. What the copy of the template left in the page cache is charged elsewhere and would
still serve the server's reads: uncache() drops it, file by file, before the server starts.

A cgroup is recorded in the work directory's ledger as it is made, so that `invoke lab.clean`
removes one a killed run left.
"""

import hashlib
import os
import time
from contextlib import contextmanager
from pathlib import Path

from tuninglab import units
from tuninglab.engine.host.ledger import Ledger
from tuninglab.errors import UserError
from tuninglab.recipes import server_list

V1_ROOT = Path("/sys/fs/cgroup/memory")
V2_ROOT = Path("/sys/fs/cgroup")
PREFIX = "tuninglab-"


def controller(v1: Path = V1_ROOT, v2: Path = V2_ROOT) -> tuple[str, Path] | str:
    """("v1" or "v2", the hierarchy's root) where this host can cap a process's memory, or
    the reason it cannot, in a few words."""
    if os.geteuid() != 0:
        return "not root (a memory cgroup needs root)"
    if (v1 / "memory.limit_in_bytes").exists():
        return "v1", v1
    if "memory" in _read(v2 / "cgroup.controllers").split():
        return "v2", v2
    return "no memory cgroup controller on this host"


def extra(experiment, flavor: str) -> int:
    """What a server of this flavour holds beyond the MariaDB the shapes are sized for, under
    this experiment's workload (server_list.extra_for): added to its cap."""
    return server_list.extra_for(experiment, flavor)


def describe(dataset, in_lab_vm: bool = False, extra_bytes: int = 0) -> dict:
    """The result's "memory" block: the limit (with the server's extra, when it has one), and
    whether the runs were held to it; {} for a dataset without a limit."""
    if dataset.memory_limit is None:
        return {}
    block = {"limit_bytes": units.size_bytes(dataset.memory_limit) + extra_bytes,
             **({"server_extra_bytes": extra_bytes} if extra_bytes else {})}
    where = "the lab VM runs the server: its own RAM is the limit" if in_lab_vm \
        else controller()
    if isinstance(where, str):
        return {**block, "capped": False, "reason": where}
    return {**block, "capped": True, "controller": f"cgroup {where[0]}"}


def not_capped(block: dict) -> str | None:
    """The one line a run prints when its shape asks for a cap this host cannot give."""
    if not block or block["capped"]:
        return None
    return (f"memory: not capped at {block['limit_bytes'] // 2**20}M ({block['reason']}): the "
            "OS may cache the dataset, and the result is marked uncapped")


@contextmanager
def capped(dataset, workdir: Path, name: str, extra_bytes: int = 0):
    """The memory cgroup of one server of this dataset, held to its memory_limit and the
    server's extra (extra()), or None when the dataset asks for no limit or the host cannot
    give one (describe() says which, in the result)."""
    where = controller() if dataset.memory_limit is not None else None
    if where is None or isinstance(where, str):
        yield None
        return
    limit = units.size_bytes(dataset.memory_limit) + extra_bytes
    with Cap(workdir, name, limit, where) as cap:
        yield cap


class Cap:
    """One memory cgroup with a limit, for one server. Use as a context manager: the cgroup is
    removed however the block ends (its processes must have ended by then)."""

    def __init__(self, workdir: Path, name: str, limit_bytes: int, where: tuple[str, Path]):
        self.version, root = where
        self.path = root / f"{PREFIX}{_place(workdir)}-{name}"
        self.limit = limit_bytes
        self.ledger = Ledger(workdir)
        self.entry = None

    def __enter__(self):
        if self.version == "v2":
            _enable_v2(self.path.parent)
        self.path.mkdir(exist_ok=True)
        self.entry = self.ledger.record({"kind": "cgroup", "path": str(self.path)})
        if self.version == "v1":
            self._write("memory.limit_in_bytes", self.limit)
            self._write("memory.swappiness", 0)   # hold the server to RAM, never swap it
        else:
            self._write("memory.max", self.limit)
            if (self.path / "memory.swap.max").exists():
                self._write("memory.swap.max", 0)
        return self

    @property
    def procs(self) -> Path:
        """The file a process writes its pid into to join the cgroup (before it allocates)."""
        return self.path / "cgroup.procs"

    def usage(self) -> dict:
        """What the run's record keeps: the most memory the cgroup held, the page cache it
        holds now, and how often the kernel killed a process in it for memory."""
        if self.version == "v1":
            stat = _stat(self.path / "memory.stat")
            return {"peak_bytes": int(_read(self.path / "memory.max_usage_in_bytes") or 0),
                    "page_cache_bytes": stat.get("cache", 0),
                    "oom_kills": _stat(self.path / "memory.oom_control").get("oom_kill", 0)}
        stat = _stat(self.path / "memory.stat")
        peak = _read(self.path / "memory.peak")
        return {"peak_bytes": int(peak) if peak else None,
                "page_cache_bytes": stat.get("file", 0),
                "oom_kills": _stat(self.path / "memory.events").get("oom_kill", 0)}

    def __exit__(self, *exc):
        remove(self.path)
        self.ledger.forget(self.entry)

    def _write(self, name: str, value) -> None:
        (self.path / name).write_text(f"{value}\n")


def _place(workdir: Path) -> str:
    # In a cgroup's name: two work directories on one host (two checkouts, a fleet's hosts on
    # one machine) name their runs alike but must not share a cgroup.
    return hashlib.sha256(str(Path(workdir).resolve()).encode()).hexdigest()[:8]


def refusal(path: str, workdir: Path) -> str | None:
    """Why a cgroup in a work directory's ledger (lab.clean reads it) is not one a run in that
    work directory could have made, or None: the lab makes tuninglab-<place>-<name> directly
    under a cgroup root, <place> naming the work directory."""
    real = Path(os.path.realpath(path))
    if real.parent not in (V1_ROOT, V2_ROOT) or Path(path) != real:
        return f"{path} is not directly under {V1_ROOT} or {V2_ROOT}"
    if not real.name.startswith(f"{PREFIX}{_place(workdir)}-"):
        return f"{real.name} is not named for this work directory ({PREFIX}{_place(workdir)}-*)"
    return None


def remove(path: Path, timeout: float = 10) -> str:
    """Remove a cgroup the lab made (a directory named tuninglab-* under a cgroup root); its
    processes have just been killed and may take a moment to leave it."""
    path = Path(path)
    if not path.name.startswith(PREFIX) or Path(os.path.realpath(path)).parent not in (
            V1_ROOT, V2_ROOT):
        raise UserError(f"refusing to remove {path}: not a cgroup the lab made")
    deadline = time.monotonic() + timeout
    while path.exists():
        try:
            path.rmdir()
        except OSError:
            if time.monotonic() > deadline:
                raise UserError(f"could not remove the memory cgroup {path}: processes "
                                f"{_read(path / 'cgroup.procs').split()} are still in it") from None
            time.sleep(0.1)
    return f"removed the memory cgroup {path}"


@contextmanager
def starting(cap: "Cap | None", dataset):
    """Around a capped server's start and run: a failure after the kernel killed it for
    memory says so, naming the recipe key to raise, instead of the server's last words."""
    try:
        yield
    except UserError as exc:
        if cap is None or not cap.usage()["oom_kills"]:
            raise
        raise UserError(f"dataset.memory_limit = {dataset.memory_limit}: the server was killed "
                        f"for lack of memory under its limit, {cap.limit // 2**20}M (its buffer "
                        f"pool is "
                        f"{dataset.buffer_pool_size}); raise dataset.memory_limit in the recipe "
                        f"or its profile\n({exc})") from None


def uncache(root: Path) -> None:
    """Write out and drop from the page cache every file under root (the fresh copy of the
    template), so that the server's first reads go to the device."""
    for path in [root, *root.rglob("*")] if root.is_dir() else [root]:
        if path.is_file() and not path.is_symlink():
            fd = os.open(path, os.O_RDONLY)
            try:
                os.fsync(fd)   # dirty pages cannot be dropped
                os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
            finally:
                os.close(fd)


def _enable_v2(parent: Path) -> None:
    """cgroup v2 gives a child a controller only once its parent delegates it."""
    control = parent / "cgroup.subtree_control"
    if "memory" not in _read(control).split():
        control.write_text("+memory\n")


def _read(path: Path) -> str:
    try:
        return path.read_text().strip()
    except OSError:
        return ""


def _stat(path: Path) -> dict:
    """A flat keyed file ("name value" per line) as {name: int}."""
    out = {}
    for line in _read(path).splitlines():
        name, _, value = line.partition(" ")
        if value.strip().lstrip("-").isdigit():
            out[name] = int(value)
    return out
