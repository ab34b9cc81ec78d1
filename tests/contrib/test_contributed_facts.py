"""data.check against contributions whose facts disagree (issue 77, case 5): a server version that
its --version line and its root contradict, a project machine known only from its A/A
calibration record, a million cores, a file submitted before its run ended, every time moved 300
days back (before the recipe version and the revision the file names), and text that shows
nothing or piles up marks. Each is one line naming the file, the key and what was expected."""

import copy
import datetime as dt
import json
import os
import subprocess

import pytest

from helpers import contributed, DATA, REPO, place_result as place, \
    result_problems as problems_of
from tuninglab.contrib import check, facts, history
from tuninglab.results import document

BASE = DATA / "doublewrite" / "20261121T233847Z-209a4cf4-quick.json"  # MariaDB 10.11, clean tree
MYSQL = DATA / "io-capacity" / "20261129T065905Z-acff7a7b-quick-lwm-default-542199ab.json"
SHALLOW = subprocess.run(["git", "rev-parse", "--is-shallow-repository"], cwd=REPO,
                         capture_output=True, text=True).stdout.strip() == "true"
ONE_LINE = ("expected one line of text without control characters or line separators (a line "
            "break would forge a line of the terminal's)")


def doc_of(path=BASE) -> dict:
    return json.loads(path.read_text())


# --- the server's version ------------------------------------------------------------------------

def test_a_version_its_version_line_and_its_root_contradict_is_refused(data):
    doc = contributed(doc_of(MYSQL))
    doc["server"]["version"] = "8.0.36"  # the file's --version line and root say 9.7.4
    assert facts.check_server(doc) == [
        "server/version: 8.0.36, where server/version_text says 9.7.4; expected the version the "
        "server's --version line gives",
        "server/version: mysql 8.0.36, where server/root/server is 'mysql-9.7'; expected a "
        "version of the server that root holds (its name would be 'mysql-8.0')",
        "server/version: 8.0.36, where server/root/packages/mysql-server-core is '9.7.4-2'; "
        "expected the version that package installs"]
    path = place(data.parent, doc)
    problems = check.check_paths([path], contributions=True)
    assert all(f"{path}: {line}" in problems for line in facts.check_server(doc))


def test_a_flavour_its_version_line_contradicts_and_no_version_line_are_refused():
    doc = doc_of(BASE)
    doc["server"]["flavor"] = "mysql"
    assert facts.check_server(doc) == [
        "server/flavor: 'mysql', where server/version_text is MariaDB's; expected 'mariadb'"]
    doc["server"]["version_text"] = "MySQL 9.7"
    assert facts.check_server(doc) == [
        "server/version_text: 'MySQL 9.7' is no --version line; expected what the server's "
        "--version printed (\"... Ver 10.11.19...\")"]


def test_the_committed_servers_agree_with_their_version_lines_and_roots():
    for path in (BASE, MYSQL):
        assert facts.check_server(doc_of(path)) == []


# --- a project host known only from data/calibrations/ -------------------------------------------

def test_a_host_known_only_from_a_calibration_record_is_the_projects(data):
    record = sorted((data / "calibrations").glob("*.json"))[0]
    host = json.loads(record.read_text())["host"]["id"]
    for result in data.glob(f"*/*-{host[:8]}-*.json"):  # now known from the record alone
        result.unlink()
    posing = place(data.parent, contributed(doc_of(BASE), host))
    assert check.check_paths([posing], contributions=True) == [
        f"{posing}: host/id: {host} is (or begins as) the host of the project's own A/A "
        f"calibration record calibrations/{record.name}; expected the id your own run recorded "
        "(a contribution never stands for the project's hosts)"]


def test_a_fifo_in_data_is_no_project_host_and_blocks_nothing(data):
    os.mkfifo(data / "doublewrite" / "fifo.json")  # its read would block: never opened
    own = place(data.parent, contributed(doc_of(BASE)))
    assert check.check_paths([own], contributions=True) == []


# --- cores ---------------------------------------------------------------------------------------

def test_a_million_cores_are_refused(tmp_path):
    doc = doc_of(BASE)
    doc["host"]["cores"] = 1_000_000
    path, problems = problems_of(tmp_path, doc)
    assert problems == [f"{path}: host/cores: 1e+06 is beyond what a machine measures; expected "
                        "at most 8192 (CPUs: the most a Linux kernel is built for (x86-64's "
                        "NR_CPUS))"]
    doc["host"]["cores"] = 8192
    assert problems_of(tmp_path / "ok", doc)[1] == []


def test_a_server_held_to_more_cpus_than_the_host_has_is_refused():
    doc = doc_of(BASE)
    doc["points"][0]["runs"][0]["server_cpus"] = [0, 1, 2]
    assert facts.check_cores(doc) == [
        "points/0/runs/0/server_cpus: 3 CPUs, where host/cores is 2; expected at most host/cores"]
    doc["points"][0]["runs"][0]["server_cpus"] = [0, 1]
    assert facts.check_cores(doc) == []


# --- times ---------------------------------------------------------------------------------------

def test_a_contribution_submitted_before_its_run_finished_is_refused(tmp_path):
    doc = contributed(doc_of(BASE))
    doc["contribution"]["submitted"] = "2026-11-21T23:30:00+00:00"  # the run finished 23:43:10
    path, problems = problems_of(tmp_path, doc)
    assert problems == [f"{path}: contribution/submitted: 2026-11-21T23:30:00+00:00 is before "
                        "finished 2026-11-21T23:43:10+00:00; expected the time invoke "
                        "data.submit prepared the file, after the run finished (5 minutes of "
                        "clock skew allowed)"]
    doc["contribution"]["submitted"] = "2026-11-21T23:39:10+00:00"  # 4 minutes early: skew
    assert problems_of(tmp_path / "skew", doc)[1] == []


def moved(doc: dict, delta: dt.timedelta) -> dict:
    """doc with every timestamp moved by delta."""
    doc = copy.deepcopy(doc)

    def move(holder, key):
        t = document.parse_time(holder[key])
        holder[key] = (t + delta).isoformat(timespec="seconds")
    for key in ("started", "finished"):
        move(doc, key)
    for point in doc["points"]:
        for run in point["runs"]:
            move(run, "started")
            move(run, "finished")
    if "contribution" in doc:
        move(doc["contribution"], "submitted")
    return doc


@pytest.mark.skipif(SHALLOW, reason="needs the recipes' git history")
def test_every_time_moved_before_the_recipe_version_and_revision_is_refused(tmp_path):
    doc = moved(contributed(doc_of(BASE)), -dt.timedelta(days=300))
    revision, sha = doc["software"]["project"]["revision"], doc["recipe"]["sha256"]
    version = history.recipe_versions("doublewrite")[0][sha]
    committed = history.revision_time(revision)
    path, problems = problems_of(tmp_path, doc)
    expected = ("; expected a run after the recipe version and revision it names existed (a "
                "day of clock error allowed)")
    assert problems == [check.one_line(line) for line in (  # long lines: cut in the middle
        f"{path}: started: {doc['started']} is before "
        f"{version.written.isoformat(timespec='seconds')}, the author date of commit "
        f"{version.commit[:12]}, the first in recipes/doublewrite/recipe.toml's history to hold "
        f"recipe/sha256 {sha[:12]}{expected}",
        f"{path}: started: {doc['started']} is before {committed.isoformat(timespec='seconds')}"
        f", the committer date of software/project/revision {revision[:12]}, the commit the run "
        f"ran from{expected}")]
    assert history.check_dates(doc)[1].endswith(f"ran from{expected}")
    assert problems_of(tmp_path / "day", moved(doc_of(BASE), -dt.timedelta(hours=20)))[1] == []


@pytest.mark.skipif(SHALLOW, reason="needs the recipes' git history")
def test_an_edited_tree_is_held_to_the_version_it_was_edited_from():
    doc = moved(doc_of(BASE), -dt.timedelta(days=300))
    doc["software"]["project"].update(dirty=True, revision="f" * 40)  # a revision not here
    version = history.recipe_versions("doublewrite")[0][doc["recipe"]["sha256"]]
    found = history.check_dates(doc)
    if version.edited_from is None:  # the file's first version: nothing it was edited from
        assert found == []
    else:
        [line] = found
        assert f"the author date of commit {version.edited_from[0][:12]}, which holds the " \
               "version of recipes/doublewrite/recipe.toml that recipe/sha256 " in line
        assert "(software/project/dirty: the run's tree was edited)" in line


def test_a_revision_is_never_handed_to_git_unless_it_is_a_commit_hash():
    assert history.revision_time("--output=/tmp/x") is None
    assert history.revision_time(None) is None
    assert history.revision_time("0" * 40) is None  # no such commit here


# --- text that shows nothing ---------------------------------------------------------------------

INVISIBLE = ("expected text without characters that show nothing (Unicode's default-ignorable "
             "code points)")


@pytest.mark.parametrize("text, problem", [
    ("AMD\u2028EPYC", f"line separator U+2028 at character 3; {ONE_LINE}"),
    ("AMD\u3164EPYC", f"invisible character U+3164 (HANGUL FILLER) at character 3; {INVISIBLE}"),
    ("\u115fAMD", f"invisible character U+115F (HANGUL CHOSEONG FILLER) at character 0; "
                  f"{INVISIBLE}"),
    ("AMD\ufe0f", f"invisible character U+FE0F (VARIATION SELECTOR-16) at character 3; "
                  f"{INVISIBLE}"),
    ("AMD" + "\u0301" * 50, "50 combining marks on the character at 2; expected at most 3 on "
                            "one character (more are no script's, only a pile drawn over the "
                            "lines around it)"),
    ("\u0301AMD", "combining mark U+0301 (COMBINING ACUTE ACCENT) at character 0, on no "
                  "character; expected a mark after the letter it belongs to"),
])
@pytest.mark.parametrize("key", [("host", "cpu_model"), ("contribution", "description")])
def test_invisible_characters_and_piled_marks_are_refused(tmp_path, key, text, problem):
    doc = contributed(doc_of(BASE))
    doc[key[0]][key[1]] = text
    path, problems = problems_of(tmp_path, doc)
    assert problems == [f"{path}: {'/'.join(key)}: {problem}"]
    assert all(c not in "".join(problems) for c in "\u2028\u3164\u115f\ufe0f\u0301")


@pytest.mark.parametrize("text", ["Intel(R) Xeon(R) Gold 6338 @ 2.00GHz", "Máy chủ của tôi",
                                  "Vie\u0323\u0302t", "मेरा सर्वर", "서버 ±3% µs"])
def test_text_of_any_script_passes(tmp_path, text):
    doc = contributed(doc_of(BASE))
    doc["contribution"]["description"] = text
    assert problems_of(tmp_path, doc)[1] == []
