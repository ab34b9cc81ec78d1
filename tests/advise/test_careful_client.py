"""advise's connection (advise/client.py) against a fake server (fake_mysql.py) that does what
a hostile or broken one may: the real PyMySQL client, and each case ends in one clear line (no
traceback), without a file or a cleartext password handed over, within the deadline."""

import shutil
import tempfile
import time
from pathlib import Path

import pytest

from fake_mysql import FakeServer, error, lenenc, result, standard
from tuninglab.advise import server_facts
from tuninglab.advise.server_facts import Target
from tuninglab.errors import UserError

PASSWORD = "s3cret-pw"


def on(server, **kwargs) -> Target:
    return Target(host="127.0.0.1", port=server.port, user="advisor", **kwargs)


def refused(target: Target, **kwargs) -> str:
    with pytest.raises(UserError) as info:
        server_facts.read(target, **kwargs)
    message = str(info.value)
    assert "\n" not in message and "\x1b" not in message
    return message


def answering(query: str, payloads: list[bytes]):
    """A server that answers query with payloads and everything else as a healthy one."""
    return lambda sql: payloads if sql.startswith(query) else standard(sql)


@pytest.fixture
def short_dir():
    """A directory for a Unix socket: its path must stay under 108 bytes."""
    path = Path(tempfile.mkdtemp(prefix="fake-mysql-", dir="/tmp"))
    yield path
    shutil.rmtree(path, ignore_errors=True)


def test_a_healthy_fake_server_is_read():
    with FakeServer() as server:
        facts = server_facts.read(on(server))
    assert (facts.flavor, facts.version) == ("mariadb", (10, 11, 14))
    assert facts.variables["innodb_flush_log_at_trx_commit"] == "1"


def test_a_load_data_local_request_is_refused_in_one_line_and_no_file_is_sent():
    with FakeServer(answer=answering("SHOW GLOBAL VARIABLES", [b"\xfb/etc/passwd"])) as server:
        message = refused(on(server))
    assert "asked for a file of this machine (LOAD DATA LOCAL)" in message
    handshake_flags = int.from_bytes(server.received[0][:4], "little")
    assert not handshake_flags & 0x80  # CLIENT_LOCAL_FILES: advise says it sends no file
    assert b"root:" not in server.sent()


@pytest.mark.parametrize("plugin, data", [(b"mysql_clear_password", b""),
                                          (b"dialog", b"\x04Password: ")])
def test_a_switch_to_a_cleartext_plugin_over_tcp_is_refused_before_the_password_goes(
        monkeypatch, plugin, data):
    monkeypatch.setenv("MYSQL_PWD", PASSWORD)
    with FakeServer(auth_switch=(plugin, data)) as server:
        message = refused(on(server))
    assert f"asked for the password in clear text (the {plugin.decode()}" in message
    assert "--socket" in message and "TLS" in message
    assert PASSWORD.encode() not in server.sent()


def test_over_a_unix_socket_the_cleartext_plugin_may_have_the_password(monkeypatch, short_dir):
    monkeypatch.setenv("MYSQL_PWD", PASSWORD)
    with FakeServer(auth_switch=(b"mysql_clear_password", b""),
                    unix=short_dir / "s.sock") as server:
        server_facts.read(Target(socket=server.path, user="advisor"))
    assert PASSWORD.encode() + b"\0" in server.received


def test_a_trickling_server_meets_the_deadline_for_the_whole_session():
    """A byte every 0.2 s never trips the 30 s read timeout: the deadline holds anyway."""
    start = time.monotonic()
    with FakeServer(trickle=0.2) as server:
        message = refused(on(server), deadline=1.5)
    assert time.monotonic() - start < 4
    assert "did not finish answering within 1.5 s" in message
    assert server_facts.DEADLINE == 60


def test_a_huge_value_is_refused_from_its_packet_header_without_reading_it():
    huge = result({"version": "10.11.14-MariaDB", "init_connect": "x" * (5 * 2**20)})
    start = time.monotonic()
    with FakeServer(answer=answering("SHOW GLOBAL VARIABLES", huge)) as server:
        message = refused(on(server))
    assert time.monotonic() - start < 5
    assert "sent more than 4 MiB: advise reads at most that much" in message


def test_escape_codes_and_line_breaks_in_the_servers_error_are_shown_not_obeyed():
    forged = error(1064, "bad\x1b[2J\r\nerror: all is well")
    with FakeServer(answer=answering("SHOW GLOBAL VARIABLES", [forged])) as server:
        message = refused(on(server))
    assert message.endswith("answered with an error: bad\\x1b[2J\\r\\nerror: all is well")


def test_a_value_that_is_not_utf8_is_one_line_not_a_traceback():
    rows = result({"version": "10.11.14-MariaDB"})
    rows[-2] = lenenc(b"version") + lenenc(b"10.11.14-\xff\xfe")
    with FakeServer(answer=answering("SHOW GLOBAL VARIABLES", rows)) as server:
        message = refused(on(server))
    assert "sent what advise cannot read as the MySQL protocol" in message


def test_a_password_outside_latin_1_is_sent_as_its_utf8_bytes(monkeypatch):
    """PyMySQL encodes a str password as Latin-1: 'пароль' ended in a traceback."""
    monkeypatch.setenv("MYSQL_PWD", "пароль")
    with FakeServer() as server:
        assert server_facts.read(on(server)).flavor == "mariadb"
    assert server_facts._options(Target(host="h"), 5)["password"] == "пароль".encode()
