"""The fleet's SSH against real throwaway sshd's on the loopback (tests/fleet/sshd.py), no recipe
and no server run: a host key is checked as OpenSSH checks it (unknown and changed keys refused,
a key from the inventory's known_hosts or ~/.ssh/known_hosts accepted); a result file is asked
its size and kind over SFTP before a byte of it is read; and remote output reaches this side with
its control characters shown."""

import os
import threading
import time

import pytest

from fleet.sshd import known_hosts, sshd_hosts
from tuninglab.contrib import check
from tuninglab.fleet import remote
from tuninglab.fleet.inventory import Host
from tuninglab.fleet.remote import HostError

pytestmark = pytest.mark.integration


@pytest.fixture
def home(tmp_path, monkeypatch):
    """A HOME of the test's own: no ~/.ssh/known_hosts or config of the user's gets in, and a
    test sees whether the fleet writes one."""
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    (tmp_path / "home").mkdir()
    return tmp_path / "home"


@pytest.fixture
def servers(tmp_path, home):
    with sshd_hosts(tmp_path / "sshd", 2) as (hosts, key):
        yield hosts, key


def _host(server, key, known=None) -> Host:
    return Host(server.name, server.address, "root", server.port, str(key),
                known_hosts=str(known) if known else None)


def test_an_unknown_host_key_is_refused_with_how_to_add_it(servers, home):
    (server, _), key = servers
    with pytest.raises(HostError) as info:
        remote.connect(_host(server, key))
    message = str(info.value)
    assert message.startswith(f"unknown host key for [127.0.0.1]:{server.port}: it offers "
                              "ssh-ed25519 SHA256:") and "\n" not in message
    assert f"ssh-keyscan -p {server.port} 127.0.0.1 >> ~/.ssh/known_hosts" in message
    assert not (home / ".ssh").exists()   # nothing learnt, nothing written


def test_a_host_key_known_to_the_inventorys_file_or_the_users_is_accepted(servers, tmp_path,
                                                                          home):
    (one, two), key = servers
    known = known_hosts([one], tmp_path / "known_hosts")
    conn = remote.connect(_host(one, key, known))
    try:
        assert conn.run("echo hi", hide=True, in_stream=False).stdout == "hi\n"
    finally:
        conn.close()
    (home / ".ssh").mkdir()
    known_hosts([two], home / ".ssh" / "known_hosts")   # as ssh-keyscan >> would add it
    with remote.opened(_host(two, key), "f" * 40) as r:
        assert r.sh("echo there", check=True).stdout == "there\n"


def test_a_changed_host_key_is_refused_loudly(servers, tmp_path):
    (one, two), key = servers
    # one's name with two's key: what a reinstalled host, or one in the middle, looks like
    impostor = two.known_hosts_line.replace(f":{two.port} ", f":{one.port} ")
    (tmp_path / "known_hosts").write_text(impostor + "\n")
    threads = threading.active_count()
    with pytest.raises(HostError) as info:
        remote.connect(_host(one, key, tmp_path / "known_hosts"))
    deadline = time.monotonic() + 5   # the refused session's transport ends, not left open
    while threading.active_count() > threads and time.monotonic() < deadline:
        time.sleep(0.05)
    assert threading.active_count() == threads
    message = str(info.value)
    assert message.startswith(f"HOST KEY CHANGED for [127.0.0.1]:{one.port}: it offers "
                              "ssh-ed25519 SHA256:") and "\n" not in message
    assert "Someone may be intercepting the connection" in message


def test_a_result_file_is_asked_its_size_and_kind_before_it_is_read(servers, tmp_path):
    (server, _), key = servers
    known = known_hosts([server], tmp_path / "known_hosts")
    big = server.dir / "big.json"
    with open(big, "wb") as f:
        f.truncate(2 << 30)   # 2 GB, sparse: nothing of it is written, nor may be read
    small = server.dir / "small.json"
    small.write_text('{"a": 1}\n')
    with remote.opened(_host(server, key, known), "f" * 40) as r:
        with pytest.raises(HostError, match="big.json: 2,147,483,648 bytes; expected a result "
                                            "file of at most 20,000,000"):
            r.fetch(str(big), tmp_path / "big.json", check.MAX_BYTES)
        with pytest.raises(HostError, match="/dev/zero: not a regular file"):
            r.fetch("/dev/zero", tmp_path / "zero.json", check.MAX_BYTES)
        fifo = server.dir / "fifo.json"
        os.mkfifo(fifo)   # opening it there would wait for a writer: it is never opened
        with pytest.raises(HostError, match="fifo.json: not a regular file"):
            r.fetch(str(fifo), tmp_path / "fifo.json", check.MAX_BYTES)
        assert r.fetch(str(small), tmp_path / "small.json", 100).read_text() == '{"a": 1}\n'
    assert not (tmp_path / "big.json").exists() and not (tmp_path / "zero.json").exists()


def test_remote_output_reaches_here_with_its_control_characters_shown(servers, tmp_path):
    (server, _), key = servers
    known = known_hosts([server], tmp_path / "known_hosts")
    got = []
    with remote.opened(_host(server, key, known), "f" * 40) as r:
        r.sh(r"printf '[1/2] \033[2J\033]0;owned\007done\n'", on_line=got.append)
    assert got == ["[1/2] \\x1b[2J\\x1b]0;owned\\x07done"]
