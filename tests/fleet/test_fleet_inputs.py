"""What a fleet command takes as given, refused before Ansible runs anything or before a file is
kept (issue 77): an inventory variable is data, never a Jinja template; a work directory is
never a system directory, a live server's data or the package state, on this side over the
inventory's text and on the host once resolved (ansible/where.sh); a device is a /dev/ path
spelt as itself; the playbooks take the values checked here, never the inventory's text; a
fetched result names the recipe file and revision the fleet shipped; one host id is one host;
a broken inventory is one line naming it. ansible-inventory itself is run on small files
(a second each), as the fleet commands run it."""

import hashlib
import json
import subprocess
import sys
from pathlib import Path

import pytest

from fleet.fakes import fetched_dir, source_file, wanted_of
from helpers import REPO
from tuninglab.errors import UserError
from tuninglab.fleet import fetch, inventory, places, playbook, run, ship
from tuninglab.fleet.inventory import Host

WHERE = REPO / "ansible" / "where.sh"
REV = "c" * 40


def _host(variables: dict) -> Host:
    return inventory.hosts_of({"_meta": {"hostvars": {"h": variables}}, "g": {"hosts": ["h"]}},
                              "hosts.ini")[0]


@pytest.mark.parametrize("key, value", [
    ("tuninglab_workdir", "tl{{ lookup('pipe','touch FILE') }}"),
    ("tuninglab_workdir", "{{ '/etc' }}/tl"),
    ("tuninglab_workdir", "tl{% if true %}x{% endif %}"),
    ("tuninglab_workdir", "tl{# a comment #}"),
    ("tuninglab_devices", ["/dev/sdb", "/dev/{{ disk }}"]),
    ("tuninglab_devices", "/dev/sdb,{{ more }}"),
    ("tuninglab_destroy_data", "{{ true }}"),
    ("tuninglab_project", "{{ 'yes' }}"),
    ("ansible_host", "{{ lookup('pipe', 'id') }}"),
    ("ansible_user", "{{ lookup('env', 'USER') }}"),
    ("ansible_port", "{{ 22 }}"),
])
def test_a_template_in_a_variable_the_fleet_reads_is_refused(key, value):
    with pytest.raises(UserError) as err:
        _host({key: value, "tuninglab_destroy_data": True} if key == "tuninglab_devices"
              else {key: value})
    assert str(err.value).startswith(f"hosts.ini: host h: {key}: ")
    assert "holds a Jinja template" in str(err.value) and "\n" not in str(err.value)


def test_a_template_in_a_variable_the_fleet_does_not_read_is_ansibles_business():
    assert _host({"ansible_ssh_common_args": "{{ lookup('env', 'X') }}"}).workdir == \
        places.DEFAULT_WORKDIR


def test_a_misspelt_fleet_variable_is_refused_not_ignored():
    with pytest.raises(UserError, match="host h: tuninglab_device: not a variable of the "
                                        "fleet's; expected one of tuninglab_workdir, "):
        _host({"tuninglab_device": "/dev/sdb"})


@pytest.mark.parametrize("workdir", [
    "/var/lib/mysql", "/var/lib/mysql/", "/var/lib/mysql/tl", "/var/lib/mysql-files/tl",
    "/var/lib/mariadb", "/var/lib/dpkg/tl", "/usr/local/tl", "/boot/tl", "/efi", "/var/run/tl",
    "/lost+found", "/srv/../etc/tl", "/var/tmp/../lib/mysql", "~/../../etc/tl", "tl\x1b[2J",
    "tl\u202e", "~",
])
def test_a_workdir_in_the_systems_or_a_servers_data_is_refused(workdir):
    assert places.workdir_problem(workdir) is not None


def test_the_datadir_refusal_names_it():
    with pytest.raises(UserError, match=r"host h: tuninglab_workdir: expected a directory of "
                                        r"its own for the fleet, not in /var/lib/mysql \(a live "
                                        r"server's data, .*\), got '/var/lib/mysql/tl'"):
        _host({"tuninglab_workdir": "/var/lib/mysql/tl"})


@pytest.mark.parametrize("workdir", ["/var/lib/tuninglab", "/var/lib/mysqlbench/tl",
                                     "/srv/mysql-fleet", "tl/runs"])
def test_a_workdir_beside_them_is_kept(workdir):
    assert places.workdir_problem(workdir) is None


@pytest.mark.parametrize("devices", [["/dev/../etc/passwd"], "/dev/../etc/passwd",
                                     ["/dev/./sdb"], ["/dev//sdb"], ["/dev/sdb/"],
                                     ["/dev/.hidden"], ["/dev/"], ["/dev"], "/dev/sdb,/etc/x",
                                     [["/dev/sdb"]], {"a": "/dev/sdb"}])
def test_a_device_that_is_not_a_dev_path_spelt_as_itself_is_refused(devices):
    with pytest.raises(UserError, match=r"host h: tuninglab_devices: expected block devices as "
                                        r"/dev/NAME .*no '.', '..' or '//'\), got "):
        _host({"tuninglab_devices": devices, "tuninglab_destroy_data": True})


def test_a_device_under_a_dev_directory_is_kept():
    host = _host({"tuninglab_devices": "/dev/disk/by-id/nvme-X_1, /dev/md0",
                  "tuninglab_destroy_data": "true"})
    assert host.devices == ("/dev/disk/by-id/nvme-X_1", "/dev/md0")


def test_a_hosts_target_reaches_the_terminal_visible():
    assert _host({"ansible_host": "10.0.0.1\x1b[2J"}).target == "10.0.0.1\\x1b[2J"


def test_the_playbooks_get_the_checked_values_and_read_no_fleet_variable(tmp_path,
                                                                          monkeypatch):
    fake = tmp_path / "ansible-playbook"   # keeps the extra vars file it was given
    fake.write_text(f"#!{sys.executable}\nimport sys, shutil\n"
                    f"shutil.copy(sys.argv[sys.argv.index('-e') + 1][1:], {str(tmp_path)!r} + "
                    "'/vars.json')\n")
    fake.chmod(0o755)
    monkeypatch.setattr(playbook, "tool", lambda name: str(fake))
    hosts = [Host("db1", "db1", "~/tl", ("/dev/sdb",)), Host("db2", "db2")]
    assert playbook.run("fleet-run.yml", None, hosts, {"rev": REV}, print) == {}
    given = json.loads((tmp_path / "vars.json").read_text())
    assert given["rev"] == REV and given["fleet_hosts"] == {
        "db1": {"workdir": "~/tl", "devices": ["/dev/sdb"]},
        "db2": {"workdir": "tuninglab-fleet", "devices": []}}
    refused = given["fleet_refused"]
    assert "/etc" in refused[:refused.index("=")] and "/var/lib/mysql" in refused
    assert "/var/tmp" in refused[refused.index("="):]
    for path in [*(REPO / "ansible").glob("*.yml"), *(REPO / "ansible" / "tasks").glob("*.yml")]:
        code = [line for line in path.read_text().splitlines()
                if not line.lstrip().startswith("#")]
        assert not [line for line in code if "tuninglab_" in line], path


def _where(workdir: str, home: Path) -> tuple[int, str, str]:
    """where.sh as tasks/where.yml runs it: its text on `sh -s`, with the refused lists."""
    args = places.playbook_vars([])["fleet_refused"]
    done = subprocess.run(["sh", "-s", "--", workdir, *args], input=WHERE.read_text(),
                          capture_output=True, text=True, env={"HOME": str(home),
                                                               "PATH": "/usr/bin:/bin"},
                          timeout=30)
    return done.returncode, done.stdout.strip(), done.stderr.strip()


def test_where_resolves_the_work_directory_on_the_host(tmp_path):
    home = tmp_path / "home"
    home.mkdir()
    assert _where("tl", home) == (0, str(home / "tl"), "")
    assert _where("~/tl/", home) == (0, str(home / "tl"), "")
    assert _where(str(tmp_path / "abs"), home) == (0, str(tmp_path / "abs"), "")


@pytest.mark.parametrize("setup, workdir, said", [
    (lambda home: (home / "etc").symlink_to("/etc"), "etc/tl", "/etc/tl here, in /etc"),
    (lambda home: (home / "ibdata1").touch(), "tl", "in a database server's data directory"),
    (lambda home: (home / "d").mkdir() or (home / "d" / "mysql.ibd").touch(), "d/x/y",
     "holds mysql.ibd"),
    (lambda home: (home / "root").symlink_to("/"), "root", "a system or shared directory"),
    (lambda home: (home / "me").symlink_to(home), "me", "the home directory itself"),
])
def test_where_refuses_what_the_directory_resolves_to_there(tmp_path, setup, workdir, said):
    home = tmp_path / "home"
    home.mkdir()
    setup(home)
    code, out, err = _where(workdir, home)
    assert (code, out) == (1, "") and said in err and err.count("\n") == 0
    assert err.startswith(f"work directory {workdir}: ")


def test_where_sh_holds_no_jinja_for_ansible_to_template():
    assert inventory.TEMPLATE.search(WHERE.read_text()) is None


def _result(tmp_path, **project):
    source, doc = source_file(tmp_path)
    doc["software"]["project"] = {"revision": REV, "dirty": False, **project}
    source.write_text(json.dumps(doc))
    return fetched_dir(tmp_path / "db1", source), doc


@pytest.mark.parametrize("project, changed, message", [
    ({}, {"recipe_sha256": "0" * 64}, f"its recipe sha256 is '[0-9a-f]{{64}}'; the recipe file "
                                      f"the fleet shipped at {REV[:12]} is '{'0' * 64}'"),
    ({"revision": "d" * 40}, {}, f"it names the project revision '{'d' * 40}'; the fleet "
                                 f"shipped '{REV}'"),
    ({"dirty": True}, {}, f"it names the project revision '{REV}' with changes; the fleet"),
    ({"revision": None, "dirty": None}, {}, "it names the project revision None; the fleet"),
])
def test_a_result_of_another_recipe_file_or_revision_than_shipped_is_refused(tmp_path, project,
                                                                             changed, message):
    host, doc = _result(tmp_path, **project)
    wanted = wanted_of(doc, **{"revision": REV, **changed})
    with pytest.raises(fetch.HostError, match=message):
        fetch.results(host, "abcdef012345", tmp_path / "data", wanted)
    assert not (tmp_path / "data").exists()


def test_the_shipped_recipe_is_hashed_as_the_revision_holds_it(tmp_path):
    repo = tmp_path / "repo"
    (repo / "recipes" / "x").mkdir(parents=True)
    text = b"title = 'x'\r\nquestion = 'y'\r\n"   # its bytes, line ends and all
    (repo / "recipes" / "x" / "recipe.toml").write_bytes(text)
    git = ["git", "-C", str(repo), "-c", "user.name=t", "-c", "user.email=t@t"]
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    subprocess.run(git + ["add", "."], check=True)
    subprocess.run(git + ["commit", "-qm", "x"], check=True)
    rev = ship.head(repo)
    (repo / "recipes" / "x" / "recipe.toml").write_text("changed since\n")
    assert ship.recipe_sha256(repo, rev, "x") == hashlib.sha256(text).hexdigest()
    with pytest.raises(UserError, match="git show in .* failed: .*recipes/nope/recipe.toml"):
        ship.recipe_sha256(repo, rev, "nope")


def _reported(fetched: Path, ids: dict) -> None:
    for name, host_id in ids.items():
        (fetched / name).mkdir(parents=True)
        (fetched / name / "manifest.json").write_text(json.dumps({"host_id": host_id,
                                                                  "written": []}))


def test_two_hosts_that_report_one_host_id_are_refused_naming_both(tmp_path):
    hosts = [Host(n, n) for n in ("a", "b", "c")]
    _reported(tmp_path, {"a": "1111222233334444", "b": "1111222233334444",
                         "c": "5555666677778888"})
    refused = run.shared_ids(hosts, hosts, {}, tmp_path)
    assert sorted(refused) == ["a", "b"]
    assert refused["a"].startswith("a and b reported one host id (1111222233334444): one host "
                                   "id is one machine; name each machine once")


def test_a_host_that_reports_the_id_of_one_done_earlier_is_refused(tmp_path):
    hosts = [Host("a", "a"), Host("b", "b")]
    _reported(tmp_path, {"b": "1111222233334444"})
    done = {"a": {"status": "done", "files": [], "host_id": "1111222233334444"}}
    assert list(run.shared_ids(hosts, hosts[1:], done, tmp_path)) == ["b"]   # a's are kept
    assert run.shared_ids(hosts, hosts[1:], {"a": {"status": "done", "files": []}},
                          tmp_path) == {}   # a state file from before host ids were kept


def test_a_missing_inventory_file_is_one_line(tmp_path):
    with pytest.raises(UserError, match=f"^{tmp_path}/hosts.ini: no such file or directory; "
                                        "expected an Ansible inventory"):
        inventory.load(str(tmp_path / "hosts.ini"))


needs_ansible = pytest.mark.skipif(
    not (Path(sys.executable).parent / "ansible-inventory").exists(),
    reason="ansible-core is not installed beside this Python (./setup.sh installs it)")


@needs_ansible
def test_a_broken_ini_inventory_is_one_line_naming_the_file_not_no_hosts(tmp_path):
    path = tmp_path / "hosts.ini"
    path.write_text("[lab]\ndb1 ansible_host=10.0.0.1\ndb2 ansible_host\n")
    with pytest.raises(UserError) as err:
        inventory.load(str(path))
    said = str(err.value)
    assert said.startswith(f"{path}") and "no hosts" not in said and "\n" not in said
    assert "ansible_host" in said   # Ansible's own reason


@needs_ansible
def test_a_template_in_a_real_inventory_is_refused_before_ansible_runs_it(tmp_path):
    made = tmp_path / "made"
    path = tmp_path / "hosts.yml"
    path.write_text("all:\n  hosts:\n    db1:\n      tuninglab_workdir: \"tl{{ lookup('pipe', "
                    f"'touch {made}') }}}}\"\n")
    with pytest.raises(UserError, match="host db1: tuninglab_workdir: .* holds a Jinja"):
        inventory.load(str(path))
    assert not made.exists()
