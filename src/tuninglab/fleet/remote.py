"""One host of a fleet, over SSH (Fabric): where things live there and each step a fleet
command takes on it. Under the host's work directory:

    trees/<rev12>/   a shipped revision, set up by its own setup.sh (.fleet-ready once done)
    work/            the recipes' work directory: templates, lab VM images and resume files,
                     kept across revisions (a rerun picks up the runs a recipe finished)
    runs/<run id>/   one fleet run's recipe there: log, pid, rc (its exit code)

The recipe runs detached from the SSH session (setsid): a dropped connection, or a stopped
`invoke fleet.run`, leaves it running; the next fleet.run follows it again from its log.
"""

import re
import shlex
import stat
from contextlib import contextmanager
from pathlib import Path

from tuninglab.fleet import hostkeys
from tuninglab.fleet.inventory import Host
from tuninglab.visible import visible

READY = ".fleet-ready"
PROBE = r"""
echo "kernel=$(uname -r)"
. /etc/os-release 2>/dev/null; echo "os=${PRETTY_NAME:-unknown}"
echo "cores=$(nproc)"
echo "memory_kib=$(awk '/^MemTotal:/ {print $2}' /proc/meminfo)"
echo "cpu=$(awk -F': ' '/^model name/ {print $2; exit}' /proc/cpuinfo)"
echo "virtualization=$(systemd-detect-virt 2>/dev/null || echo unknown)"
echo "disks=$(lsblk -dno NAME,SIZE,ROTA 2>/dev/null | awk '$1 !~ /^(loop|ram|zram)/ \
  {printf "%s%s %s %s", s, $1, $2, ($3 == 1 ? "rotational" : "flash"); s=", "}')"
"""
WROTE = re.compile(r"^wrote (/\S+\.json)$")
# The host's id as the recipe's results record it (provenance.host_id), asked from the tree.
HOST_ID = (".venv/bin/python -c 'from tuninglab.engine.measure.provenance import host_id; "
           "print(host_id())'")
MAX_LINE = 64 << 10   # characters of one line of remote output handed on at once
MAX_LOG_READ = 1 << 20   # bytes of a run's log read back to find its result files


class HostError(Exception):
    """A step failed on one host; the message is the reason the fleet's table shows."""


class Lines:
    """A stream Fabric writes a command's output to, handed on one whole line at a time, made
    visible (no line longer than MAX_LINE: a line without end is handed on in pieces)."""

    def __init__(self, on_line):
        self.on_line, self.pending = on_line, ""

    def write(self, text: str) -> None:
        self.pending += text
        *done, self.pending = self.pending.split("\n")
        while len(self.pending) > MAX_LINE:
            done.append(self.pending[:MAX_LINE])
            self.pending = self.pending[MAX_LINE:]
        for line in done:
            self.on_line(visible(line.rstrip("\r")))

    def flush(self) -> None:
        pass


def connect(host: Host):
    """An open Fabric connection whose host key is known (hostkeys.py); the key given, else
    the SSH agent's and ~/.ssh's (Fabric's own). HostError when the host key is unknown or
    changed."""
    import fabric
    import paramiko

    kwargs = {"banner_timeout": 30}
    if host.key:
        kwargs.update(key_filename=str(Path(host.key).expanduser()), look_for_keys=False,
                      allow_agent=False)
    conn = fabric.Connection(host.address, user=host.user, port=host.port, connect_timeout=20,
                             connect_kwargs=kwargs)
    try:
        hostkeys.check_with(conn, host)
        conn.open()
    except BaseException as exc:
        # Fabric's close() knows only a connection that opened: the SSH transport a refused
        # key left running is the client's own.
        conn.client.close()
        if isinstance(exc, hostkeys.HostKeyError):
            raise HostError(str(exc)) from None
        if isinstance(exc, paramiko.BadHostKeyException):
            raise HostError(str(hostkeys.changed(exc, conn.port))) from None
        raise
    return conn


@contextmanager
def opened(host: Host, rev: str, connector=connect):
    """A Remote on a fresh connection to host, closed however the block ends."""
    conn = connector(host)
    try:
        yield Remote(host, rev, conn)
    finally:
        conn.close()


class Remote:
    def __init__(self, host: Host, rev: str, conn):
        self.host, self.rev, self.conn = host, rev, conn
        home = self.sh("cd && pwd", check=True).stdout.strip()
        base = host.workdir.rstrip("/")
        base = base[2:] if base.startswith("~/") else base
        self.base = base if base.startswith("/") else f"{home}/{base}"
        self.tree = f"{self.base}/trees/{rev[:12]}"
        self.work = f"{self.base}/work"

    def sh(self, command: str, on_line=None, check: bool = False):
        """Run a shell command there; its output to on_line line by line, else captured."""
        stream = {"out_stream": Lines(on_line), "err_stream": Lines(on_line),
                  "hide": False} if on_line else {"hide": True}
        result = self.conn.run(command, warn=True, pty=False, in_stream=False, **stream)
        if check and result.exited:
            last = (result.stdout or result.stderr or "").strip().splitlines()[-1:]
            raise HostError(f"{command.split()[0]} failed (exit {result.exited})"
                            + (f": {visible(last[0][:200])}" if last else ""))
        return result

    # --- what it has -------------------------------------------------------------------

    def probe(self) -> dict:
        """Its hardware and system, and whether this revision is set up there."""
        out = self.sh(PROBE, check=True).stdout
        facts = dict(visible(line).split("=", 1) for line in out.splitlines() if "=" in line)
        facts["ready"] = self.ready()
        return facts

    def ready(self) -> bool:
        return self.sh(f"test -f {q(self.tree)}/{READY}").exited == 0

    def lab_check(self) -> str:
        """lab.check's answers, from this revision's tree."""
        out = self.sh(f"cd {q(self.tree)} && {self.env()} .venv/bin/invoke lab.check",
                      check=True).stdout
        return "\n".join(visible(line) for line in out.splitlines())

    def host_id(self) -> str:
        """The host's id as its results record it, from this revision's tree (set up)."""
        out = self.sh(f"cd {q(self.tree)} && {self.env()} {HOST_ID}", check=True).stdout
        found = out.strip()
        if not re.fullmatch(r"[0-9a-f]{16}", found):
            raise HostError(f"the host reported no host id (it said {visible(found[:80])!r}); "
                            "expected 16 hex digits")
        return found

    def env(self) -> str:
        return f"TUNINGLAB_WORKDIR={q(self.work)}"

    # --- shipping and setting up -------------------------------------------------------

    def ship(self, archive: Path, say) -> None:
        """Unpack the revision's archive into its tree, and set it up (setup.sh)."""
        if self.ready():
            return
        say(f"shipping revision {self.rev[:12]} ({archive.stat().st_size >> 10} KiB)")
        self.sh(f"mkdir -p {q(self.base)}/trees", check=True)
        remote_archive = f"{self.base}/trees/{self.rev[:12]}.tar.gz"
        self.conn.put(str(archive), remote_archive)
        staging = f"{self.tree}.unpacking"
        self.sh(f"rm -rf {q(self.tree)} {q(staging)} && mkdir {q(staging)} && "
                f"tar -xzf {q(remote_archive)} -C {q(staging)} && mv {q(staging)} {q(self.tree)}"
                f" && rm -f {q(remote_archive)}", check=True)
        say("running setup.sh")
        result = self.sh(f"cd {q(self.tree)} && ./setup.sh", on_line=say)
        if result.exited:
            raise HostError(f"setup.sh failed (exit {result.exited}); its output is in the "
                            "host's log")
        self.sh(f"touch {q(self.tree)}/{READY}", check=True)

    # --- the recipe --------------------------------------------------------------------

    def run_dir(self, run_id: str) -> str:
        return f"{self.base}/runs/{run_id}"

    def state(self, run_id: str) -> tuple[str, int | None]:
        """("done", exit code), ("running", pid) or ("new", None)."""
        d = q(self.run_dir(run_id))
        out = self.sh(f"if [ -f {d}/rc ]; then echo done $(cat {d}/rc); "
                      f"elif [ -f {d}/pid ] && kill -0 $(cat {d}/pid) 2>/dev/null; then "
                      f"echo running $(cat {d}/pid); else echo new; fi", check=True).stdout
        word, *rest = out.split()
        return word, int(rest[0]) if rest and rest[0].lstrip("-").isdigit() else None

    def start(self, run_id: str, args: list[str]) -> int:
        """Start the recipe detached from this session; its pid. A rerun appends to the log."""
        d = self.run_dir(run_id)
        recipe = " ".join(q(a) for a in [".venv/bin/invoke", "recipe", *args])
        inner = (f"{self.env()} {recipe} >> {q(d)}/log 2>&1; echo $? > {q(d)}/rc.new && "
                 f"mv {q(d)}/rc.new {q(d)}/rc")
        out = self.sh(f"mkdir -p {q(d)} && rm -f {q(d)}/rc && cd {q(self.tree)} && "
                      f"(setsid nohup sh -c {q(inner)} > /dev/null 2>&1 < /dev/null & "
                      f"echo $! > {q(d)}/pid; echo $!)", check=True).stdout
        return int(out.split()[-1])

    def follow(self, run_id: str, pid: int, on_line, from_start: bool) -> None:
        """The run's log as it grows, until its process ends (or the connection drops)."""
        log = q(f"{self.run_dir(run_id)}/log")
        lines = "+1" if from_start else "5"
        self.sh(f"touch {log} && tail -n {lines} -F --pid={pid} {log} 2>/dev/null",
                on_line=on_line)

    def written(self, run_id: str) -> list[str]:
        """The result files the run's log says it wrote (every attempt's)."""
        log = q(f"{self.run_dir(run_id)}/log")
        # Only its "wrote" lines, at most MAX_LOG_READ bytes of them: the log has no bound.
        out = self.sh(f"grep -a '^[[:space:]]*wrote /' {log} | tail -c {MAX_LOG_READ}",
                      check=True).stdout
        return [m[1] for line in out.splitlines() if (m := WROTE.match(line.strip()))]

    def results_dir(self, recipe: str) -> str:
        """Where the recipe writes its results there: the tree's data/<recipe>, as the runner
        names it (its checkout's resolved path)."""
        real = self.sh(f"cd {q(self.tree)} && pwd -P", check=True).stdout.strip()
        return f"{real}/data/{recipe}"

    def last_error(self, run_id: str) -> str:
        """The line of the run's log that says why it stopped."""
        out = self.sh(f"tail -n 40 {q(self.run_dir(run_id))}/log | tail -c 65536").stdout or ""
        lines = [line.strip() for line in out.splitlines() if line.strip()]
        errors = [line for line in lines if line.startswith(("error:", "interrupted"))]
        return visible((errors or lines or ["no output"])[-1][:300])

    def fetch(self, remote_path: str, local: Path, limit: int) -> Path:
        """Copy a regular file of at most limit bytes to local. Its size is asked first (a 2 GB
        file is refused before a byte of it comes), and the read stops past limit (it may grow
        meanwhile, or be swapped for a device between the two)."""
        sftp = self.conn.sftp()
        try:
            # Asked before opening too: opening a FIFO there would wait for a writer.
            _regular_within(sftp.stat(remote_path), remote_path, limit)
            with sftp.open(remote_path, "rb") as f:
                _regular_within(f.stat(), remote_path, limit)
                data = f.read(limit + 1)
        except OSError as exc:
            raise HostError(f"{visible(remote_path)}: cannot read it there: "
                            f"{visible(str(exc))[:200]}") from None
        if len(data) > limit:
            raise HostError(f"{visible(remote_path)}: grew past {limit:,} bytes while read; "
                            "expected a result file")
        local.write_bytes(data)
        return local

    # --- cleaning up -------------------------------------------------------------------

    def stop_runs(self) -> list[int]:
        """SIGTERM to every fleet run still going there (the runner cleans up on it)."""
        out = self.sh(f"for f in {q(self.base)}/runs/*/pid; do [ -f \"$f\" ] || continue; "
                      f"p=$(cat \"$f\"); [ -f \"$(dirname \"$f\")/rc\" ] && continue; "
                      "kill -0 \"$p\" 2>/dev/null && kill -TERM -- -\"$p\" && echo \"$p\"; "
                      "done; true", check=True).stdout
        return [int(p) for p in out.split()]

    def lab_clean(self, on_line) -> None:
        """lab.clean of the host's work directory, from the newest tree set up there."""
        tree = self.sh(f"ls -td {q(self.base)}/trees/*/{READY} 2>/dev/null | head -1").stdout
        if not tree.strip():
            on_line("nothing set up there: nothing to clean")
            return
        where = q(tree.strip().rsplit("/", 1)[0])
        self.sh(f"cd {where} && {self.env()} .venv/bin/invoke lab.clean", on_line=on_line,
                check=True)


def _regular_within(attrs, remote_path: str, limit: int) -> None:
    if not stat.S_ISREG(attrs.st_mode or 0):
        raise HostError(f"{visible(remote_path)}: not a regular file; expected a result file")
    if (attrs.st_size or 0) > limit:
        raise HostError(f"{visible(remote_path)}: {attrs.st_size:,} bytes; expected a result "
                        f"file of at most {limit:,}")


q = shlex.quote   # every path and word a command line here carries
