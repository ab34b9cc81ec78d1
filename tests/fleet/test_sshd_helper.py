"""The throwaway sshd hosts of fleet/sshd.py do what the fleet tests rely on: Fabric runs, puts and
gets as root; hosts run side by side; stop() cuts a command mid-run but spares what it detached;
restart() brings the same host back; nothing is written to the user's ~/.ssh."""

import os
import threading
import time

import pytest
from invoke.exceptions import UnexpectedExit

from fleet.sshd import sshd_hosts

fabric = pytest.importorskip("fabric")

pytestmark = pytest.mark.integration


@pytest.fixture
def home(tmp_path, monkeypatch):
    """A HOME of the test's own: paramiko and Fabric read ~/.ssh there, so the test sees whether
    they write anything (a known_hosts) and no ~/.ssh/config of the user's gets in the way."""
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    (tmp_path / "home").mkdir()
    yield tmp_path / "home"
    assert not (tmp_path / "home" / ".ssh").exists()


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def _wait_for(condition, timeout=10.0):
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.02)


def test_fabric_runs_puts_and_gets(tmp_path, home):
    with sshd_hosts(tmp_path, 1) as ([host], key):
        # A plain Connection: Fabric alone accepts the unknown host key (AutoAddPolicy) in
        # memory only, with no prompt and no known_hosts file (see `home`). The fleet's own
        # connections check it (test_fleet_hostkeys.py; sshd.known_hosts gives them the keys).
        c = fabric.Connection(host=host.address, port=host.port, user="root",
                              connect_kwargs={"key_filename": str(key), "look_for_keys": False,
                                              "allow_agent": False})
        with c:
            assert c.run("echo hi", hide=True, in_stream=False).stdout == "hi\n"
            local = tmp_path / "local.txt"
            local.write_text("payload\n")
            c.put(str(local), remote=str(host.dir / "remote.txt"))
            assert (host.dir / "remote.txt").read_text() == "payload\n"
            c.get(str(host.dir / "remote.txt"), local=str(tmp_path / "back.txt"))
            assert (tmp_path / "back.txt").read_text() == "payload\n"


def test_hosts_run_at_once_on_their_own_ports(tmp_path, home):
    with sshd_hosts(tmp_path, 2) as (hosts, key):
        assert len({h.port for h in hosts}) == 2
        group = fabric.ThreadingGroup.from_connections([h.connection(key) for h in hosts])
        started = time.monotonic()
        results = group.run("sleep 1; echo $SSH_CONNECTION", hide=True, in_stream=False)
        assert time.monotonic() - started < 1.9   # side by side, not one after the other
        for c, result in results.items():
            assert result.stdout.split()[-1] == str(c.port)   # the server port it reached
        group.close()


@pytest.mark.parametrize("commands", [False, True])
def test_stop_cuts_the_session_spares_the_detached_and_restart_comes_back(tmp_path, home,
                                                                         commands):
    fg, bg = tmp_path / "fg.pid", tmp_path / "bg.pid"
    # Both write their pid then become the sleep (exec), so the pid is the sleep's.
    command = (f"setsid nohup sh -c 'echo $$ > {bg}; exec sleep 30' >/dev/null 2>&1 </dev/null &"
               f" echo $$ > {fg}; exec sleep 30")
    pids = []
    try:
        with sshd_hosts(tmp_path, 1) as ([host], key):
            c = host.connection(key)
            c.open()
            host_key = c.transport.get_remote_server_key()
            outcome = {}

            def run():
                try:
                    outcome["result"] = c.run(command, hide=True, in_stream=False)
                except Exception as e:   # noqa: BLE001 - the assertion below says which
                    outcome["error"] = e

            thread = threading.Thread(target=run)
            thread.start()
            _wait_for(lambda: fg.exists() and bg.exists() and fg.read_text() and bg.read_text())
            pids = [int(fg.read_text()), int(bg.read_text())]
            started = time.monotonic()
            host.stop(commands=commands)
            thread.join(10)
            assert not thread.is_alive()
            assert time.monotonic() - started < 5, "the client waited for the command"
            # Fabric reports the cut channel as a command that never sent its exit status (-1),
            # not as a connection error: UnexpectedExit, or exited == -1 with warn=True.
            error = outcome.get("error")
            assert isinstance(error, UnexpectedExit) and error.result.exited == -1, outcome
            assert not c.is_connected
            assert _alive(pids[1]), "stop() killed the detached process"
            assert _alive(pids[0]) is not commands
            host.stop()   # idempotent

            host.restart()
            with host.connection(key) as again:
                assert again.run("echo back", hide=True, in_stream=False).stdout == "back\n"
                assert again.transport.get_remote_server_key() == host_key
            c.close()
    finally:
        for pid in pids:
            if _alive(pid):
                os.kill(pid, 9)
