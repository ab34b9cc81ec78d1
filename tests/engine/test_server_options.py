"""Unit tests for tuninglab.options: one recipe spelling mapped to each server's options."""

import pytest

from tuninglab.engine import server_options
from tuninglab.errors import UserError

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
    assert server_options.map_settings(settings, *MARIADB_10_11) == settings


def test_mariadb_takes_redo_capacity_as_log_file_size():
    mapped = server_options.map_settings({**COMMON, "innodb_redo_log_capacity": "1G"}, *MARIADB_10_11)
    assert mapped == {**COMMON, "innodb_log_file_size": "1G"}


@pytest.mark.parametrize("server", [MYSQL_8_0_30, MYSQL_8_4, PERCONA_8_0_36],
                         ids=["mysql-8.0.30", "mysql-8.4.3", "percona-8.0.36"])
def test_new_mysql_takes_log_file_size_as_redo_capacity(server):
    mapped = server_options.map_settings({**COMMON, "innodb_log_file_size": "256M"}, *server)
    assert mapped == {**COMMON, "innodb_redo_log_capacity": "256M"}
    assert "innodb_log_file_size" not in mapped


@pytest.mark.parametrize("server", [MYSQL_8_0_30, MYSQL_8_4, PERCONA_8_0_36],
                         ids=["mysql-8.0.30", "mysql-8.4.3", "percona-8.0.36"])
def test_new_mysql_keeps_redo_capacity(server):
    assert server_options.map_settings({"innodb_redo_log_capacity": "1G"}, *server) == \
        {"innodb_redo_log_capacity": "1G"}


@pytest.mark.parametrize("server", [MYSQL_8_0_29, MYSQL_5_7], ids=["mysql-8.0.29", "mysql-5.7"])
def test_old_mysql_splits_redo_capacity_over_two_files(server):
    mapped = server_options.map_settings({**COMMON, "innodb_redo_log_capacity": "1G"}, *server)
    assert mapped == {**COMMON, "innodb_log_file_size": "536870912",
                      "innodb_log_files_in_group": "2"}


@pytest.mark.parametrize("server", [MYSQL_8_0_29, MYSQL_5_7], ids=["mysql-8.0.29", "mysql-5.7"])
def test_old_mysql_keeps_log_file_size(server):
    assert server_options.map_settings({"innodb_log_file_size": "256M"}, *server) == \
        {"innodb_log_file_size": "256M"}


def test_old_mysql_redo_capacity_in_bytes():
    mapped = server_options.map_settings({"innodb_redo_log_capacity": 100663296}, *MYSQL_5_7)
    assert mapped["innodb_log_file_size"] == "50331648"


def test_old_mysql_bad_redo_capacity_names_the_option():
    with pytest.raises(UserError, match="innodb_redo_log_capacity: expected a size"):
        server_options.map_settings({"innodb_redo_log_capacity": "lots"}, *MYSQL_5_7)


def test_values_become_strings():
    assert server_options.map_settings({"innodb_io_capacity": 400}, *MYSQL_8_4) == \
        {"innodb_io_capacity": "400"}


def test_map_settings_does_not_change_its_input():
    settings = {"innodb_log_file_size": "256M"}
    server_options.map_settings(settings, *MYSQL_8_4)
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
    mapped = server_options.map_settings({"innodb_log_file_size": "256M"}, *MYSQL_8_4)
    server_options.check_known(mapped, frozenset({"innodb_redo_log_capacity"}), "MySQL 8.4.3", "x")
    with pytest.raises(UserError, match="innodb_redo_log_capacity"):
        server_options.check_known(mapped, KNOWN, "MySQL 8.4.3", "x")
