"""Unit tests for the pure parts of tuninglab.server. No server is started here."""

import os
import re

import pytest

from helpers import FIXTURES
from tuninglab.engine import server
from tuninglab.engine.server import Server, ServerBinary
from tuninglab.errors import UserError

MARIADB = "mariadbd  Ver 10.11.19-MariaDB-0+deb12u1 for debian-linux-gnu on x86_64 (Debian 12)"
MYSQL_80 = "/usr/sbin/mysqld  Ver 8.0.36 for Linux on x86_64 (MySQL Community Server - GPL)"
MYSQL_84 = "/usr/sbin/mysqld  Ver 8.4.3 for Linux on x86_64 (MySQL Community Server - GPL)"
PERCONA = ("/usr/sbin/mysqld  Ver 8.0.36-28 for Linux on x86_64 (Percona Server (GPL), "
           "Release '28', Revision '47601f19$')")


# --- parse_version ------------------------------------------------------------------------------

@pytest.mark.parametrize("line,expected", [
    (MARIADB, ("mariadb", (10, 11, 19))),
    (MYSQL_80, ("mysql", (8, 0, 36))),
    (MYSQL_84, ("mysql", (8, 4, 3))),
    (PERCONA, ("percona", (8, 0, 36))),
    ("/usr/sbin/mysqld  Ver 5.7.44 for Linux on x86_64 (MySQL Community Server (GPL))",
     ("mysql", (5, 7, 44))),
    (MARIADB + "\n", ("mariadb", (10, 11, 19))),
], ids=["mariadb-10.11", "mysql-8.0", "mysql-8.4", "percona-8.0", "mysql-5.7", "newline"])
def test_parse_version(line, expected):
    assert server.parse_version(line) == expected


@pytest.mark.parametrize("text", ["", "hello world", "mysqld: command not found",
                                  "Ver x.y.z", "mysqld Version 8.0.36"])
def test_parse_version_garbage(text):
    with pytest.raises(ValueError, match="not a mysqld --version line"):
        server.parse_version(text)


# --- parse_variables ----------------------------------------------------------------------------

@pytest.fixture(scope="module")
def mariadb_variables():
    return server.parse_variables((FIXTURES / "mariadb_10.11_verbose_help.txt").read_text())


@pytest.mark.parametrize("name", ["innodb_doublewrite", "innodb_flush_method",
                                  "innodb_log_file_size", "innodb_flush_log_at_trx_commit",
                                  "innodb_purge_threads", "innodb_buffer_pool_size", "datadir"])
def test_parse_variables_finds_options(mariadb_variables, name):
    assert name in mariadb_variables


@pytest.mark.parametrize("name", ["innodb_foo", "innodb_redo_log_capacity", "Variables", "and",
                                  "-------------------------------------------------------------"])
def test_parse_variables_leaves_out_unknown_and_headings(mariadb_variables, name):
    assert name not in mariadb_variables


def test_parse_variables_has_no_dashes(mariadb_variables):
    assert mariadb_variables
    assert not [n for n in mariadb_variables if "-" in n]


def test_parse_variables_reads_only_the_table():
    text = ("Usage: mariadbd [OPTIONS]\n"
            "innodb-before-table  Some description\n"
            "  --innodb-doublewrite  Enable\n"
            "\n"
            "Variables (--variable-name=value)\n"
            "and boolean options {FALSE|TRUE}  Value (after reading options)\n"
            "--------------------------------- -------------\n"
            "innodb-doublewrite                TRUE\n"
            "innodb-log-file-size              100663296\n"
            "  continued line\n")
    assert server.parse_variables(text) == {"innodb_doublewrite", "innodb_log_file_size"}


def test_parse_variables_without_a_table():
    assert server.parse_variables("mariadbd: unknown option '--foo'\n") == frozenset()


def test_parse_variables_stops_at_the_end_of_the_table(mariadb_variables):
    assert "To" not in mariadb_variables
    assert "'SELECT" not in mariadb_variables
    assert all(re.fullmatch(r"\w+", n) for n in mariadb_variables)


# --- explain_start_failure ----------------------------------------------------------------------

LOG_HEAD = ("2026-11-21 23:24:43 0 [Note] Starting MariaDB 10.11.19-MariaDB-0+deb12u1 "
            "source revision  as process 4242\n"
            "2026-11-21 23:24:43 0 [Note] InnoDB: Using transactional memory\n")


def test_explain_unknown_variable_mariadb():
    log = LOG_HEAD + ("2026-11-21 23:24:43 0 [ERROR] mariadbd: unknown variable "
                      "'innodb_foo_bar=1'\n2026-11-21 23:24:43 0 [ERROR] Aborting\n")
    message = server.explain_start_failure(log, "MariaDB 10.11.19", "/run/x/error.log")
    first = message.splitlines()[0]
    assert first.startswith("MariaDB 10.11.19 refused to start: ")
    assert "does not know the option 'innodb_foo_bar'" in first
    assert first.endswith("the end of /run/x/error.log:")
    assert message.endswith("[ERROR] Aborting")


def test_explain_bad_value_mariadb():
    log = LOG_HEAD + ("2026-11-21 23:24:47 0 [ERROR] mariadbd: Error while setting value "
                      "'bogus' to 'innodb-flush-method'\n")
    message = server.explain_start_failure(log, "MariaDB 10.11.19", "error.log")
    assert "the value 'bogus' is not valid for innodb_flush_method" in message
    assert "does not know" not in message


def test_explain_unknown_variable_mysql_8():
    log = ("2024-01-01T00:00:00.000000Z 0 [System] [MY-010116] [Server] /usr/sbin/mysqld "
           "(mysqld 8.4.3) starting as process 1\n"
           "2024-01-01T00:00:00.000000Z 0 [ERROR] [MY-000067] [Server] unknown variable "
           "'innodb_foo=1'.\n"
           "2024-01-01T00:00:00.000000Z 0 [ERROR] [MY-010119] [Server] Aborting\n")
    message = server.explain_start_failure(log, "MySQL 8.4.3", "error.log")
    assert "MySQL 8.4.3 refused to start: it does not know the option 'innodb_foo'" in message
    assert "innodb_foo=1" in message  # the tail of the log follows


def test_explain_unknown_option_with_dashes():
    log = "2026-11-21 23:24:43 0 [ERROR] mariadbd: unknown option '--innodb-foo-bar'\n"
    message = server.explain_start_failure(log, "MariaDB 10.11.19", "error.log")
    assert "does not know the option 'innodb_foo_bar'" in message


def test_explain_unrelated_failure_gives_the_tail():
    lines = [f"2026-11-21 23:24:{i:02d} 0 [Note] line {i}" for i in range(30)]
    lines.append("2026-11-21 23:24:59 0 [ERROR] InnoDB: Cannot allocate memory")
    message = server.explain_start_failure("\n".join(lines) + "\n\n", "MariaDB 10.11.19",
                                           "error.log")
    head, *tail = message.splitlines()
    assert head == "MariaDB 10.11.19 exited during start-up; the end of error.log:"
    assert len(tail) == 15
    assert tail[-1].endswith("Cannot allocate memory")
    assert tail[0].endswith("line 16")
    assert "line 15" not in message


def test_explain_empty_log():
    message = server.explain_start_failure("", "MariaDB 10.11.19", "error.log")
    assert message.startswith("MariaDB 10.11.19 exited during start-up")


# --- find(): error cases only -------------------------------------------------------------------

def test_find_nonexistent_path(tmp_path):
    missing = tmp_path / "no" / "mysqld"
    with pytest.raises(UserError, match="no such file") as info:
        server.find(str(missing))
    assert str(missing) in str(info.value)


def test_find_non_executable_file(tmp_path):
    fake = tmp_path / "mysqld"
    fake.write_text("#!/bin/sh\necho 'mysqld  Ver 8.0.36 for Linux'\n")
    fake.chmod(0o644)
    with pytest.raises(UserError, match="not an executable file") as info:
        server.find(str(fake))
    assert str(fake) in str(info.value)


def test_find_directory(tmp_path):
    with pytest.raises(UserError, match="not an executable file"):
        server.find(str(tmp_path))


# --- ServerBinary and Server.config_text --------------------------------------------------------

MYSQL_BINARY = ServerBinary("/usr/sbin/mysqld", "mysql", (8, 4, 3), MYSQL_84)
MARIADB_BINARY = ServerBinary("/usr/sbin/mariadbd", "mariadb", (10, 11, 19), MARIADB)


def test_binary_label_and_describe():
    assert MYSQL_BINARY.label == "MySQL 8.4.3"
    assert MARIADB_BINARY.label == "MariaDB 10.11.19"
    assert ServerBinary("/x", "percona", (8, 0, 36), PERCONA).label == "Percona Server 8.0.36"
    assert MYSQL_BINARY.describe() == {"flavor": "mysql", "version": "8.4.3",
                                       "version_text": MYSQL_84, "path": "/usr/sbin/mysqld"}


def config_lines(binary, tmp_path, settings):
    rundir = tmp_path / "run"
    srv = Server(binary, rundir, rundir / "data", settings)
    assert srv.process is None  # constructing does not start anything
    assert not rundir.exists()
    return srv, srv.config_text().splitlines()


def test_config_text_mysql_8_4(tmp_path):
    srv, lines = config_lines(MYSQL_BINARY, tmp_path, {"innodb_log_file_size": "256M",
                                                       "innodb_doublewrite": "OFF"})
    rundir = tmp_path / "run"
    assert lines[0] == "[mysqld]"
    assert f"datadir={rundir / 'data'}" in lines
    assert f"socket={rundir / 'mysqld.sock'}" in lines
    assert srv.socket == rundir / "mysqld.sock"
    assert f"pid-file={rundir / 'mysqld.pid'}" in lines
    assert f"log-error={rundir / 'error.log'}" in lines
    assert "skip-networking" in lines
    assert "skip_log_bin" in lines
    assert "mysqlx=OFF" in lines
    assert "innodb_redo_log_capacity=256M" in lines
    assert not [line for line in lines if line.startswith("innodb_log_file_size")]
    assert "innodb_doublewrite=OFF" in lines
    assert ("user=root" in lines) == (os.geteuid() == 0)
    assert not [line for line in lines if line.startswith(("port", "bind"))]


def test_config_text_mariadb(tmp_path):
    _, lines = config_lines(MARIADB_BINARY, tmp_path, {"innodb_log_file_size": "256M"})
    assert "innodb_log_file_size=256M" in lines
    assert "skip-networking" in lines
    assert not [line for line in lines if line.startswith(("skip_log_bin", "mysqlx",
                                                           "innodb_redo_log_capacity"))]


def test_config_text_ends_with_a_newline(tmp_path):
    srv = Server(MARIADB_BINARY, tmp_path / "run", tmp_path / "data", {})
    assert srv.config_text().endswith("\n")


def test_long_run_dir_moves_the_socket(tmp_path):
    rundir = tmp_path / ("d" * 120)
    srv = Server(MARIADB_BINARY, rundir, rundir / "data", {})
    try:
        assert len(str(srv.socket)) < len(str(rundir / "mysqld.sock"))
        assert srv.socket.parent != rundir
        assert srv.socket.name == "mysqld.sock"
        assert f"socket={srv.socket}" in srv.config_text()
    finally:
        srv.socket.parent.rmdir()


# --- log_notes -------------------------------------------------------------------------------

@pytest.mark.parametrize("line, notes", [
    ("2026-11-22  6:03:36 0 [Note] InnoDB: Using io_uring", {"aio": "io_uring"}),
    ("2026-11-22  6:03:36 0 [Note] InnoDB: Using liburing", {"aio": "io_uring"}),
    ("2026-11-22  6:03:36 0 [Note] InnoDB: Using Linux native AIO", {"aio": "libaio"}),
    ("2026-11-22  6:03:36 0 [Note] InnoDB: Initializing buffer pool, total size = 64.000MiB", {}),
])
def test_log_notes_read_the_aio_interface_from_the_error_log(line, notes):
    assert server.log_notes(f"2026-11-22  6:03:35 0 [Note] Starting MariaDB\n{line}\n") == notes
