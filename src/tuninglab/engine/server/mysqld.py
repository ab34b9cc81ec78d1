"""Throwaway mysqld/mariadbd instances: find the binary, learn its version and options, start
one on a socket in the run's own directory (no TCP port), stop it on every exit path."""

import ctypes
import functools
import os
import re
import shutil
import signal
import subprocess
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

import pymysql

from tuninglab import files
from tuninglab.engine.server import allocators, roots
from tuninglab.engine.server.option_file import cnf_line
from tuninglab.engine.server.server_output import (
    log_tail,
    explain_start_failure,
    log_notes,
    parse_values,
    parse_variables,
)
from tuninglab.engine.server.option_names import (
    Problem,
    engine_settings,
    option_problems,
)
from tuninglab.errors import UserError
from tuninglab.recipes.server_names import map_settings
from tuninglab.recipes.server_version import parse_version

DEFAULT_BINARIES = ("/usr/sbin/mariadbd", "mariadbd", "/usr/sbin/mysqld", "mysqld")
INSTALL_HINT = "install Debian's server with `apt-get install mariadb-server`, or pass --mysqld PATH"
SOCKET_MAX = 100  # AF_UNIX paths are limited to 107 bytes


@dataclass(frozen=True)
class ServerBinary:
    path: str            # as the server sees it: inside its root, if it has one
    flavor: str          # mariadb, mysql or percona
    version: tuple
    version_text: str    # the whole --version line
    root: str = ""       # the Debian root it runs in (roots.py), "" for the host's own
    server: str = ""     # the name --server gave it ("mysql-9.7"), "" for --mysqld's
    packages: tuple = ()  # its root's package versions, as (name, version) pairs

    @property
    def label(self) -> str:
        name = {"mariadb": "MariaDB", "mysql": "MySQL", "percona": "Percona Server"}[self.flavor]
        return f"{name} {'.'.join(map(str, self.version))}"

    @property
    def host_path(self) -> str:
        """The binary as this host sees it."""
        return str(Path(self.root) / self.path.lstrip("/")) if self.root else self.path

    @property
    def variables(self) -> frozenset:
        return _variables(self, os.stat(self.host_path).st_mtime_ns)

    def command(self, args, binds=(), program: str | None = None) -> list:
        """The command that runs the binary (or another program beside it, such as
        mariadb-install-db) with args: in its root, with the host directories of binds at the
        same paths there, if it has a root."""
        argv = [program or self.path, *args]
        return roots.command(Path(self.root), argv, binds) if self.root else argv

    def map(self, settings: dict) -> dict:
        return map_settings(settings, self.flavor, self.version)

    def describe(self) -> dict:
        described = {"flavor": self.flavor, "version": ".".join(map(str, self.version)),
                     "version_text": self.version_text, "path": self.path}
        if self.root:
            described["root"] = {"server": self.server, "path": self.root,
                                 "packages": dict(self.packages)}
        return described


def find(path: str | None = None, server: str | None = None, workdir: Path | None = None,
         say=print) -> ServerBinary:
    """The server to test: --mysqld's binary, --server's (built into its root first if
    needed), or Debian's MariaDB installed here."""
    if path and server:
        raise UserError(f"--mysqld {path} and --server {server} both name the server: expected "
                        "one of them")
    if server and server != roots.HOST_SERVER:
        return in_root(roots.ensure(workdir or files.default_workdir(), server, say))
    if path:
        resolved = shutil.which(path) or path
        if not os.path.exists(resolved):
            raise UserError(f"--mysqld {path}: no such file")
        if not os.access(resolved, os.X_OK) or os.path.isdir(resolved):
            raise UserError(f"--mysqld {path}: not an executable file")
    else:
        resolved = next((shutil.which(c) for c in DEFAULT_BINARIES if shutil.which(c)), None)
        if not resolved:
            raise UserError(f"no MySQL or MariaDB server found: {INSTALL_HINT}")
    binary = _identify(resolved)
    if server and (binary.flavor, binary.version[:2]) != ("mariadb", (10, 11)):
        raise UserError(f"--server {server}: the server installed here is {binary.label} "
                        f"({resolved}), not Debian 12's MariaDB 10.11")
    return binary


def _identify(resolved: str) -> ServerBinary:
    try:
        out = subprocess.run([resolved, "--version"], capture_output=True, text=True,
                             errors="backslashreplace", timeout=30)
        flavor, version = parse_version(out.stdout + out.stderr)
    except (OSError, subprocess.TimeoutExpired, ValueError) as exc:
        raise UserError(f"{resolved} does not answer like a MySQL server: {exc}") from None
    return ServerBinary(resolved, flavor, version, (out.stdout or out.stderr).strip())


def in_root(root) -> ServerBinary:
    """The server of a built root (roots.Root), as its manifest records it."""
    manifest = root.manifest
    flavor, version = parse_version(manifest["version_text"])
    return ServerBinary(root.spec.binary, flavor, version, manifest["version_text"],
                        str(root.path), root.spec.name, tuple(manifest["packages"].items()))


@dataclass(frozen=True)
class Checked:
    """What a server binary says of a set of settings without serving."""
    problems: tuple       # server_options.Problem: values it refuses, ignores or changes
    values: dict          # its values in force with these settings (parse_values)
    help_text: str = ""   # its --verbose --help, kept only when there are problems


def check_settings(binary: ServerBinary, settings: dict) -> Checked:
    """Run the binary in its validating modes with these settings (mapped, with the engine's
    own), as a throwaway server would get them; cached per (binary, settings)."""
    mapped = {**engine_settings(binary.flavor, binary.version), **binary.map(settings)}
    return _check_settings(binary, os.stat(binary.host_path).st_mtime_ns, tuple(mapped.items()))


@functools.lru_cache(maxsize=64)
def _check_settings(binary, _mtime, items) -> Checked:
    args = [f"--{name}" if value is None else f"--{name}={value}" for name, value in items]
    # --verbose --help parses every option, the storage engines' too, and serves nothing (it
    # reports a bad value but may exit 0); MySQL 8.0.16+ also has --validate-config.
    shown = _run_check(binary, args, ["--verbose", "--help"])
    problems = _problems(shown, "--verbose --help")
    if not problems and binary.flavor != "mariadb" and binary.version >= (8, 0, 16):
        # Only the values it names: it may not load the plugins whose options help mode
        # listed (check_known has the names), so its unknown options and exit code are not ours.
        validated = _run_check(binary, args, ["--validate-config"])
        problems = tuple(p for p in option_problems(validated.stderr) if not p.unknown)
    return Checked(problems, parse_values(shown.stdout), shown.stdout if problems else "")


def _run_check(binary: ServerBinary, args: list, mode: list) -> subprocess.CompletedProcess:
    try:
        # The server quotes a bad value byte by byte: its message on a non-ASCII value ("1é")
        # can hold half a UTF-8 character, shown escaped ('\xc3'), never a decoding error.
        return subprocess.run(binary.command(["--no-defaults", *args, *mode] + _user_args()),
                              capture_output=True, text=True, errors="backslashreplace",
                              timeout=60, check=False, stdin=subprocess.DEVNULL)
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise UserError(f"{binary.path} {' '.join(mode)} could not check the settings: {exc}"
                        ) from None


def _problems(out: subprocess.CompletedProcess, mode: str) -> tuple:
    problems = option_problems(out.stderr)
    if not problems and out.returncode != 0:  # refused, in words we do not know
        tail = " | ".join(out.stderr.strip().splitlines()[-3:])
        problems = (Problem("", "", f"{mode} exited with {out.returncode}: {tail}"),)
    return problems


@functools.lru_cache(maxsize=8)
def _variables(binary: ServerBinary, _mtime: int) -> frozenset:
    cmd = binary.command(["--no-defaults", "--verbose", "--help"] + _user_args())
    out = subprocess.run(cmd, capture_output=True, text=True, errors="backslashreplace",
                         timeout=60)
    names = parse_variables(out.stdout)
    if not names:
        raise UserError(f"{binary.path} --verbose --help listed no options: "
                        f"{out.stderr.strip()[-300:]}")
    return names


def _user_args() -> list[str]:
    # mysqld refuses to run as root unless told to; unprivileged users need nothing.
    return ["--user=root"] if os.geteuid() == 0 else []


def initialize(binary: ServerBinary, datadir: Path, log: Path) -> None:
    """A new, empty datadir with a passwordless root account reachable over the socket."""
    basedir = "/usr" if binary.root else Path(binary.path).resolve().parent.parent
    if binary.flavor == "mariadb":
        script = _install_db_script(binary)
        args = [f"--datadir={datadir}", f"--basedir={basedir}",
                "--auth-root-authentication-method=normal", "--skip-test-db"]
    else:
        script = None
        args = ["--initialize-insecure", f"--datadir={datadir}", f"--basedir={basedir}"]
    args = ["--no-defaults", *args] + _user_args()
    datadir.mkdir(parents=True, exist_ok=True)  # empty: both tools take it, a root binds it
    cmd = binary.command(args, [datadir], program=script)
    with open(log, "w") as out:
        result = subprocess.run(cmd, stdout=out, stderr=subprocess.STDOUT, timeout=600)
    if result.returncode != 0:
        raise UserError(f"initialising a datadir with {binary.label} failed (exit "
                        f"{result.returncode}); the end of {log}:\n{log_tail(log)}")


def _install_db_script(binary: ServerBinary) -> str:
    if binary.root:  # Debian's, as the root has it
        return "/usr/bin/mariadb-install-db"
    here = Path(binary.path).resolve().parent
    for name in ("mariadb-install-db", "mysql_install_db"):
        for candidate in (here / name, here.parent / "bin" / name, here.parent / "scripts" / name):
            if candidate.is_file():
                return str(candidate)
        if shutil.which(name):
            return shutil.which(name)
    raise UserError(f"mariadb-install-db not found next to {binary.path}: {INSTALL_HINT}")


class Server:
    """One throwaway instance. Use as a context manager: it is stopped however the block ends."""

    def __init__(self, binary: ServerBinary, rundir: Path, datadir: Path, settings: dict,
                 cgroup: Path | None = None, allocator: str = "glibc", cpus=None):
        self.binary, self.rundir, self.datadir = binary, Path(rundir), Path(datadir)
        self.cgroup = cgroup  # a memory cgroup's cgroup.procs the server joins (memory.py)
        self.allocator = allocator  # its malloc: glibc's, or one preloaded (allocators.py)
        self.cpus = cpus  # the CPUs it is held to from its exec (None: the runner's)
        self.settings = binary.map(settings)
        self.cnf = self.rundir / "my.cnf"
        self.errlog = self.rundir / "error.log"
        self.socket = _socket_path(self.rundir)
        self.process = None

    def config_text(self) -> str:
        items = {"datadir": self.datadir, "socket": self.socket,
                 "pid-file": self.rundir / "mysqld.pid", "log-error": self.errlog,
                 "skip-networking": None}
        items.update(a.lstrip("-").split("=", 1) for a in _user_args())
        if self.binary.flavor != "mariadb":  # a build's own default may not exist here
            items["secure_file_priv"] = self.rundir
        items.update(engine_settings(self.binary.flavor, self.binary.version))
        items.update(self.settings)
        lines = ["[mysqld]"] + [cnf_line(name, value) for name, value in items.items()]
        return "\n".join(lines) + "\n"

    def start(self, timeout: float = 300) -> None:
        self.rundir.mkdir(parents=True, exist_ok=True)
        self.cnf.write_text(self.config_text(), encoding="utf-8")  # whatever the locale
        self.errlog.write_text("")
        # Own session: the terminal's Ctrl-C reaches us, and we stop the server cleanly. Its
        # stderr is kept: what fails before its own log opens (a root's mounts) says so there.
        with open(self.rundir / "stderr.log", "wb") as stderr:
            self.process = subprocess.Popen(
                self.binary.command([f"--defaults-file={self.cnf}"], self.binds()),
                stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=stderr,
                start_new_session=True,
                env=allocators.environment(self.allocator),
                preexec_fn=functools.partial(_child_setup, self.cgroup, self.cpus))
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                self.process = None
                raise UserError(self.explain_failure())
            if self.socket.exists() and self._ping():
                return
            time.sleep(0.05)
        self.stop()
        raise UserError(f"{self.binary.label} did not accept connections within {timeout:.0f}s;"
                        f" the end of {self.errlog}:\n{log_tail(self.errlog)}")

    def binds(self) -> list:
        """The host directories a server in a root must see: its own, its datadir's, its
        socket's and any a setting names (a redo log on another sandbox, say)."""
        if not self.binary.root:
            return []
        paths = [self.rundir, self.datadir, self.socket.parent]
        for value in self.settings.values():
            if isinstance(value, str | Path) and str(value).startswith("/"):
                place = Path(value)
                paths.append(place if place.is_dir() else place.parent)
        return [p for p in paths if p.is_dir()]

    def log_notes(self) -> dict:
        return log_notes(self.errlog.read_text(errors="replace"))

    def explain_failure(self) -> str:
        log = self.errlog.read_text(errors="replace") if self.errlog.exists() else ""
        stderr = self.rundir / "stderr.log"
        if not log.strip() and stderr.exists() and stderr.stat().st_size:
            return explain_start_failure(stderr.read_text(errors="replace"), self.binary.label,
                                         stderr)
        return explain_start_failure(log, self.binary.label, self.errlog)

    def _ping(self) -> bool:
        try:
            self.connect(timeout=2).close()
            return True
        except pymysql.err.OperationalError:
            return False

    def connect(self, timeout: float = 10, database: str | None = None):
        return pymysql.connect(unix_socket=str(self.socket), user="root", password="",
                               database=database, connect_timeout=timeout, autocommit=True)

    def query(self, sql: str) -> list[tuple]:
        with self.connect() as conn, conn.cursor() as cur:
            cur.execute(sql)
            return list(cur.fetchall())

    def variables(self, names) -> dict:
        """The values in force, read back from the running server."""
        wanted = ",".join(f"'{n}'" for n in names if re.fullmatch(r"\w+", n))
        if not wanted:
            return {}
        rows = self.query(f"SHOW GLOBAL VARIABLES WHERE Variable_name IN ({wanted})")
        return {name.lower(): value for name, value in rows}

    def cpus_in_force(self) -> list[int]:
        """The CPUs the running server's main thread may run on, read back from the kernel."""
        return sorted(os.sched_getaffinity(self.process.pid))

    def allocator_record(self) -> dict:
        """The allocator asked for and the one the server reports running (MariaDB's
        version_malloc_library; MySQL reports none); UserError if they differ."""
        reported = self.variables(["version_malloc_library"]).get("version_malloc_library")
        allocators.check(self.allocator, reported)
        return {"name": self.allocator, "reported": (reported or "not reported")[:100]}

    def stop(self, timeout: float = 600, slow: bool = False, discard: bool = False) -> int | None:
        """Clean shutdown (SIGTERM); slow=True also finishes purge and merges, for templates;
        discard=True kills at once, for a datadir that is thrown away next. The server's exit
        code (None if it was not running)."""
        if self.process is None:
            return None
        if slow and self.process.poll() is None:
            self.query("SET GLOBAL innodb_fast_shutdown=0")
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGKILL if discard else signal.SIGTERM)
        try:
            self.process.wait(timeout)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        finally:
            code, self.process = self.process.returncode, None
            if self.socket.parent != self.rundir:
                shutil.rmtree(self.socket.parent, ignore_errors=True)
        return code

    def __enter__(self):
        self.start()
        return self

    def __exit__(self, *exc):
        self.stop()


def _socket_path(rundir: Path) -> Path:
    path = rundir / "mysqld.sock"
    if len(str(path)) <= SOCKET_MAX:
        return path
    # A deep work directory would overflow the socket path limit: use a private temp dir.
    return Path(tempfile.mkdtemp(prefix="tuninglab-")) / "mysqld.sock"


def _child_setup(cgroup: Path | None, cpus=None) -> None:
    die_with_parent()
    if cgroup is not None:  # before exec: everything the server allocates is charged there
        cgroup.write_text(f"{os.getpid()}\n")
    if cpus:  # before exec: every thread the server starts inherits them
        os.sched_setaffinity(0, cpus)


def die_with_parent() -> None:
    """Runs in the child: if the runner is killed (even SIGKILL), the server dies too."""
    libc = ctypes.CDLL("libc.so.6", use_errno=True)
    libc.prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
