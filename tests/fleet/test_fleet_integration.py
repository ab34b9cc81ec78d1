"""fleet.check, fleet.run and fleet.clean for real, through ansible-playbook: two "hosts" that
are throwaway sshd's on this machine's loopback (tests/fleet/sshd.py), named by an INI
inventory as any Ansible inventory names hosts, each with its own work directory, running a
small doublewrite on the revision shipped from a clean clone of this checkout. One host's sshd
is stopped mid-run: it is reported and the other finishes; the same command again resumes it
from its still-running recipe and fetches its results, and once more skips both. A recipe
killed mid-run fails its host, and the playbook's rescue leaves nothing of it running."""

import json
import os
import signal
import subprocess
import threading
from pathlib import Path

import pytest

from fleet.sshd import known_hosts, needs_sshd, sshd_hosts
from tuninglab import files
from tuninglab.contrib import check
from tuninglab.fleet import inventory, run, survey

pytestmark = pytest.mark.integration

SMALL = ("--repeats", "2", "--duration", "3s", "--warmup", "1s")


@pytest.fixture(scope="module")
def fleet(tmp_path_factory):
    needs_sshd()
    root = tmp_path_factory.mktemp("fleet")
    repo = root / "repo"   # the committed revision, whatever this checkout's tree holds
    subprocess.run(["git", "clone", "-q", str(files.PROJECT_DIR), str(repo)], check=True)
    with sshd_hosts(root / "sshd", 2) as (servers, key):
        known = known_hosts(servers, root / "known_hosts")   # the hosts' keys, checked
        text = "[lab]\n" + "".join(
            f"{name} ansible_host=127.0.0.1 ansible_port={s.port} tuninglab_workdir={root / name}\n"
            for name, s in zip("ab", servers))
        text += ("\n[lab:vars]\nansible_user=root\nansible_python_interpreter=/usr/bin/python3\n"
                 f"ansible_ssh_private_key_file={key}\n"
                 f"ansible_ssh_common_args='-o UserKnownHostsFile={known}'\n")
        (root / "hosts.ini").write_text(text)
        hosts = inventory.load(str(root / "hosts.ini"))
        yield hosts, dict(zip("ab", servers)), repo, root
        for server in servers:
            server.start()   # a no-op for one still running
        assert run.clean(hosts, str(root / "hosts.ini"), print) == {}   # reaches both hosts


def _run(fleet, job, say):
    hosts, _, repo, root = fleet
    return run.run(hosts, job, str(root / "hosts.ini"), say, repo=repo, workdir=root / "local",
                   data_dir=root / "data")


def test_a_fleet_runs_reports_a_lost_host_resumes_it_and_then_skips_both(fleet):
    servers, root = fleet[1], fleet[3]
    job = run.Job("doublewrite", "quick", "", forks=2, extra=SMALL)
    lines, cut = [], []

    def say(line):
        lines.append(line)
        if line.startswith("b  [") and not cut:   # b's recipe is measuring
            cut.append(threading.Thread(target=servers["b"].stop))
            cut[0].start()

    state = _run(fleet, job, say)
    cut[0].join()
    assert state["a"]["status"] == "done"
    assert state["b"] == {"status": "failed", "reason": run.reason(
        {"kind": "unreachable", "task": "follow the recipe"})}
    assert any(line.startswith("a  [") for line in lines)   # a's progress, tagged

    servers["b"].restart()
    lines.clear()
    state = _run(fleet, job, lines.append)
    assert [state[h]["status"] for h in "ab"] == ["done", "done"]
    assert "a  done in an earlier attempt of this fleet run: skipped" in lines
    fetched = sorted((root / "data").glob("doublewrite/*.json"))
    assert len(fetched) == 2
    docs = [json.loads(p.read_text()) for p in fetched]
    assert sorted(d["fleet"]["host"] for d in docs) == ["a", "b"]
    assert {d["fleet"]["run"] for d in docs} == {run.fleet_id(docs[0]["software"]["project"]
                                                              ["revision"], job)}
    for path in fetched:
        assert check.check_file(path) == []
    # contributions (no host is tuninglab_project), each with the id its host reported
    assert all(d["contribution"]["tool"] == "data.submit" for d in docs)
    table = "\n".join(lines)
    assert "innodb_doublewrite" in table and "verdict" in table

    lines.clear()
    assert [s["status"] for s in _run(fleet, job, lines.append).values()] == ["done", "done"]
    assert not any("PLAY" in line for line in lines)   # no host contacted
    assert len(list((root / "data").glob("doublewrite/*.json"))) == 2


def _left_on(workdir: Path) -> list[str]:
    """What of a host's work directory still runs or is mounted or attached here."""
    left = []
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            command = Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode()
        except OSError:
            continue
        if str(workdir) in command and "pytest" not in command:
            left.append(f"process {pid}: {command[:120]}")
    left += [line for line in Path("/proc/mounts").read_text().splitlines()
             if str(workdir) in line]
    loops = subprocess.run(["losetup", "-a"], capture_output=True, text=True).stdout
    return left + [line for line in loops.splitlines() if str(workdir) in line]


def test_a_recipe_killed_mid_run_fails_its_host_and_leaves_nothing_running(fleet):
    root = fleet[3]
    job = run.Job("doublewrite", "quick", "", forks=2, extra=SMALL + ("--seed", "7"))
    killed = []

    def say(line):
        if line.startswith("a  [") and not killed:   # kill -9: the runner cleans up nothing
            pid = int(next((root / "a" / "runs").glob(f"{run.fleet_id(_rev(fleet), job)}/pid"))
                      .read_text())
            os.killpg(pid, signal.SIGKILL)
            killed.append(pid)

    state = _run(fleet, job, say)
    assert killed and state["a"]["status"] == "failed"
    assert state["a"]["reason"].startswith("the recipe stopped (exit 137)")
    assert state["b"]["status"] == "done"
    assert _left_on(root / "a") == []   # the rescue's lab.clean


def _rev(fleet) -> str:
    return subprocess.run(["git", "-C", str(fleet[2]), "rev-parse", "HEAD"], check=True,
                          capture_output=True, text=True).stdout.strip()


def test_fleet_check_tells_a_host_it_cannot_reach_and_one_whose_key_is_unknown(fleet):
    hosts, servers, repo, root = fleet
    servers["b"].stop()
    out = []
    found = survey.survey(hosts, str(root / "hosts.ini"), out.append, repo, setup=True)
    assert found["a"]["cores"] and found["a"]["ready"]
    assert "ok  root: yes" in found["a"]["lab_check"]   # lab.check, run on the host
    assert "Connection refused" in found["b"]["error"]
    text = "\n".join(out)
    assert "unreachable" in text and "set up; lab.check says:" in text
    servers["b"].start()
    # The same host with no key known for it (b: its connections ended with its sshd, so
    # none of Ansible's persistent ones can answer for it).
    unknown = root / "unknown.ini"
    unknown.write_text((root / "hosts.ini").read_text().replace(str(root / "known_hosts"),
                                                                str(root / "none")))
    found = survey.survey(hosts[1:], str(unknown), out.append, repo)
    assert "Host key verification failed" in found["b"]["error"]


def test_a_work_directory_that_resolves_into_the_system_is_refused_on_the_host(fleet):
    """The inventory's text passes on this side (a directory of its own); on the host it is a
    symlink into /etc, which ansible/where.sh refuses before anything is written there."""
    hosts, _, repo, root = fleet
    link = root / "to-etc"
    link.symlink_to("/etc")
    text = (root / "hosts.ini").read_text()
    linked = root / "linked.ini"
    linked.write_text(text.replace(f"tuninglab_workdir={root / 'a'}",
                                   f"tuninglab_workdir={link}/tuninglab-fleet-test"))
    [a] = inventory.load(str(linked), "a")
    found = survey.survey([a], str(linked), print, repo)
    assert found["a"]["error"] == (
        f"find the fleet's directory on the host: work directory {link}/tuninglab-fleet-test: "
        "/etc/tuninglab-fleet-test here, in /etc (the system's, or a server's data); expected "
        "a directory of its own for the fleet")
    assert not Path("/etc/tuninglab-fleet-test").exists()
