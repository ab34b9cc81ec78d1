"""`invoke advise --on HOST` for real: a throwaway sshd on this machine's loopback stands for the
other machine (tests/fleet/sshd.py), named by an INI inventory; ansible/advise-on.yml ships this
checkout's committed revision and sets it up there, and its `invoke advise` reads a dated
MariaDB 10.11 through its socket, with the password from MYSQL_PWD here reaching the remote
command's environment, never a command line."""

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


def test_advise_runs_on_a_fleet_host_and_brings_its_report_home(tmp_path, monkeypatch):
    needs_sshd()
    needs_real_server()
    monkeypatch.setenv("TUNINGLAB_WORKDIR", str(tmp_path / "local"))
    repo = tmp_path / "repo"
    subprocess.run(["git", "clone", "-q", str(files.PROJECT_DIR), str(repo)], check=True)
    with sshd_hosts(tmp_path / "sshd", 1) as (servers, key), \
            examples.dated_server("mariadb-10.11", tmp_path / "db",
                                  say=lambda _line: None) as (server, password):
        known = known_hosts(servers, tmp_path / "known_hosts")   # the host's key, checked
        inventory = tmp_path / "hosts.yml"   # YAML, as the INI of test_fleet_integration.py
        inventory.write_text(
            f"all:\n  hosts:\n    a:\n      ansible_host: 127.0.0.1\n"
            f"      ansible_port: {servers[0].port}\n      ansible_user: root\n"
            f"      ansible_python_interpreter: /usr/bin/python3\n"
            f"      ansible_ssh_private_key_file: {key}\n"
            f"      ansible_ssh_common_args: -o UserKnownHostsFile={known}\n"
            f"      tuninglab_workdir: {tmp_path / 'a'}\n")
        out, progress = [], []
        args = ["--socket", str(server.socket), "--user", examples.ADVISOR, "--json"]
        monkeypatch.setenv("MYSQL_PWD", password)
        # -vvv: Ansible prints each SSH command it runs, where `environment:` would have put
        # the password (sh -c 'MYSQL_PWD=... python3 ...')
        monkeypatch.setenv("ANSIBLE_VERBOSITY", "3")
        status = advise_on.advise_on("a", str(inventory), args, out.append, progress.append,
                                     repo=repo)
        report = json.loads(out[0])
        assert status == (1 if report["applies"] else 0)
        assert "innodb_io_capacity = 200" in {r["slug"]: r for r in report["rows"]}[
            "io-capacity"]["reading"]["value"]
        assert any("run setup.sh" in line for line in progress)
        assert any("SSH: EXEC" in line for line in progress)
        assert password not in "\n".join(progress)   # on no command line, in no output
        monkeypatch.delenv("ANSIBLE_VERBOSITY")
        monkeypatch.setenv("MYSQL_PWD", "wrong")
        with pytest.raises(UserError, match="on a: login refused at socket"):
            advise_on.advise_on("a", str(inventory), args, out.append, progress.append,
                                repo=repo)
