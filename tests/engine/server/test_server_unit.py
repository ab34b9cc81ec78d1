"""Unit tests for the pure parts of tuninglab.server. No server is started here."""

import os
import re
import shutil
import subprocess

import pytest

from helpers import FIXTURES
from tuninglab.engine.server import mysqld as server
from tuninglab.engine.server.mysqld import Server, ServerBinary
from tuninglab.engine.server.option_names import describe_problem
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
    assert f'datadir="{rundir / "data"}"' in lines
    assert f'socket="{rundir / "mysqld.sock"}"' in lines
    assert srv.socket == rundir / "mysqld.sock"
    assert f'pid-file="{rundir / "mysqld.pid"}"' in lines
    assert f'log-error="{rundir / "error.log"}"' in lines
    assert "skip-networking" in lines
    assert "skip_log_bin" in lines
    assert 'mysqlx="OFF"' in lines
    assert f'secure_file_priv="{rundir}"' in lines  # Debian's default dir is not there
    assert 'innodb_redo_log_capacity="256M"' in lines
    assert not [line for line in lines if line.startswith("innodb_log_file_size")]
    assert 'innodb_doublewrite="OFF"' in lines
    assert ('user="root"' in lines) == (os.geteuid() == 0)
    assert not [line for line in lines if line.startswith(("port", "bind"))]


def test_config_text_mariadb(tmp_path):
    _, lines = config_lines(MARIADB_BINARY, tmp_path, {"innodb_log_file_size": "256M"})
    assert 'innodb_log_file_size="256M"' in lines
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
        assert f'socket="{srv.socket}"' in srv.config_text()
    finally:
        srv.socket.parent.rmdir()


@pytest.mark.parametrize("value, line", [
    ("64M", 'innodb_buffer_pool_size="64M"'),
    ("O_DIRECT", 'innodb_buffer_pool_size="O_DIRECT"'),
    ("a#b c", 'innodb_buffer_pool_size="a#b c"'),            # '#' inside quotes: no comment
    ('say "hi"', 'innodb_buffer_pool_size="say \\"hi\\""'),
    ("C:\\dir\\", 'innodb_buffer_pool_size="C:\\\\dir\\\\"'),  # a backslash doubled
    ("", 'innodb_buffer_pool_size=""'),
])
def test_cnf_line_quotes_every_value(value, line):
    assert server.cnf_line("innodb_buffer_pool_size", value) == line


def test_cnf_line_of_a_flag_is_its_name():
    assert server.cnf_line("skip-networking", None) == "skip-networking"


@pytest.mark.parametrize("value", ["300\nskip_grant_tables = 1\n[mysqld]\nlog_error = /x.log",
                                   "300\r[mysqld]", "a\0b", "\u202eevil", "x\x85y"])
def test_cnf_line_refuses_a_value_that_could_start_a_line(value):
    with pytest.raises(UserError, match="my.cnf: refusing innodb_io_capacity = ") as info:
        server.cnf_line("innodb_io_capacity", value)
    assert "\n" not in str(info.value)


@pytest.mark.parametrize("name", ["innodb io", "x\n[mysqld]", "a=b", "", "#x"])
def test_cnf_line_refuses_a_name_that_is_not_an_option(name):
    with pytest.raises(UserError, match="my.cnf: refusing the option name"):
        server.cnf_line(name, "1")


def test_config_text_has_one_line_per_option_and_one_section(tmp_path):
    srv = Server(MARIADB_BINARY, tmp_path / "run", tmp_path / "run" / "data",
                 {"innodb_io_capacity": "300", "sql_mode": "a#b", "innodb_doublewrite": "OFF"})
    lines = srv.config_text().splitlines()
    assert [line for line in lines if line.startswith("[")] == ["[mysqld]"]
    assert 'sql_mode="a#b"' in lines and 'innodb_io_capacity="300"' in lines


def test_config_text_refuses_an_injected_setting(tmp_path):
    srv = Server(MARIADB_BINARY, tmp_path / "run", tmp_path / "run" / "data",
                 {"innodb_io_capacity": "300\nskip_grant_tables = 1\n[mysqld]"})
    with pytest.raises(UserError, match="my.cnf: refusing innodb_io_capacity"):
        srv.config_text()


# --- log_notes -------------------------------------------------------------------------------

@pytest.mark.parametrize("line, notes", [
    ("2026-11-22  6:03:36 0 [Note] InnoDB: Using io_uring", {"aio": "io_uring"}),
    ("2026-11-22  6:03:36 0 [Note] InnoDB: Using liburing", {"aio": "io_uring"}),
    ("2026-11-22  6:03:36 0 [Note] InnoDB: Using Linux native AIO", {"aio": "libaio"}),
    ("2026-11-22  6:03:36 0 [Note] InnoDB: Initializing buffer pool, total size = 64.000MiB", {}),
])
def test_log_notes_read_the_aio_interface_from_the_error_log(line, notes):
    assert server.log_notes(f"2026-11-22  6:03:35 0 [Note] Starting MariaDB\n{line}\n") == notes


# --- check_settings: the server's word on values, without serving ------------------------------

HELP = (FIXTURES / "mariadb_10.11_verbose_help.txt").read_text()
BAD_VALUES = (FIXTURES / "mariadb_10.11_bad_values_stderr.txt").read_text()


def test_parse_values_reads_the_table_of_values():
    values = server.parse_values(HELP)
    assert values["max_connections"] == "151"
    assert values["innodb_flush_method"] == "O_DIRECT"
    assert set(values) == server.parse_variables(HELP)


@pytest.fixture
def fake_server(tmp_path, monkeypatch):
    """A binary whose --verbose --help answers with captured output; the commands it ran."""
    path = tmp_path / "mariadbd"
    path.write_text("")
    calls, answers = [], {"stderr": "", "returncode": 0}
    binary = ServerBinary(str(path), "mariadb", (10, 11, 19), MARIADB)

    def run(cmd, **kwargs):
        calls.append(cmd)
        return subprocess.CompletedProcess(cmd, answers["returncode"], HELP, answers["stderr"])
    monkeypatch.setattr(server.subprocess, "run", run)
    server._check_settings.cache_clear()
    yield binary, calls, answers
    server._check_settings.cache_clear()


def test_check_settings_runs_help_mode_with_every_setting(fake_server):
    binary, calls, _ = fake_server
    checked = server.check_settings(binary, {"innodb_io_capacity": "400",
                                             "innodb_doublewrite": "OFF"})
    assert checked.problems == () and checked.values["max_connections"] == "151"
    [cmd] = calls
    assert cmd[:2] == [binary.path, "--no-defaults"]
    assert "--innodb_io_capacity=400" in cmd and "--innodb_doublewrite=OFF" in cmd
    assert cmd.index("--verbose") > cmd.index("--innodb_io_capacity=400")
    assert "--help" in cmd


def test_check_settings_is_cached_per_binary_and_settings(fake_server):
    binary, calls, _ = fake_server
    server.check_settings(binary, {"innodb_io_capacity": "400"})
    server.check_settings(binary, {"innodb_io_capacity": "400"})
    assert len(calls) == 1
    server.check_settings(binary, {"innodb_io_capacity": "500"})
    assert len(calls) == 2


def test_check_settings_reports_what_the_server_refuses(fake_server):
    binary, _, answers = fake_server
    answers["stderr"] = BAD_VALUES  # MariaDB exits 0 in help mode even so
    checked = server.check_settings(binary, {"innodb_io_capacity": "banana"})
    assert [p.name for p in checked.problems][:2] == ["skip_grant_tables", "innodb_io_capacity"]
    assert "One of: fsync" in checked.help_text  # kept for the choices of an enum


def test_check_settings_reports_an_exit_it_cannot_read(fake_server):
    binary, _, answers = fake_server
    answers.update(stderr="something odd\nand then this\n", returncode=1)
    [problem] = server.check_settings(binary, {"x": "1"}).problems
    assert problem.name == "" and "exited with 1: something odd | and then this" in problem.why


def test_check_settings_takes_only_values_from_validate_config(fake_server, monkeypatch):
    """MySQL's --validate-config may not know a plugin's options: its unknown options and exit
    code are left to check_known; a value it names is a problem."""
    binary = ServerBinary(fake_server[0].path, "mysql", (8, 0, 36), MYSQL_80)
    answers = {"--help": (0, ""), "--validate-config": (1, (
        "2024-01-01T00:00:00.000000Z 0 [ERROR] [MY-000067] [Server] unknown variable "
        "'mysqlx=OFF'.\n"))}

    def run(cmd, **kwargs):
        code, err = answers[next(a for a in ("--help", "--validate-config") if a in cmd)]
        return subprocess.CompletedProcess(cmd, code, HELP, err)
    monkeypatch.setattr(server.subprocess, "run", run)
    assert server.check_settings(binary, {"innodb_io_capacity": "400"}).problems == ()
    answers["--validate-config"] = (1, (
        "2024-01-01T00:00:00.000000Z 0 [ERROR] [MY-000077] [Server] /usr/sbin/mysqld: Error "
        "while setting value 'lots' to 'max_connections'.\n"))
    [problem] = server.check_settings(binary, {"max_connections": "lots"}).problems
    assert (problem.name, problem.value) == ("max_connections", "lots")


def test_check_settings_of_mysql_also_validates_the_config(fake_server):
    _, calls, _ = fake_server
    binary = ServerBinary(fake_server[0].path, "mysql", (8, 0, 36), MYSQL_80)
    server.check_settings(binary, {"innodb_log_file_size": "256M"})
    assert len(calls) == 2 and "--help" in calls[0] and "--validate-config" in calls[1]
    assert all("--innodb_redo_log_capacity=256M" in c and "--skip_log_bin" in c for c in calls)


# MariaDB 10.11's stderr on innodb_io_capacity=1é, as it wrote it: its first line quotes the
# first byte of "é" alone, which is no UTF-8.
NON_UTF8_STDERR = (
    b"2026-11-25 14:44:06 0 [ERROR] Unknown suffix '\xc3' used for variable "
    b"'innodb-io-capacity' (value '1\xc3\xa9'). Legal suffix characters are: K, M, G, T, P, E\n"
    b"2026-11-25 14:44:06 0 [ERROR] /usr/sbin/mariadbd: Error while setting value '1\xc3\xa9' "
    b"to 'innodb-io-capacity'\n")


def test_a_server_message_that_is_no_utf8_is_read_not_a_crash(tmp_path):
    """A value with a non-ASCII character ("1é") is refused in one line, the broken byte shown
    escaped, never a UnicodeDecodeError (a program run for real: the decoding is subprocess's)."""
    err = tmp_path / "stderr"
    err.write_bytes(NON_UTF8_STDERR)
    fake = tmp_path / "mariadbd"
    fake.write_text(f"#!/bin/sh\ncat '{FIXTURES / 'mariadb_10.11_verbose_help.txt'}'\n"
                    f"cat '{err}' >&2\n")
    fake.chmod(0o755)
    binary = ServerBinary(str(fake), "mariadb", (10, 11, 19), MARIADB)
    server._check_settings.cache_clear()
    try:
        checked = server.check_settings(binary, {"innodb_io_capacity": "1é"})
    finally:
        server._check_settings.cache_clear()
    [problem] = checked.problems
    assert (problem.name, problem.value) == ("innodb_io_capacity", "1é")
    assert "Unknown suffix '\\xc3'" in problem.why
    assert "\n" not in describe_problem(problem, binary.label)
    assert checked.values["max_connections"] == "151"


@pytest.mark.integration
def test_check_settings_with_the_real_server():
    """The installed server, in help mode: bad values refused, good ones kept (no server
    started)."""
    binary = server.find()
    bad = server.check_settings(binary, {"innodb_io_capacity": "banana",
                                         "innodb_flush_method": "bogus"}).problems
    assert {p.name for p in bad} >= {"innodb_io_capacity", "innodb_flush_method"}
    [adjusted] = server.check_settings(binary, {"innodb_purge_threads": "1000"}).problems
    assert adjusted.adjusted_to == "32"
    good = server.check_settings(binary, {"innodb_io_capacity": "400",
                                          "innodb_flush_method": "O_DIRECT",
                                          "innodb_buffer_pool_size": "64M"})
    assert good.problems == () and good.values["innodb_io_capacity"] == "400"


@pytest.mark.integration
def test_config_text_reads_back_as_written_with_the_real_parser(tmp_path):
    """my_print_defaults reads my.cnf as the server does: every value comes back whole."""
    tool = shutil.which("my_print_defaults") or shutil.which("mariadb-print-defaults")
    if not tool:
        pytest.skip("needs my_print_defaults (mariadb-server)")
    values = {"sql_mode": "a#b c", "x1": 'say "hi"', "x2": "C:\\dir\\", "x3": "",
              "innodb_buffer_pool_size": "64M", "x4": "it's", "x5": "  padded  "}
    srv = Server(MARIADB_BINARY, tmp_path / "run #1", tmp_path / "data", values)
    (tmp_path / "my.cnf").write_text(srv.config_text())
    out = subprocess.run([tool, f"--defaults-file={tmp_path / 'my.cnf'}", "mysqld"],
                         capture_output=True, text=True, check=True).stdout
    read = dict(line[2:].partition("=")[::2] for line in out.splitlines())
    assert {k: read[k] for k in values} == values
    assert read["socket"] == str(srv.socket)
