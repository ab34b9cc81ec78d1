"""Reading a server (advise/server_facts.py) without one: its flavour and version from what it
says, the one line each failure gets, and the command line's checks."""

import pymysql
import pytest

from tuninglab import cli
from tuninglab.advise import server_facts
from tuninglab.advise.server_facts import Target
from tuninglab.errors import UserError


def test_flavour_and_version_from_what_the_server_says():
    assert server_facts.flavor_of("10.11.14-MariaDB-0+deb12u2", "Debian 12") == "mariadb"
    assert server_facts.flavor_of("8.4.2-2", "Percona Server (GPL)") == "percona"
    assert server_facts.flavor_of("9.7.4", "(Debian)") == "mysql"
    assert server_facts.version_of("11.8.9-MariaDB-0+deb13u1") == (11, 8, 9)
    with pytest.raises(UserError, match="not major.minor.patch"):
        server_facts.version_of("trunk")


@pytest.mark.parametrize("code, words", [
    (1045, "login refused at socket /s: Access denied"),
    (1227, "lacks a privilege advise needs"),
    (2003, "cannot reach the server at socket /s"),
    (1064, "answered with an error"),
])
def test_each_failure_is_one_line_naming_where(code, words):
    exc = pymysql.err.OperationalError(code, "Access denied for user 'x'\x1b[2J\nerror: forged")
    message = str(server_facts.explain(exc, Target(socket="/s")))
    assert words in message and "\n" not in message and "\x1b" not in message
    assert message.count("x'\\x1b[2J\\nerror: forged") == 1


def test_a_missing_socket_or_option_file_is_named(tmp_path):
    with pytest.raises(UserError, match=r"--socket .*/nope.sock: no such socket"):
        server_facts.read(Target(socket=str(tmp_path / "nope.sock")))
    with pytest.raises(UserError, match=r"--defaults-file .*my.cnf: no such file"):
        server_facts.read(Target(socket="/s", defaults_file=str(tmp_path / "my.cnf")))


def test_the_password_comes_from_the_environment_never_the_command_line(monkeypatch):
    monkeypatch.setenv("MYSQL_PWD", "secret")
    options = server_facts._options(Target(host="db1", port=3307, user="advisor"), 5)
    assert (options["host"], options["port"], options["user"], options["password"]) == \
        ("db1", 3307, "advisor", b"secret")  # bytes: sent as they are


def test_a_remote_target_is_not_local():
    assert Target(socket="/run/mysqld/mysqld.sock").local
    assert Target(host="127.0.0.1").local and not Target(host="db1").local


@pytest.mark.parametrize("kwargs, words", [
    ({}, "name the server with --socket PATH or with --host NAME"),
    ({"socket": "/s", "host": "h"}, "name the server with --socket PATH or with --host NAME"),
    ({"socket": "/s", "json": True, "markdown": True}, "choose one"),
])
def test_the_command_line_is_checked_before_connecting(kwargs, words):
    with pytest.raises(UserError, match=words):
        cli.advise(**kwargs)


@pytest.mark.parametrize("port", ["abc", "١٠", "３３０６", "0", "65536", "-1", "+80", " 80",
                                  "80 ", "1e3", "0x50", "", "99999999999999999999"])
def test_a_port_that_is_not_a_tcp_port_in_ascii_digits_is_refused(port):
    with pytest.raises(UserError) as info:
        cli.advise(host="h", port=port)
    assert str(info.value) == f"--port: expected a TCP port number 1-65535, got {port!r}"


def test_a_port_in_digits_or_as_a_number_is_taken():
    assert server_facts.port_number("3306") == server_facts.port_number(3306) == 3306
    assert server_facts.port_number("65535") == 65535 and server_facts.port_number(1) == 1
