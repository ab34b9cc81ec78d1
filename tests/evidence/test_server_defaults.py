"""The reader of each server's defaults (docs/examples/defaults/<server>.json): the values as
captured, the lab's own options never read as a default, where they come from, and a missing
or malformed file as one line naming the file and the key."""

import json
import os

import pytest

from tuninglab.errors import UserError
from tuninglab.evidence import server_defaults
from tuninglab.evidence.servers import OPTIONS


def capture(name: str, **changes) -> dict:
    """A file as advise/examples.capture_defaults writes it, small."""
    version = {"mariadb 10.11": "10.11.14", "mariadb 11.8": "11.8.3",
               "mysql 9.7": "9.7.4"}[name]
    doc = {"about": "at its own defaults", "server": name, "version": version,
           "version_text": f"mysqld  Ver {version}", "date": "2026-12-07",
           "host": {"cores": 2, "memory_bytes": 25 * 2**30},
           "given": {"datadir": "(the run's own)", "skip-networking": None,
                     "skip_log_bin": None},
           "variables": {"innodb_io_capacity": "200", "innodb_flush_method": "O_DIRECT",
                         "datadir": "/tmp/x/data/", "log_bin": "OFF",
                         "skip_networking": "ON"}}
    doc.update(changes)
    return doc


def write(directory, server: str, doc) -> None:
    text = doc if isinstance(doc, str) else json.dumps(doc)
    (directory / f"{OPTIONS[server]}.json").write_text(text)


@pytest.fixture
def captured(tmp_path):
    for server in OPTIONS:
        write(tmp_path, server, capture(server))
    return tmp_path


def test_each_server_s_values_and_where_they_come_from(captured):
    found = server_defaults.defaults(captured)
    assert list(found) == list(OPTIONS)
    assert server_defaults.value("mariadb 11.8", "innodb_io_capacity", captured) == "200"
    assert server_defaults.value("mysql 9.7", "INNODB_FLUSH_METHOD", captured) == "O_DIRECT"
    assert server_defaults.value("mysql 9.7", "innodb_no_such_thing", captured) is None
    source = server_defaults.source("mariadb 11.8", captured)
    assert (source.version, source.date) == ("11.8.3", "2026-12-07")
    assert source.text == "MariaDB 11.8.3's defaults, read from the server on 2026-12-07"
    assert found["mysql 9.7"].cores == 2


def test_what_the_lab_set_to_run_it_is_no_default(captured):
    """Its datadir, its socket, no TCP port, no binary log (skip_log_bin sets log_bin off)."""
    for variable in ("datadir", "skip_networking", "log_bin"):
        assert server_defaults.value("mariadb 10.11", variable, captured) is None


def test_a_changed_file_is_read_again(captured):
    assert server_defaults.value("mysql 9.7", "innodb_io_capacity", captured) == "200"
    doc = capture("mysql 9.7")
    doc["variables"]["innodb_io_capacity"] = "10000"
    write(captured, "mysql 9.7", doc)
    path = captured / "mysql-9.7.json"
    os.utime(path, (path.stat().st_mtime + 5,) * 2)
    assert server_defaults.value("mysql 9.7", "innodb_io_capacity", captured) == "10000"


def test_a_server_the_guide_does_not_capture_is_refused(captured):
    with pytest.raises(UserError, match="no captured defaults for 'percona 8.0'"):
        server_defaults.value("percona 8.0", "innodb_io_capacity", captured)


@pytest.mark.parametrize("doc, words", [
    ("{", "mariadb-11.8.json: not a JSON file"),
    ("[]", "mariadb-11.8.json: expected a JSON object"),
    (capture("mariadb 11.8", server="mariadb 10.11"),
     "server: 'mariadb 10.11', expected 'mariadb 11.8'"),
    (capture("mariadb 11.8", version=None), "version: missing, expected a version as 11.8.3"),
    (capture("mariadb 11.8", version="eleven"), "version: 'eleven', expected a version"),
    (capture("mariadb 11.8", date="yesterday"), "date: 'yesterday', expected a date"),
    (capture("mariadb 11.8", host={"cores": 0, "memory_bytes": 1}),
     r"host\.cores: 0, expected a whole number above 0"),
    (capture("mariadb 11.8", host=[]), "host: expected an object"),
    (capture("mariadb 11.8", variables={}), "variables: expected an object of variable names"),
    (capture("mariadb 11.8", variables={"innodb_io_capacity": 200}),
     r"variables\.innodb_io_capacity: 200, expected a name and a text value"),
    (capture("mariadb 11.8", variables={"a b": "1"}), r"variables\.a b: '1', expected a name"),
])
def test_a_malformed_file_is_one_line_naming_the_file_and_the_key(captured, doc, words):
    write(captured, "mariadb 11.8", doc)
    with pytest.raises(UserError, match=words) as err:
        server_defaults.defaults(captured)
    assert "\n" not in str(err.value) and "mariadb-11.8.json" in str(err.value)


def test_a_missing_file_or_a_link_is_one_line(captured):
    (captured / "mysql-9.7.json").unlink()
    with pytest.raises(UserError, match=r"mysql-9\.7\.json: missing \(written by `invoke "
                                        r"advise --examples`\)"):
        server_defaults.defaults(captured)
    (captured / "mysql-9.7.json").symlink_to(captured / "mariadb-11.8.json")
    with pytest.raises(UserError, match=r"mysql-9\.7\.json: a symbolic link, not a regular"):
        server_defaults.defaults(captured)
