"""Throwaway OpenSSH servers on 127.0.0.1 for the integration tests of the fleet feature (running
recipes on several hosts with Ansible, over OpenSSH): each `Sshd` is a real /usr/sbin/sshd with
its own host key, port, config and log in a directory of the test, accepting root with one
throwaway client key. `stop()` cuts the connections like a host going away mid-run; `restart()`
brings the host back on the same port with the same host key. Nothing leaves the machine;
nothing is installed in /etc. OpenSSH checks the host keys: `known_hosts(hosts, path)` writes
the file an inventory's `-o UserKnownHostsFile=` names (as `ssh-keyscan -p PORT 127.0.0.1`
would write it).

    with sshd_hosts(tmp_path, 2) as (hosts, key):
        known = known_hosts(hosts, tmp_path / "known_hosts")
        subprocess.run(hosts[0].ssh(key, known, "echo hi"), check=True)
"""

import os
import shutil
import signal
import socket
import subprocess
import time
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path
from typing import Self

import pytest

SSHD = "/usr/sbin/sshd"   # sshd re-executes itself per connection, so it refuses a relative path
# What the listener and its per-connection processes run: OpenSSH >= 9.8 splits the latter into
# sshd-session and sshd-auth (Debian 12 has 9.2, where they are all sshd).
SSHD_EXES = {"sshd", "sshd-session", "sshd-auth"}


def needs_sshd():
    """Skips the test unless sshd can run here as root (a root login is what the fleet uses)."""
    if not os.path.exists(SSHD) or not shutil.which("ssh-keygen"):
        pytest.skip("needs openssh-server (apt-get install openssh-server)")
    if os.geteuid() != 0:
        pytest.skip("needs root: the throwaway sshd accepts root logins")


def _keygen(path: Path, comment: str) -> Path:
    subprocess.run(["ssh-keygen", "-t", "ed25519", "-N", "", "-q", "-C", comment, "-f", str(path)],
                   check=True, stdin=subprocess.DEVNULL)
    return path


def client_key(directory: Path) -> Path:
    """A new passphrase-less ed25519 key pair in directory: the private key's path (the public key
    is beside it, with .pub)."""
    directory.mkdir(parents=True, exist_ok=True)
    return _keygen(directory / "id_ed25519", "fleet-test-client")


def _free_port(address: str) -> int:
    # The kernel picks a free port; sshd binds it a moment later (SO_REUSEADDR, so restarts too).
    with socket.socket() as s:
        s.bind((address, 0))
        return s.getsockname()[1]


def _processes() -> dict[int, tuple[int, int]]:
    """pid: (parent pid, session id) of every process, from /proc/<pid>/stat (the fields after the
    parenthesised name, which may itself hold spaces and parentheses)."""
    found = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text()
            except OSError:
                continue   # exited meanwhile
            fields = stat[stat.rindex(")") + 2:].split()
            found[int(entry.name)] = (int(fields[1]), int(fields[3]))
    return found


def _exe(pid: int) -> str:
    try:
        return os.path.basename(os.readlink(f"/proc/{pid}/exe")).split(" ")[0]  # "x (deleted)"
    except OSError:
        return ""   # exited, or a zombie


def _gone(pid: int) -> bool:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return True
    return stat[stat.rindex(")") + 2] == "Z"   # dead; whoever reaps it does not matter here


class Sshd:
    """One sshd on address:port, serving root with the key whose public half is client_pub."""

    address = "127.0.0.1"

    def __init__(self, root: Path, name: str, client_pub: Path):
        self.name = name
        self.dir = Path(root) / name
        self.dir.mkdir(parents=True)
        self.port = _free_port(self.address)   # kept by restart(), as a real host keeps its port
        self.log = self.dir / "sshd.log"
        self.pidfile = self.dir / "sshd.pid"
        self.proc: subprocess.Popen | None = None
        host_key = _keygen(self.dir / "host_ed25519", f"fleet-test-{name}")
        self.host_pub = host_key.with_name(host_key.name + ".pub")
        authorized = self.dir / "authorized_keys"
        authorized.write_text(Path(client_pub).read_text())
        self.config = self.dir / "sshd_config"
        self.config.write_text("\n".join([
            f"ListenAddress {self.address}:{self.port}",
            f'HostKey "{host_key}"',
            f'PidFile "{self.pidfile}"',
            f'AuthorizedKeysFile "{authorized}"',   # absolute: not ~root/.ssh/authorized_keys
            "PermitRootLogin prohibit-password",
            "PasswordAuthentication no",
            "KbdInteractiveAuthentication no",
            # No PAM: no /etc/pam.d session modules (loginuid, motd, env) in a container. sshd then
            # refuses a locked account ("!" password); a "*" one, as Debian's root here, logs in.
            "UsePAM no",
            # The test's directories and keys belong to root but may sit under a /tmp that strict
            # mode rejects (group or world writable parents).
            "StrictModes no",
            "UseDNS no",
            "Subsystem sftp internal-sftp",   # Ansible copies files with SFTP
            # Each host a machine of its own: its own salt, so its own host id (the fleet refuses
            # two hosts that report one id, as clones of one machine would).
            f'SetEnv XDG_CONFIG_HOME="{self.dir / "config"}"',
            "LogLevel ERROR",
            "",
        ]))

    def start(self, timeout: float = 10.0) -> Self:
        """Starts sshd in the foreground (-D) logging to self.log (-e), and returns once the port
        greets with an SSH banner; fails with the log's tail if it does not in timeout seconds."""
        if self.proc is not None and self.proc.poll() is None:
            return self
        # The privilege separation directory, which sshd requires and the package's service
        # (never started here) would create.
        Path("/run/sshd").mkdir(mode=0o755, exist_ok=True)
        self.pidfile.unlink(missing_ok=True)
        with open(self.log, "ab") as log:
            # Own session: a Ctrl-C at the test's terminal does not reach it; stop() ends it.
            self.proc = subprocess.Popen([SSHD, "-D", "-e", "-f", str(self.config)],
                                         stdin=subprocess.DEVNULL, stdout=log, stderr=log,
                                         start_new_session=True)
        deadline = time.monotonic() + timeout
        while True:
            # sshd writes its pid file once it has bound the port: the banner is then its own,
            # not another server's on a port taken since __init__ picked it.
            if self.pidfile.exists() and self.pidfile.read_text().strip() == str(self.proc.pid):
                try:
                    with socket.create_connection((self.address, self.port), timeout=1) as s:
                        if s.recv(64).startswith(b"SSH-"):
                            s.sendall(b"SSH-2.0-probe\r\n")   # or sshd logs an error
                            return self
                except OSError:
                    pass
            if self.proc.poll() is not None or time.monotonic() > deadline:
                self.stop()
                tail = self.log.read_text(errors="replace").splitlines()[-20:]
                raise RuntimeError(f"sshd {self.name} did not listen on {self.address}:"
                                   f"{self.port}; {self.log}:\n" + "\n".join(tail))
            time.sleep(0.05)

    def stop(self, commands: bool = False) -> None:
        """Kills the listener and every sshd process it forked for a connection (they call
        setsid, so the listener's process group does not hold them), which cuts each client's
        connection mid-command, as a host going away would. What the sessions run is left alone:
        a command started detached (setsid nohup ... &) keeps running, as on a host whose network
        went away. commands=True also kills the commands of the open sessions (each is the
        leader of a session of its own, which sshd makes), still not the detached ones. Does
        nothing if not running."""
        if self.proc is None:
            return
        if self.proc.poll() is None:
            # Frozen, the listener forks no new connection while its tree is read and killed.
            os.kill(self.proc.pid, signal.SIGSTOP)
            procs = _processes()
            sshds, others, todo = [], [], [self.proc.pid]
            while todo:
                parent = todo.pop()
                for pid, (ppid, sid) in procs.items():
                    if ppid != parent:
                        continue
                    todo.append(pid)
                    if _exe(pid) in SSHD_EXES:
                        sshds.append(pid)
                    elif commands and procs.get(sid, (0,))[0] in sshds:
                        others.append(pid)   # in a session whose leader sshd started
            victims = sshds + others
            for pid in victims:
                try:
                    os.kill(pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
            self.proc.kill()
            self.proc.wait()
            deadline = time.monotonic() + 5
            while not all(map(_gone, victims)) and time.monotonic() < deadline:
                time.sleep(0.02)
        self.proc = None

    def restart(self, timeout: float = 10.0) -> Self:
        """The same host back: same port, host key and client key."""
        self.stop()
        return self.start(timeout)

    def ssh(self, key: Path, known: Path, *command: str) -> list[str]:
        """The OpenSSH client's command line that runs command on this host as root with key,
        checking its host key against known (a file known_hosts() wrote), with nothing from the
        user's or the system's ssh config (~/.ssh/config could rename or redirect 127.0.0.1)."""
        return ["ssh", "-F", "none", "-p", str(self.port), "-i", str(key), "-o", "BatchMode=yes",
                "-o", "IdentitiesOnly=yes", "-o", "StrictHostKeyChecking=yes",
                "-o", f"UserKnownHostsFile={known}", f"root@{self.address}", *command]

    @property
    def known_hosts_line(self) -> str:
        """Its host key as a known_hosts line names it: [address]:port (not port 22), key type and
        key, without the comment."""
        kind, key = self.host_pub.read_text().split()[:2]
        return f"[{self.address}]:{self.port} {kind} {key}"

    def __enter__(self) -> Self:
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()

    def __repr__(self) -> str:
        return f"Sshd({self.name!r}, {self.address}:{self.port})"


def known_hosts(hosts, path: Path) -> Path:
    """A known_hosts file at path holding each host's key: what an inventory's
    UserKnownHostsFile names, so the fleet's connections know these hosts (and the user's
    ~/.ssh is left alone)."""
    Path(path).write_text("".join(h.known_hosts_line + "\n" for h in hosts))
    return Path(path)


@contextmanager
def sshd_hosts(root: Path, n: int) -> Iterator[tuple[list[Sshd], Path]]:
    """n started sshd hosts (host1, host2, ...) under root and the client key that logs in to each
    as root; all are stopped on leaving, whatever happened. For a fixture:

        @pytest.fixture
        def hosts(tmp_path):
            with sshd_hosts(tmp_path, 3) as (hosts, key):
                yield hosts, key
    """
    needs_sshd()
    key = client_key(Path(root) / "client")
    with ExitStack() as stack:
        hosts = []
        for i in range(1, n + 1):
            host = Sshd(root, f"host{i}", key.with_name(key.name + ".pub"))
            stack.callback(host.stop)   # before start(): a half-started host is stopped too
            hosts.append(host.start())
        yield hosts, key
