"""The fleet without a network: an Ansible inventory's hosts as `ansible-inventory --list`
gives them (captured) and the variables the fleet checks, the shipped revision, the recipe's
command line, why a host failed, the fetched file's scrubbing and the fleet's table. Real
Ansible is in test_inventory_integration.py and test_fleet_integration.py."""

import json
import subprocess
import tarfile

import pytest

from fleet.fakes import fetched_dir, wanted_of
from helpers import DATA, committed_data_files
from tuninglab.contrib import check
from tuninglab.engine.host import hostinfo
from tuninglab.errors import UserError
from tuninglab.fleet import fetch, inventory, places, playbook, run, ship
from tuninglab.fleet.inventory import Host
from tuninglab.site import describe

# `ansible-inventory --list` of an INI inventory: [nvme] db1 and db2, [cloud] c1, and
# [nvme:vars] (group variables arrive as strings).
LISTING = {
    "_meta": {"hostvars": {
        "db1": {"ansible_host": "10.0.0.11", "ansible_user": "bench",
                "tuninglab_devices": ["/dev/nvme1n1"], "tuninglab_destroy_data": True,
                "tuninglab_workdir": "/var/tmp/tl"},
        "db2": {"ansible_port": 2222, "tuninglab_workdir": "~/fleet",
                "tuninglab_project": "yes"},
        "c1": {"tuninglab_devices": "/dev/sdb, /dev/sdc", "tuninglab_destroy_data": "true"}}},
    "all": {"children": ["ungrouped", "nvme", "cloud"]},
    "nvme": {"hosts": ["db1", "db2"]},
    "cloud": {"hosts": ["c1", "db1"]},
}


def test_an_inventory_gives_each_host_its_variables():
    c1, db1, db2 = inventory.hosts_of(LISTING, "hosts.ini")
    assert db1 == Host("db1", "bench@10.0.0.11", "/var/tmp/tl", ("/dev/nvme1n1",), False)
    assert (db2.target, db2.workdir, db2.devices, db2.project) == ("db2:2222", "~/fleet", (),
                                                                   True)
    assert c1.devices == ("/dev/sdb", "/dev/sdc") and c1.workdir == "tuninglab-fleet"


@pytest.mark.parametrize("variables, message", [
    ({"tuninglab_devices": ["/dev/sdb"]}, "hosts.ini: host h: tuninglab_devices names /dev/sdb:"
                                          " every run erases them; set tuninglab_destroy_data"),
    ({"tuninglab_devices": ["/dev/sdb"], "tuninglab_destroy_data": "no"}, "every run erases"),
    ({"tuninglab_devices": ["sdb"]}, "tuninglab_devices: expected block devices as /dev/NAME"),
    ({"tuninglab_devices": 3}, "tuninglab_devices: expected block devices"),
    ({"tuninglab_project": "maybe"}, "host h: tuninglab_project: expected true or false, got "
                                     "'maybe'"),
    ({"tuninglab_workdir": "/"}, "tuninglab_workdir: expected a directory of its own"),
    ({"tuninglab_workdir": 7}, "tuninglab_workdir: expected a directory"),
])
def test_a_bad_host_variable_says_which_inventory_host_and_variable(variables, message):
    listing = {"_meta": {"hostvars": {"h": variables}}, "g": {"hosts": ["h"]}}
    with pytest.raises(UserError, match=message.replace("(", r"\(")):
        inventory.hosts_of(listing, "hosts.ini")


def test_an_inventory_without_hosts_or_with_a_name_no_file_can_carry_is_refused():
    with pytest.raises(UserError, match="hosts.ini: no hosts"):
        inventory.hosts_of({"_meta": {"hostvars": {}}, "all": {"children": []}}, "hosts.ini")
    with pytest.raises(UserError, match="host 'a/b': a fleet host's name is letters"):
        inventory.hosts_of({"g": {"hosts": ["a/b"]}}, "hosts.ini")


def test_a_fleet_toml_says_it_is_no_longer_read():
    with pytest.raises(UserError, match="fleet.toml: fleet.toml inventories are no longer read"):
        inventory.load("fleet.toml")


@pytest.mark.parametrize("workdir", ["/", "/etc/tl", "/var", "/tmp", "/home/bench", "~",
                                     "~/", "", " x", "a/../b", "//srv", "~/.ssh", ".config/tl",
                                     "/srv/tl/.git"])
def test_a_workdir_that_is_no_directory_of_the_fleets_own_is_refused(workdir):
    assert places.workdir_problem(workdir) is not None


@pytest.mark.parametrize("workdir", ["tuninglab-fleet", "~/fleet", "/var/tmp/tl", "/srv/tl/",
                                     "/home/bench/tl"])
def test_a_workdir_of_its_own_is_kept(workdir):
    assert places.workdir_problem(workdir) is None


def test_the_recipe_gets_the_jobs_options_and_the_id_comes_from_revision_and_command():
    job = run.Job("doublewrite", "quick", "", extra=("--repeats", "2"))
    assert job.args() == ["doublewrite", "--profile", "quick", "--repeats", "2",
                          "--variant", ""]
    assert run.Job("doublewrite").args() == ["doublewrite", "--profile", "full"]
    assert run.fleet_id("a" * 40, job) == run.fleet_id("a" * 40, job)
    assert run.fleet_id("a" * 40, job) != run.fleet_id("b" * 40, job)
    assert run.fleet_id("a" * 40, job) != run.fleet_id("a" * 40, run.Job("doublewrite", "quick"))


@pytest.mark.parametrize("failure, said", [
    ({"kind": "unreachable", "task": "follow the recipe", "msg": "x"},
     "the connection ended while the recipe ran; it goes on there: rerun"),
    ({"kind": "unreachable", "task": "find the fleet's directory on the host",
      "msg": "Failed to connect to the host via ssh: Host key verification failed."},
     "unreachable: Failed to connect to the host via ssh: Host key verification failed."),
    ({"kind": "failed", "task": "check the recipe's exit", "msg": "the recipe stopped (exit 1)"},
     "the recipe stopped (exit 1)"),
    ({"kind": "failed", "task": "run setup.sh", "msg": "E: no apt"}, "run setup.sh: E: no apt"),
])
def test_a_hosts_failure_is_one_line_saying_why(failure, said):
    assert run.reason(failure).startswith(said)


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


def test_a_dry_run_says_each_hosts_plan_and_contacts_none(tmp_path):
    hosts = inventory.hosts_of(LISTING, "hosts.ini")
    said = []
    run.run(hosts, run.Job("doublewrite", "quick"), "hosts.ini", said.append,
            workdir=tmp_path, dry_run=True)
    text = "\n".join(said)
    assert "db1: bench@10.0.0.11, work directory /var/tmp/tl" in text
    assert "--device=/dev/nvme1n1 --destroy-data" in text and "erases /dev/nvme1n1 on db1" in text
    assert "(as contributions)" in text and "dry run: no host was contacted" in text
    assert not (tmp_path / "fleet").exists()


def test_a_fetched_result_is_scrubbed_marked_checked_and_kept_once(tmp_path):
    name = next(p for p in committed_data_files() if p.startswith("doublewrite/"))
    source = tmp_path / name.split("/")[1]
    doc = json.loads((DATA / name).read_text())
    doc["storage"]["path"] = "/root/tuninglab-fleet/work/runs"
    doc["server"]["options_text"] = "--x API_TOKEN=s3cret"
    source.write_text(json.dumps(doc))
    host = fetched_dir(tmp_path / "db1", source)
    kept = fetch.results(host, "abcdef012345", tmp_path / "data", wanted_of(doc))
    assert [p.parent.name for p in kept] == ["doublewrite"] and kept[0].name == source.name
    text = kept[0].read_text()
    assert "/root/" not in text and "s3cret" not in text
    assert json.loads(text)["fleet"] == {"run": "abcdef012345", "host": "db1"}
    assert json.loads(text)["contribution"]["tool"] == "data.submit"   # not the project's
    assert check.check_file(kept[0], project_hosts={}) == []
    again = fetch.results(host, "abcdef012345", tmp_path / "data", wanted_of(doc))
    assert again == kept   # a resumed fleet run keeps the file it fetched
    rows = fetch.verdict_table([Host("db1", "db1")],
                               {"db1": {"status": "done", "files": [str(kept[0])]}}, tmp_path)
    assert "innodb_doublewrite=OFF" in rows and "db1" in rows


def test_a_fetched_hosts_series_carries_the_name_the_inventory_gave_it():
    doc = json.loads((DATA / next(p for p in committed_data_files()
                                      if p.startswith("doublewrite/"))).read_text())
    plain = describe.host_name(doc)
    doc["fleet"] = {"run": "abcdef012345", "host": "nvme1"}
    assert describe.host_name(doc).startswith("nvme1: ") and plain[:20] in describe.host_name(doc)


def test_ansible_runs_without_cryptographys_dsa_warning_and_keeps_the_users_filters(monkeypatch):
    monkeypatch.delenv("PYTHONWARNINGS", raising=False)
    assert playbook.environment()["PYTHONWARNINGS"] == "ignore:DSA is deprecated"
    monkeypatch.setenv("PYTHONWARNINGS", "error")
    assert playbook.environment()["PYTHONWARNINGS"] == "error,ignore:DSA is deprecated"
