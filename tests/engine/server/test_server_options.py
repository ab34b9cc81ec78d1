"""Unit tests for tuninglab.options: one recipe spelling mapped to each server's options."""

import pytest

from helpers import FIXTURES
from tuninglab.engine.server import option_names as server_options
from tuninglab.errors import UserError
from tuninglab.recipes.server_names import map_settings

MARIADB_10_11 = ("mariadb", (10, 11, 19))
MYSQL_8_0_30 = ("mysql", (8, 0, 30))
MYSQL_8_4 = ("mysql", (8, 4, 3))
PERCONA_8_0_36 = ("percona", (8, 0, 36))
MYSQL_8_0_29 = ("mysql", (8, 0, 29))
MYSQL_5_7 = ("mysql", (5, 7, 44))

COMMON = {"innodb_doublewrite": "OFF", "innodb_flush_log_at_trx_commit": "1",
          "innodb_buffer_pool_size": "64M"}


# --- map_settings -------------------------------------------------------------------------------

def test_mariadb_keeps_settings_unchanged():
    settings = {**COMMON, "innodb_log_file_size": "256M", "innodb_flush_method": "O_DIRECT"}
    assert map_settings(settings, *MARIADB_10_11) == settings


def test_mariadb_takes_redo_capacity_as_log_file_size():
    mapped = map_settings({**COMMON, "innodb_redo_log_capacity": "1G"}, *MARIADB_10_11)
    assert mapped == {**COMMON, "innodb_log_file_size": "1G"}


@pytest.mark.parametrize("server", [MYSQL_8_0_30, MYSQL_8_4, PERCONA_8_0_36],
                         ids=["mysql-8.0.30", "mysql-8.4.3", "percona-8.0.36"])
def test_new_mysql_takes_log_file_size_as_redo_capacity(server):
    mapped = map_settings({**COMMON, "innodb_log_file_size": "256M"}, *server)
    assert mapped == {**COMMON, "innodb_redo_log_capacity": "256M"}
    assert "innodb_log_file_size" not in mapped


@pytest.mark.parametrize("server", [MYSQL_8_0_30, MYSQL_8_4, PERCONA_8_0_36],
                         ids=["mysql-8.0.30", "mysql-8.4.3", "percona-8.0.36"])
def test_new_mysql_keeps_redo_capacity(server):
    assert map_settings({"innodb_redo_log_capacity": "1G"}, *server) == \
        {"innodb_redo_log_capacity": "1G"}


@pytest.mark.parametrize("server", [MYSQL_8_0_29, MYSQL_5_7], ids=["mysql-8.0.29", "mysql-5.7"])
def test_old_mysql_splits_redo_capacity_over_two_files(server):
    mapped = map_settings({**COMMON, "innodb_redo_log_capacity": "1G"}, *server)
    assert mapped == {**COMMON, "innodb_log_file_size": "536870912",
                      "innodb_log_files_in_group": "2"}


@pytest.mark.parametrize("server", [MYSQL_8_0_29, MYSQL_5_7], ids=["mysql-8.0.29", "mysql-5.7"])
def test_old_mysql_keeps_log_file_size(server):
    assert map_settings({"innodb_log_file_size": "256M"}, *server) == \
        {"innodb_log_file_size": "256M"}


def test_old_mysql_redo_capacity_in_bytes():
    mapped = map_settings({"innodb_redo_log_capacity": 100663296}, *MYSQL_5_7)
    assert mapped["innodb_log_file_size"] == "50331648"


def test_old_mysql_bad_redo_capacity_names_the_option():
    with pytest.raises(UserError, match="innodb_redo_log_capacity: expected a size"):
        map_settings({"innodb_redo_log_capacity": "lots"}, *MYSQL_5_7)


def test_values_become_strings():
    assert map_settings({"innodb_io_capacity": 400}, *MYSQL_8_4) == \
        {"innodb_io_capacity": "400"}


def test_map_settings_does_not_change_its_input():
    settings = {"innodb_log_file_size": "256M"}
    map_settings(settings, *MYSQL_8_4)
    assert settings == {"innodb_log_file_size": "256M"}


@pytest.mark.parametrize("flavor,expected", [("mysql", True), ("percona", True),
                                             ("mariadb", False)])
def test_is_mysql(flavor, expected):
    assert server_options.is_mysql(flavor) is expected


# --- engine_settings ----------------------------------------------------------------------------

@pytest.mark.parametrize("server", [MYSQL_8_0_29, MYSQL_8_0_30, MYSQL_8_4, PERCONA_8_0_36],
                         ids=["mysql-8.0.29", "mysql-8.0.30", "mysql-8.4.3", "percona-8.0.36"])
def test_mysql_8_gets_no_binlog_and_no_x_protocol(server):
    assert server_options.engine_settings(*server) == {"skip_log_bin": None, "mysqlx": "OFF"}


def test_mysql_5_7_has_no_x_protocol_option():
    assert server_options.engine_settings(*MYSQL_5_7) == {"skip_log_bin": None}


def test_mariadb_gets_nothing():
    assert server_options.engine_settings(*MARIADB_10_11) == {}


# --- check_known --------------------------------------------------------------------------------

KNOWN = frozenset({"innodb_doublewrite", "innodb_flush_method", "innodb_log_file_size"})


def test_check_known_accepts_known_options():
    server_options.check_known({"innodb_doublewrite": "ON", "innodb_flush_method": "fsync"}, KNOWN,
                        "MariaDB 10.11.19", "recipe doublewrite")


def test_check_known_names_option_server_and_where():
    with pytest.raises(UserError) as info:
        server_options.check_known({"innodb_doublewrite": "ON", "innodb_foo": "1"}, KNOWN,
                            "MariaDB 10.11.19", "recipes/demo/recipe.toml")
    message = str(info.value)
    assert message.startswith("recipes/demo/recipe.toml: ")
    assert "MariaDB 10.11.19" in message
    assert "no option 'innodb_foo'" in message
    assert "(" not in message  # no REMOVED hint for an option that never existed


@pytest.mark.parametrize("name", sorted(server_options.REMOVED))
def test_check_known_gives_the_removed_hint(name):
    with pytest.raises(UserError) as info:
        server_options.check_known({name: "1"}, KNOWN, "MySQL 8.4.3", "sweep")
    message = str(info.value)
    assert f"'{name}'" in message
    assert "MySQL 8.4.3" in message
    assert f"({server_options.REMOVED[name]})" in message


def test_check_known_with_mapped_settings():
    """The mapped name is what is checked: MySQL 8.4 knows innodb_redo_log_capacity."""
    mapped = map_settings({"innodb_log_file_size": "256M"}, *MYSQL_8_4)
    server_options.check_known(mapped, frozenset({"innodb_redo_log_capacity"}), "MySQL 8.4.3", "x")
    with pytest.raises(UserError, match="innodb_redo_log_capacity"):
        server_options.check_known(mapped, KNOWN, "MySQL 8.4.3", "x")


# --- option_problems: what the server says of values it refuses or changes ----------------------

def captured(name: str) -> str:
    return (FIXTURES / name).read_text()


def test_option_problems_read_every_refusal_of_mariadb():
    problems = server_options.option_problems(captured("mariadb_10.11_bad_values_stderr.txt"))
    by_name = {p.name: p for p in problems}
    assert set(by_name) == {"skip_grant_tables", "innodb_io_capacity", "innodb_flush_method",
                            "innodb_doublewrite", "innodb_purge_threads"}
    capacity = by_name["innodb_io_capacity"]
    assert (capacity.value, capacity.adjusted_to) == ("banana", None)
    assert capacity.why.startswith("Unknown suffix 'b' used for variable 'innodb-io-capacity'")
    assert (by_name["innodb_flush_method"].value, by_name["innodb_flush_method"].why) == \
        ("bogus", "")
    assert by_name["innodb_doublewrite"].value == "maybe"  # ignored with a warning: refused
    assert by_name["skip_grant_tables"].value == "banana"  # read as OFF: refused
    assert (by_name["innodb_purge_threads"].value,
            by_name["innodb_purge_threads"].adjusted_to) == ("1000", "32")


def test_option_problems_of_a_server_option_mariadb_buffers():
    [problem] = server_options.option_problems(
        captured("mariadb_10.11_bad_server_value_stderr.txt"))
    assert (problem.name, problem.value) == ("max_connections", "banana")
    assert "Unknown suffix 'b'" in problem.why and "Buffered error" not in problem.why


def test_option_problems_of_an_unknown_option():
    [problem] = server_options.option_problems(
        captured("mariadb_10.11_unknown_option_stderr.txt"))
    assert (problem.name, problem.value, problem.unknown) == ("innodb_fooo", "1", True)


@pytest.mark.parametrize("line, name, value, adjusted", [
    # MySQL 8's --validate-config, as its manual shows it.
    (("2018-11-05T15:43:18.445863Z 0 [Warning] [MY-000076] [Server] option 'read_only': "
      "boolean value 's' was not recognized. Set to OFF."), "read_only", "s", None),
    (("2018-11-05T17:50:12.738919Z 0 [ERROR] [MY-000068] [Server] unknown option "
      "'--no-such-option'."), "no_such_option", "", None),
    # my_getopt's words (MariaDB's and MySQL's alike) under MySQL's prefix: not captured here.
    (("2024-01-01T00:00:00.000000Z 0 [Warning] [MY-000081] [Server] option "
      "'innodb_io_capacity': unsigned value 5 adjusted to 100."),
     "innodb_io_capacity", "5", "100"),
    (("2024-01-01T00:00:00.000000Z 0 [ERROR] [MY-000077] [Server] /usr/sbin/mysqld: Error "
      "while setting value 'banana' to 'innodb_io_capacity'."), "innodb_io_capacity", "banana",
     None),
    (("2026-11-22 21:54:21 0 [Warning] option 'innodb-lru-scan-depth': signed value -1 "
      "adjusted to 100"), "innodb_lru_scan_depth", "-1", "100"),
], ids=["mysql-boolean", "mysql-unknown", "mysql-adjusted", "mysql-refused", "signed"])
def test_option_problems_of_one_line(line, name, value, adjusted):
    [problem] = server_options.option_problems(line + "\n")
    assert (problem.name, problem.value, problem.adjusted_to) == (name, value, adjusted)


@pytest.mark.parametrize("text", [
    "",
    ("2026-11-22 21:54:21 0 [Warning] Could not increase number of max_open_files to more than "
     "20000 (request: 32184)\n"),
    "2026-11-22 21:54:21 0 [ERROR] Parsing options for plugin 'InnoDB' failed. Disabling plugin\n",
], ids=["empty", "open-files", "plugin-summary"])
def test_option_problems_leave_out_other_lines(text):
    assert server_options.option_problems(text) == ()


def test_describe_problem_names_where_value_and_the_servers_words():
    problems = server_options.option_problems(captured("mariadb_10.11_bad_values_stderr.txt"))
    by_name = {p.name: p for p in problems}
    text = server_options.describe_problem(by_name["innodb_io_capacity"], "MariaDB 10.11.19")
    assert text == ("MariaDB 10.11.19 refuses 'banana' for innodb_io_capacity (Unknown suffix "
                    "'b' used for variable 'innodb-io-capacity' (value 'banana'). Legal suffix "
                    "characters are: K, M, G, T, P, E)")
    text = server_options.describe_problem(by_name["innodb_flush_method"], "MariaDB 10.11.19",
                                           ("fsync", "O_DIRECT"))
    assert text == ("MariaDB 10.11.19 refuses 'bogus' for innodb_flush_method; expected one "
                    "of: fsync, O_DIRECT")
    text = server_options.describe_problem(by_name["innodb_purge_threads"], "MariaDB 10.11.19")
    assert text.startswith("MariaDB 10.11.19 would run innodb_purge_threads = 32, not '1000'")


# --- option_choices: the values an enum option takes, from --verbose --help --------------------

@pytest.fixture(scope="module")
def help_text():
    return captured("mariadb_10.11_verbose_help.txt")


@pytest.mark.parametrize("name, choices", [
    ("innodb_flush_method", ("fsync", "O_DSYNC", "littlesync", "nosync", "O_DIRECT",
                             "O_DIRECT_NO_FSYNC")),
    ("innodb_change_buffering", ("none", "inserts", "deletes", "changes", "purges", "all")),
    ("innodb_io_capacity", ()),
    ("innodb_nosuch", ()),
])
def test_option_choices(help_text, name, choices):
    assert server_options.option_choices(help_text, name) == choices
