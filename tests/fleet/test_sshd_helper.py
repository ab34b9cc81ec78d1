"""The throwaway sshd hosts of fleet/sshd.py do what the fleet tests rely on: OpenSSH's client
runs commands and copies files as root, checking the host key; hosts run side by side; stop()
cuts a command mid-run but spares what it detached; restart() brings the same host back, with
the same host key; nothing is written to the user's ~/.ssh."""

import os
import subprocess
import time

import pytest

from fleet.sshd import known_hosts, sshd_hosts

pytestmark = pytest.mark.integration


@pytest.fixture
def home(tmp_path, monkeypatch):
    """A HOME of the test's own: the ssh client would write ~/.ssh there, so the test sees
    whether anything is written (a known_hosts)."""
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


def test_ssh_runs_copies_and_checks_the_host_key(tmp_path, home):
    with sshd_hosts(tmp_path, 1) as ([host], key):
        known = known_hosts([host], tmp_path / "known_hosts")
        run = subprocess.run(host.ssh(key, known, "echo hi"), capture_output=True, text=True)
        assert run.stdout == "hi\n"
        subprocess.run(host.ssh(key, known, f"cat > {host.dir / 'remote.txt'}"),
                       input="payload\n", text=True, check=True)
        assert (host.dir / "remote.txt").read_text() == "payload\n"
        (tmp_path / "empty").write_text("")
        refused = subprocess.run(host.ssh(key, tmp_path / "empty", "true"),
                                 capture_output=True, text=True)
        assert refused.returncode == 255 and "Host key verification failed" in refused.stderr


def test_hosts_run_at_once_on_their_own_ports(tmp_path, home):
    with sshd_hosts(tmp_path, 2) as (hosts, key):
        known = known_hosts(hosts, tmp_path / "known_hosts")
        assert len({h.port for h in hosts}) == 2
        started = time.monotonic()
        procs = [subprocess.Popen(h.ssh(key, known, "sleep 1; echo $SSH_CONNECTION"),
                                  stdout=subprocess.PIPE, text=True) for h in hosts]
        outs = [p.communicate(timeout=10)[0] for p in procs]
        assert time.monotonic() - started < 1.9   # side by side, not one after the other
        for h, out in zip(hosts, outs):
            assert out.split()[-1] == str(h.port)   # the server port it reached


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
            known = known_hosts([host], tmp_path / "known_hosts")
            client = subprocess.Popen(host.ssh(key, known, command), stdin=subprocess.DEVNULL,
                                      stderr=subprocess.PIPE, text=True)
            _wait_for(lambda: fg.exists() and bg.exists() and fg.read_text() and bg.read_text())
            pids = [int(fg.read_text()), int(bg.read_text())]
            started = time.monotonic()
            host.stop(commands=commands)
            assert client.wait(10) == 255   # the connection was cut, as a host going away
            assert time.monotonic() - started < 5, "the client waited for the command"
            assert _alive(pids[1]), "stop() killed the detached process"
            assert _alive(pids[0]) is not commands
            host.stop()   # idempotent

            host.restart()   # the same host key: the known_hosts file still holds it
            again = subprocess.run(host.ssh(key, known, "echo back"), capture_output=True,
                                   text=True)
            assert again.stdout == "back\n"
    finally:
        for pid in pids:
            if _alive(pid):
                os.kill(pid, 9)
