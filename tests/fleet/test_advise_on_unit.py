"""`invoke advise --on HOST` without a network (fleet/advise_on.py): the remote side's arguments,
and a host the inventory lacks or a host that fails, each one line."""

import pytest

from tuninglab.errors import UserError
from tuninglab.fleet import advise_on


def test_the_remote_side_gets_the_servers_place_and_the_form_never_a_password():
    args = advise_on.remote_args("/run/mysqld/mysqld.sock", None, 3306, "advisor", None,
                                 "json")
    assert args == ["--socket", "/run/mysqld/mysqld.sock", "--user", "advisor", "--json"]
    args = advise_on.remote_args(None, "127.0.0.1", 3307, None, "/etc/advise.cnf", "markdown")
    assert args == ["--host", "127.0.0.1", "--defaults-file", "/etc/advise.cnf", "--port",
                    "3307", "--markdown"]
    assert advise_on.remote_args("/s", None, 3306, None, None, "table") == ["--socket", "/s"]


def test_a_limit_that_is_not_one_host_is_named(monkeypatch):
    hosts = [advise_on.inventory.Host("db1", "db1"), advise_on.inventory.Host("db2", "db2")]
    monkeypatch.setattr(advise_on.inventory, "load", lambda path, limit: hosts)
    with pytest.raises(UserError, match="--on nvme: expected one host of the inventory, got "
                                        "db1, db2"):
        advise_on.advise_on("nvme", "hosts.ini", [], print, print)


def test_a_host_that_fails_is_one_line_naming_it(tmp_path, monkeypatch):
    monkeypatch.setenv("TUNINGLAB_WORKDIR", str(tmp_path / "work"))
    monkeypatch.setattr(advise_on.inventory, "load",
                        lambda path, limit: [advise_on.inventory.Host("db1", "root@10.0.0.11")])
    monkeypatch.setattr(advise_on.ship, "revision", lambda repo: "f" * 40)
    monkeypatch.setattr(advise_on.ship, "archive_in", lambda repo, rev, base: base / "a.tgz")
    monkeypatch.setattr(advise_on.playbook, "run", lambda *a: {"db1": {
        "kind": "unreachable", "task": "find the fleet's directory on the host",
        "msg": "Failed to connect to the host via ssh: Connection refused"}})
    with pytest.raises(UserError) as err:
        advise_on.advise_on("db1", "hosts.ini", [], print, print)
    assert str(err.value) == ("--on db1 (root@10.0.0.11): unreachable: Failed to connect to the "
                              "host via ssh: Connection refused")
