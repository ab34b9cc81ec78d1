"""`invoke advise --on HOST` for real: a throwaway sshd on this machine's loopback stands for the
other machine (tests/fleet/sshd.py); this checkout's committed revision is shipped and set up
there, and its `invoke advise` reads a dated MariaDB 10.11 through its socket, with the password
given on the remote shell's standard input, never on a command line."""

import json
import subprocess

import pytest

from fleet.sshd import known_hosts, needs_sshd, sshd_hosts
from helpers import needs_real_server
from tuninglab import files
from tuninglab.advise import examples
from tuninglab.errors import UserError
from tuninglab.fleet import advise_on

pytestmark = pytest.mark.integration


def test_advise_runs_on_a_fleet_host_and_brings_its_report_home(tmp_path):
    needs_sshd()
    needs_real_server()
    repo = tmp_path / "repo"
    subprocess.run(["git", "clone", "-q", str(files.PROJECT_DIR), str(repo)], check=True)
    with sshd_hosts(tmp_path / "sshd", 1) as (servers, key), \
            examples.dated_server("mariadb-10.11", tmp_path / "db",
                                  say=lambda _line: None) as (server, password):
        known = known_hosts(servers, tmp_path / "known_hosts")   # the host's key, checked
        (tmp_path / "fleet.toml").write_text(
            f'[hosts.a]\naddress = "127.0.0.1"\nport = {servers[0].port}\nuser = "root"\n'
            f'key = "{key}"\nworkdir = "{tmp_path / "a"}"\nknown_hosts = "{known}"\n')
        out, progress = [], []
        args = ["--socket", str(server.socket), "--user", examples.ADVISOR, "--json"]
        status = advise_on.advise_on("a", str(tmp_path / "fleet.toml"), args, password,
                                     out.append, progress.append, repo=repo)
        report = json.loads(out[0])
        assert status == (1 if report["applies"] else 0)
        assert "innodb_io_capacity = 200" in {r["slug"]: r for r in report["rows"]}[
            "io-capacity"]["reading"]["value"]
        assert any("running setup.sh" in line for line in progress)
        with pytest.raises(UserError, match="on a: login refused at socket"):
            advise_on.advise_on("a", str(tmp_path / "fleet.toml"), args, "wrong", out.append,
                                progress.append, repo=repo)
