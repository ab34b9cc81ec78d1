"""`invoke advise --on HOST` without a network (fleet/advise_on.py): the remote side's arguments,
and a host the inventory lacks or a connection that fails, each one line."""

import subprocess

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


def test_a_host_the_inventory_lacks_is_named(tmp_path):
    path = tmp_path / "fleet.toml"
    path.write_text('[hosts.db1]\naddress = "10.0.0.11"\n')
    with pytest.raises(UserError, match=r"db9 not in .*fleet.toml \(it has db1\)"):
        advise_on.advise_on("db9", str(path), [], None, print, print)


def test_a_connection_that_fails_is_one_line_naming_the_host(tmp_path):
    path = tmp_path / "fleet.toml"
    path.write_text('[hosts.db1]\naddress = "10.0.0.11"\n')
    repo = tmp_path / "repo"   # a committed revision to ship, whatever this checkout holds
    repo.mkdir()
    (repo / "setup.sh").write_text("#!/bin/sh\n")
    for args in (["init", "-q"], ["add", "."], ["-c", "user.name=t", "-c", "user.email=t@t",
                                                "commit", "-qm", "a revision"]):
        subprocess.run(["git", "-C", str(repo), *args], check=True)

    def refuse(host):
        raise ConnectionRefusedError("[Errno 111] Connection refused\nmore")
    with pytest.raises(UserError) as err:
        advise_on.advise_on("db1", str(path), [], None, print, print, repo=repo,
                            connector=refuse)
    assert str(err.value).startswith("--on db1 (")
    assert "Connection refused" in str(err.value) and "\n" not in str(err.value)
