"""What the fleet trusts a host with, without a network (issue 57, item 6): an inventory is a
small regular file and keeps its work directories out of hidden and home directories; a
fetched result is the run the fleet asked of that host, asked for its size before it is read,
and a contribution unless the host is the project's own; remote text is printed with its
control characters escaped; an unknown or changed host key is refused (one line each). The
same with real SSH servers is in test_fleet_hostkeys.py."""

import json
import os
import shutil
import stat
import subprocess

import paramiko
import pytest
from fabric import Connection
from fabric.testing.base import Command, MockRemote, Session

from fleet.fakes import FakeRemote, wanted_of
from helpers import DATA, committed_data_files
from tuninglab.contrib import check
from tuninglab.errors import UserError
from tuninglab.fleet import advise_on, fetch, hostkeys, inventory, remote, run
from tuninglab.fleet.inventory import Host
from tuninglab.fleet.remote import HostError

RUN = "abcdef012345"


def _conn():
    return Connection("db1", user="root", port=22)


# --- the inventory ------------------------------------------------------------------------------

@pytest.mark.parametrize("kind", ["/dev/zero", "fifo", "directory"])
def test_an_inventory_that_is_no_regular_file_is_one_line(tmp_path, kind):
    path = {"/dev/zero": "/dev/zero", "fifo": str(tmp_path / "fifo"),
            "directory": str(tmp_path)}[kind]
    if kind == "fifo":
        os.mkfifo(path)   # opened without O_NONBLOCK, reading it would wait for a writer
    with pytest.raises(UserError) as info:
        inventory.hosts(None, path)
    message = str(info.value)
    assert message.startswith(f"{path}: ") and "\n" not in message
    assert "not a regular file" in message or "cannot read the inventory" in message


def test_an_inventory_over_its_bound_is_refused_unread(tmp_path):
    path = tmp_path / "fleet.toml"
    path.write_text('[hosts.a]\naddress = "10.0.0.1"\n' + "#" * inventory.MAX_INVENTORY)
    with pytest.raises(UserError, match=r"fleet\.toml: over 1024 KiB; expected an inventory"):
        inventory.hosts(None, str(path))


@pytest.mark.parametrize("workdir", ["/root/.ssh", "~/.ssh", ".ssh", ".config/tuninglab",
                                     "/home/bench/.local/tl", "/srv/tl/.git"])
def test_a_workdir_in_a_hidden_directory_is_refused(tmp_path, workdir):
    path = tmp_path / "fleet.toml"
    path.write_text(f'[hosts.a]\nworkdir = "{workdir}"\n')
    with pytest.raises(UserError, match="expected a directory of its own for the fleet, not in "
                                        "a hidden directory") as info:
        inventory.hosts(None, str(path))
    assert "~/.ssh, ~/.config and their like hold keys and settings" in str(info.value)


@pytest.mark.parametrize("workdir", ["/home/bench", "/home/bench/", "/Users/bench"])
def test_a_workdir_that_is_a_home_directory_itself_is_refused(tmp_path, workdir):
    path = tmp_path / "fleet.toml"
    path.write_text(f'[hosts.a]\nworkdir = "{workdir}"\n')
    with pytest.raises(UserError, match="not a home directory itself"):
        inventory.hosts(None, str(path))


def test_an_inventory_names_a_known_hosts_file_and_the_projects_own_hosts(tmp_path):
    path = tmp_path / "fleet.toml"
    path.write_text('[defaults]\nknown_hosts = "~/lab/known_hosts"\n'
                    '[hosts.lab1]\nproject = true\n[hosts.cloud1]\nknown_hosts = "/k"\n')
    lab1, cloud1 = inventory.hosts(None, str(path))
    assert (lab1.known_hosts, lab1.project) == ("~/lab/known_hosts", True)
    assert (cloud1.known_hosts, cloud1.project) == ("/k", False)
    assert inventory.hosts("db1", None)[0].project is False   # --hosts: never the project's
    path.write_text('[hosts.a]\nproject = "yes"\n')
    with pytest.raises(UserError, match="hosts.a.project: expected"):
        inventory.hosts(None, str(path))


# --- what a host's result must be ---------------------------------------------------------------

def _source(tmp_path, **changes):
    """A committed doublewrite result as a host's file, with changes made to it."""
    name = next(p for p in committed_data_files() if p.startswith("doublewrite/"))
    doc = json.loads((DATA / name).read_text())
    doc.update(changes)
    source = tmp_path / name.split("/")[1]
    source.write_text(json.dumps(doc))
    return source, doc


@pytest.mark.parametrize("change, message", [
    ({"recipe": "direct-io"}, "a result of the recipe 'doublewrite'; the fleet ran 'direct-io'"),
    ({"variants": frozenset(["modes"])}, "a result of the variant ''; the fleet ran 'modes'"),
    ({"profile": "longer"}, "a result of the profile '[a-z]+'; the fleet ran 'longer'"),
    ({"host_id": "0123456789abcdef"}, "db1 reported '0123456789abcdef' at the start of the run"),
])
def test_a_result_that_is_not_the_run_the_fleet_asked_of_the_host_is_refused(tmp_path, change,
                                                                             message):
    source, doc = _source(tmp_path)
    assert "variant" not in doc   # the main experiment's
    wanted = wanted_of(doc, **change)
    host = FakeRemote(source, [f"{FakeRemote.tree}/data/{wanted.recipe}/{source.name}"])
    with pytest.raises(HostError, match=message.replace("(", r"\(")):
        fetch.results(host, RUN, tmp_path / "data", wanted)
    assert not (tmp_path / "data").exists()


@pytest.mark.parametrize("path", ["/etc/shadow.json", "/root/x/data/doublewrite/a.json",
                                  f"{FakeRemote.tree}/data/doublewrite/../../../a.json",
                                  f"{FakeRemote.tree}/data/doublewrite/sub/a.json",
                                  f"{FakeRemote.tree}/data/direct-io/a.json"])
def test_a_file_outside_the_trees_results_of_the_recipe_is_never_fetched(tmp_path, path):
    source, doc = _source(tmp_path)
    with pytest.raises(HostError, match="not a result file of doublewrite; expected one in "):
        fetch.results(FakeRemote(source, [path]), RUN, tmp_path / "data", wanted_of(doc))


def test_a_hosts_result_posing_as_a_project_host_is_refused(tmp_path):
    source, doc = _source(tmp_path)
    data = tmp_path / "data"
    own = next(p for p in committed_data_files() if p.startswith("doublewrite/"))
    (data / "doublewrite").mkdir(parents=True)
    project = data / "doublewrite" / "20200101T000000Z-project.json"
    shutil.copy(DATA / own, project)   # the project's own result of that host id
    subprocess.run(["git", "init", "-q", str(data)], check=True)
    subprocess.run(["git", "-C", str(data), "add", "."], check=True)   # tracked: the project's
    with pytest.raises(HostError, match="is the host of the project's own result|begins as"):
        fetch.results(FakeRemote(source), RUN, data, wanted_of(doc))
    assert sorted(p.name for p in data.glob("doublewrite/*.json")) == [project.name]


def test_the_projects_own_host_gives_results_without_a_contribution_block(tmp_path):
    source, doc = _source(tmp_path)
    [kept] = fetch.results(FakeRemote(source), RUN, tmp_path / "data",
                           wanted_of(doc, project=True))
    fetched = json.loads(kept.read_text())
    assert "contribution" not in fetched and fetched["fleet"] == {"run": RUN, "host": "db1"}
    assert check.check_file(kept) == []


class FakeSftp:
    """An SFTP session of a host whose file has attrs (size and mode) and data."""

    def __init__(self, size, mode=stat.S_IFREG | 0o644, data=b"{}"):
        self.attrs = paramiko.SFTPAttributes()
        self.attrs.st_size, self.attrs.st_mode, self.data = size, mode, data
        self.opened = self.asked = 0

    def stat(self, path=None):   # the path's, or (without) the opened file's
        self.asked += 1
        return self.attrs

    def open(self, path, mode):
        self.opened += 1
        return self

    def read(self, size):
        return self.data[:size]

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        pass


def _remote_with(sftp):
    with MockRemote() as mock:
        mock.expect(commands=[Command(out=b"/root\n")])
        r = remote.Remote(Host("db1", "db1", "root"), "f" * 40, _conn())
    r.conn.sftp = lambda: sftp
    return r


@pytest.mark.parametrize("sftp, message", [
    (FakeSftp(2 << 30), "2,147,483,648 bytes; expected a result file of at most 20,000,000"),
    (FakeSftp(0, stat.S_IFCHR | 0o666), "not a regular file"),
    (FakeSftp(0, stat.S_IFIFO | 0o644), "not a regular file"),
])
def test_a_remote_file_is_asked_its_size_and_kind_before_it_is_opened(tmp_path, sftp, message):
    r = _remote_with(sftp)
    with pytest.raises(HostError, match=message):
        r.fetch("/t/data/doublewrite/a.json", tmp_path / "a.json", check.MAX_BYTES)
    assert (sftp.asked, sftp.opened) == (1, 0) and not (tmp_path / "a.json").exists()


def test_a_remote_file_that_grows_past_the_bound_is_read_no_further(tmp_path):
    sftp = FakeSftp(10, data=b"x" * 5000)   # small when asked, large when read
    with pytest.raises(HostError, match="grew past 1,000 bytes while read"):
        _remote_with(sftp).fetch("/t/a.json", tmp_path / "a.json", 1000)
    sftp = FakeSftp(2, data=b"{}")
    assert _remote_with(sftp).fetch("/t/a.json", tmp_path / "a.json", 1000).read_text() == "{}"


# --- remote text here ----------------------------------------------------------------------------

def test_remote_lines_reach_this_console_with_their_control_characters_shown():
    got = []
    lines = remote.Lines(got.append)
    lines.write("[1/2] \x1b[2J\x1b]0;owned\x07ok\r\nerror: \x9b31m\u202eboom\n")
    assert got == ["[1/2] \\x1b[2J\\x1b]0;owned\\x07ok", "error: \\x9b31m\\u202eboom"]
    lines.write("x" * (remote.MAX_LINE * 2 + 5))   # a line without end is handed on in pieces
    assert [len(line) for line in got[2:]] == [remote.MAX_LINE, remote.MAX_LINE]
    assert run.reason(HostError("setup.sh failed: \x1b[31mred")) == \
        "setup.sh failed: \\x1b[31mred"


def test_a_hosts_last_error_and_facts_are_shown_with_their_escapes():
    host = Host("db1", "db1", "root", workdir="/srv/tl")
    with MockRemote() as mock:
        mock.expect(commands=[Command(out=b"/root\n"), Command(out=b"error: \x1b[5mboom\n")])
        r = remote.Remote(host, "f" * 40, _conn())
        assert r.last_error("abc") == "error: \\x1b[5mboom"
    with MockRemote() as mock:
        mock.expect(commands=[Command(out=b"/root\n"), Command(out=b"os=\x1b[31mDebian\n"),
                              Command(exit=1)])
        r = remote.Remote(host, "f" * 40, _conn())
        assert r.probe()["os"] == "\\x1b[31mDebian"


def test_a_hosts_advice_report_is_printed_with_its_escapes_shown(tmp_path, monkeypatch):
    monkeypatch.setenv("TUNINGLAB_WORKDIR", str(tmp_path / "work"))
    path = tmp_path / "fleet.toml"
    path.write_text('[hosts.db1]\naddress = "10.0.0.11"\n')
    repo = tmp_path / "repo"
    repo.mkdir()
    (repo / "setup.sh").write_text("#!/bin/sh\n")
    for args in (["init", "-q"], ["add", "."], ["-c", "user.name=t", "-c", "user.email=t@t",
                                                "commit", "-qm", "a revision"]):
        subprocess.run(["git", "-C", str(repo), *args], check=True)
    out = []
    with MockRemote() as mock:
        mock.expect(commands=[Command(out=b"/root\n"), Command(),   # home; the tree is ready
                              Command(out=b"report \x1b[2J\nline 2\n")])
        status = advise_on.advise_on("db1", str(path), [], None, out.append, print, repo=repo,
                                     connector=lambda host: _conn())
    assert status == 0 and out == ["report \\x1b[2J\nline 2"]


def test_a_host_id_is_what_the_host_reports_from_its_tree():
    host = Host("db1", "db1", "root", workdir="/srv/tl")
    for out, expected in [(b"0123456789abcdef\n", "0123456789abcdef"), (b"\x1b[2J\n", None)]:
        with MockRemote() as mock:
            channel = mock.expect_sessions(Session(commands=[Command(out=b"/root\n"),
                                                             Command(out=out)]))[1]
            r = remote.Remote(host, "f" * 40, _conn())
            if expected:
                assert r.host_id() == expected
            else:
                with pytest.raises(HostError, match=r"no host id \(it said '\\\\x1b\[2J'\)"):
                    r.host_id()
        sent = channel.exec_command.call_args.args[0]
        assert "cd /srv/tl/trees/ffffffffffff && TUNINGLAB_WORKDIR=/srv/tl/work" in sent
        assert "provenance import host_id" in sent


# --- host keys ----------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def key():
    return paramiko.RSAKey.generate(1024)


def test_an_unknown_host_key_is_refused_saying_how_to_add_it(key):
    host = Host("db1", "10.0.0.11", "root", 2222)
    policy = hostkeys.RefuseUnknown("10.0.0.11", 2222, host, [])
    with pytest.raises(hostkeys.HostKeyError) as info:
        policy.missing_host_key(None, "[10.0.0.11]:2222", key)
    message = str(info.value)
    assert message.startswith("unknown host key for [10.0.0.11]:2222: it offers ssh-rsa "
                              f"{key.fingerprint}") and "\n" not in message
    assert "ssh-keyscan -p 2222 10.0.0.11 >> ~/.ssh/known_hosts (or connect once with ssh)" \
        in message
    mine = hostkeys.RefuseUnknown("10.0.0.11", 22, Host("db1", "10.0.0.11", "root",
                                                        known_hosts="/lab/kh"), [])
    with pytest.raises(hostkeys.HostKeyError, match="-p 22 10.0.0.11 >> /lab/kh"):
        mine.missing_host_key(None, "10.0.0.11", key)


def test_a_changed_host_key_is_refused_loudly(key):
    other = paramiko.RSAKey.generate(1024)
    error = hostkeys.changed(paramiko.BadHostKeyException("10.0.0.11", key, other), 2222)
    assert str(error).startswith(f"HOST KEY CHANGED for [10.0.0.11]:2222: it offers ssh-rsa "
                                 f"{key.fingerprint}, known_hosts holds ssh-rsa "
                                 f"{other.fingerprint}. Someone may be intercepting")
    assert "ssh-keygen -R '[10.0.0.11]:2222'" in str(error)


def test_a_known_hosts_file_the_inventory_names_must_exist(tmp_path, monkeypatch):
    monkeypatch.setenv("HOME", str(tmp_path))
    with pytest.raises(hostkeys.HostKeyError, match="known_hosts /nowhere/kh: no such file"):
        hostkeys.files(Host("db1", "db1", "root", known_hosts="/nowhere/kh"))
    (tmp_path / ".ssh").mkdir()
    (tmp_path / ".ssh" / "known_hosts").write_text("")
    assert tmp_path / ".ssh" / "known_hosts" in hostkeys.files(Host("db1", "db1", "root"))
