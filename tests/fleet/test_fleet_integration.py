"""fleet.check, fleet.run and fleet.clean for real: two "hosts" that are throwaway sshd's on
this machine's loopback (tests/fleet/sshd.py), each with its own work directory, running a
small doublewrite on the revision shipped from a clean clone of this checkout. One host's sshd
is stopped mid-run: it is reported and the other finishes; the same command again resumes it
from its still-running recipe and fetches its results."""

import json
import subprocess
import threading

import pytest

from fleet.sshd import known_hosts, needs_sshd, sshd_hosts
from tuninglab import files
from tuninglab.contrib import check
from tuninglab.fleet import inventory, run, survey

pytestmark = pytest.mark.integration

SMALL = ("--repeats", "2", "--duration", "3s", "--warmup", "1s")


@pytest.fixture
def fleet(tmp_path):
    needs_sshd()
    repo = tmp_path / "repo"   # the committed revision, whatever this checkout's tree holds
    subprocess.run(["git", "clone", "-q", str(files.PROJECT_DIR), str(repo)], check=True)
    with sshd_hosts(tmp_path / "sshd", 2) as (servers, key):
        known = known_hosts(servers, tmp_path / "known_hosts")   # the hosts' keys, checked
        text = f'[defaults]\nknown_hosts = "{known}"\n\n'
        text += "".join(f'[hosts.{name}]\naddress = "127.0.0.1"\nport = {s.port}\nuser = "root"\n'
                        f'key = "{key}"\nworkdir = "{tmp_path / name}"\n\n'
                        for name, s in zip("ab", servers))
        (tmp_path / "fleet.toml").write_text(text)
        hosts = inventory.hosts(None, str(tmp_path / "fleet.toml"))
        yield hosts, dict(zip("ab", servers)), repo
        for server in servers:
            server.start()   # a no-op for one still running
        said = []
        assert run.clean(hosts, said.append, repo) == []   # fleet.clean reaches both hosts
        assert {line.split()[0] for line in said} == {"a", "b"}   # each said what it cleaned


def test_a_fleet_runs_reports_a_lost_host_and_resumes_it(fleet, tmp_path):
    hosts, servers, repo = fleet
    data, work, lines = tmp_path / "data", tmp_path / "local-work", []
    job = run.Job("doublewrite", "quick", "", parallel=2, extra=SMALL)
    cut = []

    def say(line):
        lines.append(line)
        if line.startswith("b  [1/") and not cut:   # b's recipe has started measuring
            cut.append(threading.Thread(target=servers["b"].stop))
            cut[0].start()

    state = run.run(hosts, job, say, repo=repo, workdir=work, data_dir=data)
    cut[0].join()
    assert state["a"]["status"] == "done"
    assert state["b"]["status"] == "failed"
    assert state["b"]["reason"].startswith("the connection ended while the recipe ran")
    assert any(line.startswith("a  wrote ") for line in lines)

    servers["b"].restart()
    lines.clear()
    state = run.run(hosts, job, lines.append, repo=repo, workdir=work, data_dir=data)
    assert [state[h]["status"] for h in "ab"] == ["done", "done"]
    assert "a  done in an earlier attempt of this fleet run" in lines
    fetched = sorted(data.glob("doublewrite/*.json"))
    assert len(fetched) == 2
    docs = [json.loads(p.read_text()) for p in fetched]
    assert sorted(d["fleet"]["host"] for d in docs) == ["a", "b"]
    assert {d["fleet"]["run"] for d in docs} == {run.fleet_id(docs[0]["software"]["project"]
                                                              ["revision"], job)}
    for path in fetched:
        assert check.check_file(path) == []
    # contributions (no host is marked `project = true`), each with the id its host reported
    assert all(d["contribution"]["tool"] == "data.submit" for d in docs)
    table = "\n".join(lines)
    assert "innodb_doublewrite" in table and "verdict" in table


def test_fleet_check_sets_up_a_host_and_tells_one_it_cannot_reach(fleet):
    hosts, servers, repo = fleet
    servers["b"].stop()
    out = []
    found = survey.survey(hosts, out.append, repo, setup=True)
    assert found["a"]["cores"] and found["a"]["ready"]
    assert "ok  root: yes" in found["a"]["lab_check"]   # lab.check, run on the host
    assert "SSH connection failed" in found["b"]["error"]
    text = "\n".join(out)
    assert "unreachable" in text and "set up; lab.check says:" in text
