"""What the fleet trusts a host with, without a network: a fetched result is the run the fleet
asked of that host, named as a result file, and a contribution unless the host is the
project's own; a host's text is printed with its control characters escaped. Host keys are
OpenSSH's (Ansible's ssh connection): test_fleet_integration.py has one refused."""

import json
import shutil
import subprocess
import sys

import pytest

from fleet.fakes import TREE, fetched_dir, source_file, wanted_of
from helpers import DATA, committed_data_files
from tuninglab.contrib import check
from tuninglab.fleet import advise_on, fetch, playbook

RUN = "abcdef012345"


@pytest.mark.parametrize("change, message", [
    ({"recipe": "direct-io"}, "a result of the recipe 'doublewrite'; the fleet ran 'direct-io'"),
    ({"variants": frozenset(["modes"])}, "a result of the variant ''; the fleet ran 'modes'"),
    ({"profile": "longer"}, "a result of the profile '[a-z]+'; the fleet ran 'longer'"),
])
def test_a_result_that_is_not_the_run_the_fleet_asked_of_the_host_is_refused(tmp_path, change,
                                                                             message):
    source, doc = source_file(tmp_path)
    assert "variant" not in doc   # the main experiment's
    host = fetched_dir(tmp_path / "db1", source)
    with pytest.raises(fetch.HostError, match=message.replace("(", r"\(")):
        fetch.results(host, RUN, tmp_path / "data", wanted_of(doc, **change))
    assert not (tmp_path / "data").exists()


def test_a_result_with_another_host_id_than_the_host_reported_is_refused(tmp_path):
    source, doc = source_file(tmp_path)
    host = fetched_dir(tmp_path / "db1", source, host_id="0123456789abcdef")
    with pytest.raises(fetch.HostError, match="db1 reported '0123456789abcdef' at the start"):
        fetch.results(host, RUN, tmp_path / "data", wanted_of(doc))


@pytest.mark.parametrize("path", [f"{TREE}/data/doublewrite/.hidden.json",
                                  f"{TREE}/data/doublewrite/a b.json",
                                  f"{TREE}/data/doublewrite/x.txt"])
def test_a_name_that_is_no_result_files_is_refused(tmp_path, path):
    source, doc = source_file(tmp_path)
    with pytest.raises(fetch.HostError, match="not a result file fetched from db1"):
        fetch.results(fetched_dir(tmp_path / "db1", source, [path]), RUN, tmp_path / "data",
                      wanted_of(doc))


def test_a_fetched_file_over_data_checks_bound_is_refused_unread(tmp_path):
    source, doc = source_file(tmp_path)
    host = fetched_dir(tmp_path / "db1", source)
    with open(host / "results" / source.name, "ab") as f:
        f.truncate(check.MAX_BYTES + 1)
    with pytest.raises(fetch.HostError, match="is not a result file: .*20,000,000"):
        fetch.results(host, RUN, tmp_path / "data", wanted_of(doc))


def test_a_hosts_result_posing_as_a_project_host_is_refused(tmp_path):
    source, doc = source_file(tmp_path)
    data = tmp_path / "data"
    own = next(p for p in committed_data_files() if p.startswith("doublewrite/"))
    (data / "doublewrite").mkdir(parents=True)
    project = data / "doublewrite" / "20200101T000000Z-project.json"
    shutil.copy(DATA / own, project)   # the project's own result of that host id
    subprocess.run(["git", "init", "-q", str(data)], check=True)
    subprocess.run(["git", "-C", str(data), "add", "."], check=True)   # tracked: the project's
    with pytest.raises(fetch.HostError, match="is the host of the project's own result|begins as"):
        fetch.results(fetched_dir(tmp_path / "db1", source), RUN, data, wanted_of(doc))
    assert sorted(p.name for p in data.glob("doublewrite/*.json")) == [project.name]


def test_the_projects_own_host_gives_results_without_a_contribution_block(tmp_path):
    source, doc = source_file(tmp_path)
    [kept] = fetch.results(fetched_dir(tmp_path / "db1", source), RUN, tmp_path / "data",
                           wanted_of(doc, project=True))
    fetched = json.loads(kept.read_text())
    assert "contribution" not in fetched and fetched["fleet"] == {"run": RUN, "host": "db1"}
    assert check.check_file(kept) == []


def test_ansibles_lines_reach_this_console_with_their_control_characters_shown(tmp_path,
                                                                              monkeypatch):
    fake = tmp_path / "ansible-playbook"   # prints what a host sent, as Ansible would pass it
    fake.write_text(f"#!{sys.executable}\nprint('a  [1/2] \\x1b[2J\\x1b]0;owned\\x07ok')\n"
                    "print('error: \\x9b31m\\u202eboom')\n")
    fake.chmod(0o755)
    monkeypatch.setattr(playbook, "tool", lambda name: str(fake))
    got = []
    assert playbook.run("fleet-run.yml", None, [], {}, got.append) == {}
    assert got == ["a  [1/2] \\x1b[2J\\x1b]0;owned\\x07ok", "error: \\x9b31m\\u202eboom"]


def test_a_hosts_advice_report_is_printed_with_its_escapes_shown(tmp_path, monkeypatch):
    monkeypatch.setenv("TUNINGLAB_WORKDIR", str(tmp_path / "work"))
    monkeypatch.setattr(advise_on.inventory, "load",
                        lambda path, limit: [advise_on.inventory.Host("db1", "db1")])
    monkeypatch.setattr(advise_on.ship, "revision", lambda repo: "f" * 40)
    monkeypatch.setattr(advise_on.ship, "archive_in", lambda repo, rev, base: base / "a.tgz")

    def played(name, inventory, hosts, extra, say):
        report = {"rc": 0, "stdout": "report \x1b[2J\nline 2\n", "stderr": ""}
        (tmp_path / "out").write_text(json.dumps(report))
        shutil.copy(tmp_path / "out", f"{extra['fetch_dir']}/db1/advise.json")
        return {}
    monkeypatch.setattr(advise_on.playbook, "run", played)
    out = []
    assert advise_on.advise_on("db1", "hosts.ini", [], out.append, print) == 0
    assert out == ["report \\x1b[2J\nline 2"]
