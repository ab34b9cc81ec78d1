"""The fleet without a network: hosts and the inventory, the shipped revision, each host's
steps on Fabric's own mocked SSH (fabric.testing: MockRemote), the fetched file's scrubbing,
and the fleet's table. The real SSH is in test_fleet_integration.py."""

import json
import subprocess
import tarfile

import pytest
from fabric import Connection
from fabric.testing.base import Command, MockRemote, Session
from paramiko.ssh_exception import NoValidConnectionsError

from fleet.fakes import FakeRemote, wanted_of
from helpers import DATA, committed_data_files
from tuninglab.contrib import check
from tuninglab.engine.host import hostinfo
from tuninglab.errors import UserError
from tuninglab.fleet import fetch, inventory, remote, run, ship
from tuninglab.fleet.inventory import Host
from tuninglab.site import describe

INVENTORY = """
[defaults]
user = "bench"
key = "~/.ssh/lab"
workdir = "/var/tmp/tl"

[hosts.db1]
address = "10.0.0.11"
devices = ["/dev/nvme1n1"]

[hosts.db2]
port = 2222
workdir = "~/fleet"
"""


def test_an_inventory_gives_each_host_its_own_or_the_default_values(tmp_path):
    path = tmp_path / "fleet.toml"
    path.write_text(INVENTORY)
    db1, db2 = inventory.hosts(None, str(path), ["db2:/dev/sdb"])
    assert db1 == Host("db1", "10.0.0.11", "bench", 22, "~/.ssh/lab", "/var/tmp/tl",
                       ("/dev/nvme1n1",))
    assert (db2.address, db2.port, db2.workdir, db2.devices) == ("db2", 2222, "~/fleet",
                                                                 ("/dev/sdb",))
    assert [h.name for h in inventory.hosts("db2", str(path))] == ["db2"]


@pytest.mark.parametrize("text, message", [
    ('[hosts.a]\nport = 70000\n', "fleet.toml: hosts.a.port: expected a TCP port"),
    ('[hosts.a]\npassword = "x"\n', "hosts.a.password: unknown key"),
    ('[hosts.a]\ndevices = ["sdb"]\n', "hosts.a.devices: expected block devices"),
    ('[hosts."a b"]\n', "a host's name is letters"),
    ('[hosts]\n', "expected at least one [hosts.NAME] table"),
    ('[hosts.a]\nworkdir = "/"\n', "hosts.a.workdir: expected a directory of its own"),
    ('hosts = 1\n', "hosts: expected dict"),
    ('[hosts.a\n', "fleet.toml: not valid TOML"),
])
def test_a_bad_inventory_says_which_file_and_key(tmp_path, text, message):
    path = tmp_path / "fleet.toml"
    path.write_text(text)
    with pytest.raises(UserError, match=message.replace("[", r"\[").replace(".", r"\.")):
        inventory.hosts(None, str(path))


@pytest.mark.parametrize("workdir", ["//", "/etc", "/etc/tl", "/usr/local/tl", "/var", "/tmp",
                                     "/var/tmp/../../etc", "/var/tmp//tl", "~/../..", "../tl",
                                     "~alice/tl", ".", "/proc/1"])
def test_a_workdir_that_is_no_directory_of_the_fleets_own_is_refused(tmp_path, workdir):
    path = tmp_path / "fleet.toml"
    path.write_text(f'[hosts.a]\nworkdir = "{workdir}"\n')
    with pytest.raises(UserError) as info:
        inventory.hosts(None, str(path))
    assert str(info.value).startswith(f"{path}: hosts.a.workdir: expected a directory of its "
                                      "own for the fleet")
    assert str(info.value).endswith(f"got {workdir!r}")


@pytest.mark.parametrize("workdir", ["/var/tmp/tl", "/srv/tl/", "/home/bench/tl", "~/fleet",
                                     "tuninglab-fleet", "/tmp/tl"])
def test_a_workdir_of_its_own_is_kept(tmp_path, workdir):
    path = tmp_path / "fleet.toml"
    path.write_text(f'[hosts.a]\nworkdir = "{workdir}"\n')
    assert inventory.hosts(None, str(path))[0].workdir == workdir


@pytest.mark.parametrize("hosts", [
    '[hosts.db1]\naddress = "10.0.0.11"\n[hosts.db1b]\naddress = "10.0.0.11"\n',
    '[hosts.db1]\naddress = "DB1.lab"\nport = 22\n[hosts.db1b]\naddress = "db1.lab."\n',
    '[hosts.db1]\naddress = "fe80::1"\n[hosts.db1b]\naddress = "fe80:0::1"\n',
])
def test_two_names_for_one_machine_are_refused(tmp_path, hosts):
    path = tmp_path / "fleet.toml"
    path.write_text(hosts)
    with pytest.raises(UserError, match=f"^{path}: db1 and db1b are the same machine "
                                        r"\(.* port 22\); expected each host once$"):
        inventory.hosts(None, str(path))


def test_one_address_on_two_ports_is_two_machines(tmp_path):
    path = tmp_path / "fleet.toml"
    path.write_text('[hosts.vm1]\naddress = "10.0.0.1"\nport = 2201\n'
                    '[hosts.vm2]\naddress = "10.0.0.1"\nport = 2202\n')
    assert [h.name for h in inventory.hosts(None, str(path))] == ["vm1", "vm2"]


def test_hosts_named_on_the_command_line():
    a, b, c = inventory.hosts("db1, root@db2:2222,[fe80::1]:23", None)
    assert (a.name, a.address, a.port) == ("db1", "db1", 22)
    assert (b.user, b.address, b.port) == ("root", "db2", 2222)
    assert (c.name, c.address, c.port) == ("fe80--1", "fe80::1", 23)
    for bad, message in [("", "name the hosts"), (",", "expected names"),
                         ("a;rm -rf", "is not \\[user@\\]address"), ("a,a", "named twice"),
                         ("DB1,db1", "--hosts: DB1 and db1 are the same machine \\(db1 port 22\\)"),
                         ("[fe80::1],[fe80:0::1]", "fe80--1 and fe80-0--1 are the same machine"),
                         ("a:99999", "expected a TCP port")]:
        with pytest.raises(UserError, match=message):
            inventory.hosts(bad, None)
    with pytest.raises(UserError, match="--device b:/dev/sdb: b is not one of the hosts"):
        inventory.hosts("a", None, ["b:/dev/sdb"])
    with pytest.raises(UserError, match="expected host:/dev/NAME"):
        inventory.hosts("a", None, ["/dev/sdb"])


def test_named_devices_need_destroy_data_and_reach_the_recipe():
    host = Host("db1", "db1", "root", devices=("/dev/sdb",))
    job = run.Job("doublewrite", "quick", "", extra=("--repeats", "2"))
    with pytest.raises(UserError, match="db1: every run erases them; add --destroy-data"):
        run._check([host], job)
    assert run.Job("doublewrite", "quick", "", destroy_data=True).args(host) == [
        "doublewrite", "--profile", "quick", "--variant", "", "--device", "/dev/sdb",
        "--destroy-data"]
    assert run.fleet_id("a" * 40, job) == run.fleet_id("a" * 40, job)
    assert run.fleet_id("a" * 40, job) != run.fleet_id("a" * 40, run.Job("doublewrite"))


def _repo(tmp_path):
    repo = tmp_path / "repo"
    repo.mkdir()
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    git = ["git", "-C", str(repo), "-c", "user.name=t", "-c", "user.email=t@t"]
    (repo / "a.txt").write_text("one\n")
    subprocess.run(git + ["add", "a.txt"], check=True)
    subprocess.run(git + ["commit", "-qm", "one"], check=True)
    return repo


def test_the_shipped_tree_is_the_commit_and_names_it(tmp_path):
    repo = _repo(tmp_path)
    rev = ship.revision(repo)
    with tarfile.open(ship.archive(repo, rev, tmp_path / "out" / "x.tar.gz")) as tar:
        assert sorted(tar.getnames()) == [".tuninglab-revision", "a.txt"]
        tar.extractall(tmp_path / "tree")
    assert hostinfo.git_revision(tmp_path / "tree") == {"revision": rev, "dirty": False}
    (repo / "a.txt").write_text("two\n")
    with pytest.raises(UserError, match="uncommitted changes \\(a.txt\\)"):
        ship.revision(repo)
    assert ship.head(repo) == rev


def _conn():
    return Connection("db1", user="root", port=22)


def test_a_host_says_whether_its_recipe_is_done_running_or_new():
    host = Host("db1", "db1", "root", workdir="fleet")
    for out, expected in [(b"done 0\n", ("done", 0)), (b"running 4242\n", ("running", 4242)),
                          (b"new\n", ("new", None))]:
        with MockRemote() as mock:
            mock.expect(commands=[Command(out=b"/home/root\n"), Command(out=out)])
            r = remote.Remote(host, "f" * 40, _conn())
            assert r.base == "/home/root/fleet" and r.tree.endswith("/trees/ffffffffffff")
            assert r.state("abc") == expected


def test_the_recipe_starts_detached_with_its_own_work_directory():
    host = Host("db1", "db1", "root", workdir="/srv/tl")
    with MockRemote() as mock:
        channel = mock.expect_sessions(Session(commands=[Command(out=b"/root\n"),
                                                         Command(out=b"777\n")]))[1]
        r = remote.Remote(host, "f" * 40, _conn())
        assert r.start("abc", ["doublewrite", "--profile", "quick"]) == 777
    sent = channel.exec_command.call_args.args[0]
    assert "setsid nohup sh -c" in sent and "> /dev/null 2>&1 < /dev/null &" in sent
    assert "TUNINGLAB_WORKDIR=/srv/tl/work .venv/bin/invoke recipe doublewrite" in sent
    assert "/srv/tl/runs/abc/log" in sent and "/srv/tl/runs/abc/rc" in sent


def test_the_files_a_run_wrote_come_from_its_log():
    host = Host("db1", "db1", "root", workdir="/srv/tl")
    log = b"[1/2] x\nwrote /srv/tl/trees/f/data/doublewrite/a.json\n  wrote nothing\n"
    with MockRemote() as mock:
        mock.expect(commands=[Command(out=b"/root\n"), Command(out=log)])
        r = remote.Remote(host, "f" * 40, _conn())
        assert r.written("abc") == ["/srv/tl/trees/f/data/doublewrite/a.json"]


def test_a_host_that_refuses_ssh_is_reported_and_the_fleet_goes_on(tmp_path):
    def refuse(host):
        raise NoValidConnectionsError({("10.0.0.9", 22): ConnectionRefusedError()})

    job = run.Job("doublewrite", "quick")
    fleet = run.Fleet(job, "f" * 40, tmp_path / "state" / "abc.json", tmp_path / "data",
                      lambda _line: None, refuse)
    host = Host("db9", "10.0.0.9", "root")
    run._one_host(fleet, host, tmp_path / "x.tar.gz", 3)
    entry = json.loads((tmp_path / "state" / "abc.json").read_text())["hosts"]["db9"]
    assert entry["status"] == "failed" and entry["reason"].startswith("SSH connection failed")
    assert "failed: SSH connection failed" in fetch.verdict_table([host], fleet.state, tmp_path)


def test_output_reaches_the_host_log_whole_lines_at_a_time():
    got = []
    lines = remote.Lines(got.append)
    for piece in ["[1/4] a", "bc\r\nwr", "ote x\n"]:
        lines.write(piece)
    assert got == ["[1/4] abc", "wrote x"]


def test_a_fetched_result_is_scrubbed_marked_checked_and_kept_once(tmp_path):
    name = next(p for p in committed_data_files() if p.startswith("doublewrite/"))
    source = tmp_path / name.split("/")[1]
    doc = json.loads((DATA / name).read_text())
    doc["storage"]["path"] = "/root/tuninglab-fleet/work/runs"
    doc["server"]["options_text"] = "--x API_TOKEN=s3cret"
    source.write_text(json.dumps(doc))
    kept = fetch.results(FakeRemote(source), "abcdef012345", tmp_path / "data", wanted_of(doc))
    assert [p.parent.name for p in kept] == ["doublewrite"] and kept[0].name == source.name
    text = kept[0].read_text()
    assert "/root/" not in text and "s3cret" not in text
    assert json.loads(text)["fleet"] == {"run": "abcdef012345", "host": "db1"}
    assert json.loads(text)["contribution"]["tool"] == "data.submit"   # no `project = true`
    assert check.check_file(kept[0], project_hosts={}) == []
    again = fetch.results(FakeRemote(source), "abcdef012345", tmp_path / "data", wanted_of(doc))
    assert again == kept   # a resumed fleet run keeps the file it fetched
    rows = fetch.verdict_table([Host("db1", "db1", "root")],
                               {"db1": {"status": "done", "files": [str(kept[0])]}}, tmp_path)
    assert "innodb_doublewrite=OFF" in rows and "db1" in rows


def test_a_fetched_hosts_series_carries_the_name_the_inventory_gave_it():
    doc = json.loads((DATA / next(p for p in committed_data_files()
                                      if p.startswith("doublewrite/"))).read_text())
    plain = describe.host_name(doc)
    doc["fleet"] = {"run": "abcdef012345", "host": "nvme1"}
    assert describe.host_name(doc).startswith("nvme1: ") and plain[:20] in describe.host_name(doc)
