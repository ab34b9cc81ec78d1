"""data.submit: a result from someone's machine, its paths made to name a user (alice), comes out
in data/<recipe>/ without her names, marked as contributed, passing data.check; and every bad
input is refused without writing anything."""

import datetime as dt
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from helpers import DATA, REPO, committed_data_files
from tuninglab.contrib import check, scrub, submit
from tuninglab.errors import UserError
from tuninglab.results import document, stats

# A storage recipe: sandbox mount points, backing files, a redo log directory in the effective
# variables, and a top-level storage/path in the run's work directory.
REAL = DATA / "logs-separate" / "20261122T061044Z-209a4cf4-quick.json"
RUN_WORKDIR = "/srv/alice-lab/work"  # a --workdir outside her home: found from the result
MYSQLD = "/home/alice/mysql-8.4/bin/mysqld"


def alice_doc() -> dict:
    """The real result as if alice ran it: her work directory, her own server build."""
    text = REAL.read_text()
    engine_workdir = json.loads(text)["storage"]["path"].removesuffix("/runs")
    doc = json.loads(text.replace(engine_workdir + "/", RUN_WORKDIR + "/"))
    doc["server"]["path"] = MYSQLD
    doc["server"]["version_text"] = doc["server"]["version_text"].replace("/usr/sbin/mariadbd",
                                                                          MYSQLD)
    doc["points"][0]["runs"][0]["effective"]["innodb_tmpdir"] = "/home/alice/tmp"
    return doc


@pytest.fixture(autouse=True)
def machine(tmp_path, monkeypatch):
    """This machine's work directory and home are not alice's: her paths are found from the
    result and from /home/NAME."""
    monkeypatch.setenv("TUNINGLAB_WORKDIR", str(tmp_path / "work"))
    monkeypatch.setenv("HOME", str(tmp_path / "home"))


def incoming(tmp_path, doc) -> Path:
    path = tmp_path / "incoming" / REAL.name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(doc))
    return path


def run(tmp_path, doc=None, **options) -> tuple[Path, list[str]]:
    """Submit doc (alice's by default) into tmp_path/data; the written file and the output."""
    lines = []
    target = submit.submit(incoming(tmp_path, doc or alice_doc()), data_dir=tmp_path / "data",
                           say=lines.append, **options)
    return target, lines


# --- what is stripped and what is kept ----------------------------------------------------------

def test_paths_under_home_and_work_directories_are_replaced(tmp_path):
    target, lines = run(tmp_path)
    assert target == tmp_path / "data" / "logs-separate" / REAL.name
    text = target.read_text()
    assert "alice" not in text
    doc = json.loads(text)
    run0 = doc["points"][0]["runs"][0]
    assert doc["storage"]["path"] == "<workdir>/runs"
    assert run0["storage"]["mount_point"] == "<workdir>/sandboxes/storage.logs=same-r1"
    assert run0["storage"]["backing_file"] == "<workdir>/sandboxes/storage.logs=same-r1.img"
    assert run0["effective"]["innodb_tmpdir"] == "~/tmp"
    assert doc["server"]["path"] == "~/mysql-8.4/bin/mysqld"
    assert doc["server"]["version_text"].startswith("~/mysql-8.4/bin/mysqld  Ver 10.11")
    redo = doc["points"][1]["runs"][0]["effective"]["innodb_log_group_home_dir"]
    assert redo == "<workdir>/sandboxes/storage.logs=separate-r1-logs/redo"
    assert doc["recipe"] == json.loads(REAL.read_text())["recipe"]  # hashed: never changed
    assert "paths: /home/alice -> ~ (3 strings), /srv/alice-lab/work -> <workdir> " \
           "(41 strings)" in lines


def test_system_paths_are_kept(tmp_path):
    doc = json.loads(run(tmp_path)[0].read_text())
    assert doc["storage"]["mount_point"] == "/"
    assert doc["storage"]["source"] == "/dev/vda"
    assert doc["points"][1]["runs"][0]["logs_storage"]["source"] == "/dev/loop1"
    assert doc["workload"]["command"][0] == "/usr/bin/sysbench"


def test_keep_paths_keeps_them_all(tmp_path):
    target, lines = run(tmp_path, keep_paths=True)
    doc, before = json.loads(target.read_text()), alice_doc()
    assert doc["storage"] == before["storage"]
    assert doc["server"] == before["server"]
    assert doc["points"][0]["runs"] == before["points"][0]["runs"]
    assert "paths: kept as they are (--keep-paths)" in lines


@pytest.mark.parametrize("server, expected", [
    ("/data/users/alice/opt/mysqld", "~/opt/mysqld"),  # a home anywhere, as $HOME names it
    ("/root/mysql/bin/mysqld", "~/mysql/bin/mysqld"),  # root's
])
def test_other_homes(tmp_path, monkeypatch, server, expected):
    monkeypatch.setenv("HOME", "/data/users/alice")
    doc = alice_doc()
    doc["server"]["path"] = server
    target, _ = run(tmp_path, doc)
    assert json.loads(target.read_text())["server"]["path"] == expected


def test_other_paths_are_kept_and_listed(tmp_path):
    doc = alice_doc()
    doc["server"]["path"] = "/srv/builds/mysqld"
    target, lines = run(tmp_path, doc)
    assert json.loads(target.read_text())["server"]["path"] == "/srv/builds/mysqld"
    assert "kept, check that they name nothing private: /srv/builds/mysqld" in lines


def test_a_directory_name_that_only_begins_like_the_work_directory_is_not_replaced():
    doc = alice_doc()
    doc["points"][0]["runs"][0]["effective"]["innodb_tmpdir"] = RUN_WORKDIR + "shop/tmp"
    submit.strip_paths(doc)
    assert doc["points"][0]["runs"][0]["effective"]["innodb_tmpdir"] == RUN_WORKDIR + "shop/tmp"


def test_secret_looking_values_are_removed(tmp_path):
    doc = alice_doc()
    command = doc["workload"]["command"]
    command[command.index("--mysql-password=")] = "--mysql-password=hunter2"
    target, lines = run(tmp_path, doc, keep_paths=True)  # secrets go in any case
    assert "--mysql-password=<removed>" in json.loads(target.read_text())["workload"]["command"]
    assert "hunter2" not in target.read_text()
    assert "secrets: removed the values of 1: 1 --...password option values" in lines


SECRETS = ["MYSQL_PWD=s3cret1", "-ps3cret2", "--password", "s3cret3", "--password=s3cret4",
           "mysql://root:s3cret5@db1/sbtest", "--mysql-password s3cret6", "DB_TOKEN=s3cret7"]


def test_credentials_of_every_kind_are_removed_and_counted_never_shown(tmp_path):
    doc = alice_doc()
    doc["workload"]["command"] += SECRETS
    assert len(scrub.credential_problems(doc)) == 7  # one line per value, naming its kind
    target, lines = run(tmp_path, doc, keep_paths=True)
    text = target.read_text()
    assert "s3cret" not in text and "s3cret" not in " ".join(lines)
    assert json.loads(text)["workload"]["command"][-len(SECRETS):] == [
        "MYSQL_PWD=<removed>", "-p<removed>", "--password", "<removed>", "--password=<removed>",
        "mysql://root:<removed>@db1/sbtest", "--mysql-password <removed>", "DB_TOKEN=<removed>"]
    assert "secrets: removed the values of 7: 2 secret-looking NAME=value variables " \
           "(MYSQL_PWD, API_TOKEN...), 3 --...password option values, 1 -p<password> " \
           "arguments, 1 passwords in URLs (scheme://user:password@host)" in lines
    assert scrub.credential_problems(json.loads(text)) == []


def test_a_credential_line_names_the_place_and_kind_not_the_value():
    doc = alice_doc()
    doc["workload"]["command"] += ["--password", "hunter2", "-phunter3"]
    assert scrub.credential_problems(doc) == [
        "workload/command/17: holds the value of a credential (-p<password> arguments); "
        "expected it removed (invoke data.submit removes it)",
        "workload/command/16: holds the value of a credential (--...password option values); "
        "expected it removed (invoke data.submit removes it)"]


def test_no_committed_result_holds_what_looks_like_a_credential_or_a_home():
    for name in (n for n in committed_data_files() if n.endswith(".json")):
        doc = json.loads((DATA / name).read_text())
        if isinstance(doc, dict) and "recipe" in doc:
            assert scrub.credential_problems(doc) == [], name
            assert not [t for _, t in scrub.strings(doc) if scrub.HOMES.search(t)], name


@pytest.mark.parametrize("path, expected", [
    ("/Users/alice/tmp", "~/tmp"),                 # macOS
    ("/export/home/alice/tmp", "~/tmp"),           # Solaris, NFS homes
    ("/usr/home/alice/tmp", "~/tmp"),              # FreeBSD
    ("/mnt/c/Users/alice/tmp", "~/tmp"),           # WSL
    ("~alice/tmp", "~/tmp"),
    ("file:///home/alice/tmp", "file://~/tmp"),
    ("--tmpdir=/Users/alice", "--tmpdir=~"),
])
def test_every_home_like_path_is_replaced(tmp_path, path, expected):
    doc = alice_doc()
    doc["points"][0]["runs"][0]["effective"]["innodb_tmpdir"] = path
    target, lines = run(tmp_path, doc)
    assert json.loads(target.read_text())["points"][0]["runs"][0]["effective"][
        "innodb_tmpdir"] == expected
    assert "alice" not in target.read_text()
    assert any(line.startswith("paths: ") and " -> ~ (" in line for line in lines)


def test_a_project_hosts_id_is_refused_as_ci_refuses_it(tmp_path):
    """A result of the project's own (no contribution block) in data/ has the host id alice's
    file carries: CI's data.check --contributions refuses that; so does data.submit, before
    writing anything."""
    own = tmp_path / "data" / "doublewrite" / "20261122T003613Z-209a4cf4-full.json"
    own.parent.mkdir(parents=True)
    own.write_text(REAL.read_text())
    lines = []
    with pytest.raises(SystemExit):
        submit.submit(incoming(tmp_path, alice_doc()), data_dir=tmp_path / "data",
                      say=lines.append)
    assert "host/id: 209a4cf4" in lines[0] and "is (or begins as) the host of the project's " \
           "own result doublewrite/20261122T003613Z-209a4cf4-full.json" in lines[0]
    assert lines[-1].endswith("would be refused by CI's data.check; nothing written")
    assert [p.name for p in own.parent.parent.rglob("*.json")] == [own.name]


# --- the contribution block ---------------------------------------------------------------------

def test_the_contribution_block_is_added_and_the_file_passes_data_check(tmp_path):
    target, _ = run(tmp_path, description="Dell R640, 2x Xeon Gold 6130, PM883 SATA SSD")
    doc = json.loads(target.read_text())
    block = doc["contribution"]
    assert block["description"] == "Dell R640, 2x Xeon Gold 6130, PM883 SATA SSD"
    assert block["tool"] == "data.submit"
    assert dt.datetime.fromisoformat(block["submitted"]).utcoffset() == dt.timedelta(0)
    assert document.validate(doc) == []
    assert check.check_file(target) == []


FORGED_NOISE = {"host_id": "0123456789abcdef", "measured": "2026-11-30T00:00:00+00:00",
                "switchback": {"per_second_pct": 0.01}, "restart": {"run_to_run_pct": 0.01}}


def test_a_noise_block_is_left_out_and_a_contribution_that_has_one_refused(tmp_path):
    """Issue 57: a forged noise block (0.01% spreads) passed; noise figures come only from the
    project's own runs."""
    doc = {**alice_doc(), "noise": FORGED_NOISE}
    target, lines = run(tmp_path, doc)
    assert "noise" not in json.loads(target.read_text())
    assert any("left out the result's noise block" in line for line in lines)
    forged = tmp_path / "forged" / target.relative_to(tmp_path / "data")
    forged.parent.mkdir(parents=True)
    forged.write_text(json.dumps({**json.loads(target.read_text()), "noise": FORGED_NOISE}))
    problems = check.check_file(forged, project_hosts={})
    assert any("noise: a contribution carries no noise block" in p for p in problems)


def test_statistics_of_an_older_version_are_recomputed_not_refused(tmp_path):
    """A result made before the interval was taken on the log scale, with the method it names,
    and one whose statistics were edited: both come out with what their runs give."""
    doc = alice_doc()
    doc["methods"]["summary"] = "median of repeats; 95% CI: Student t interval of the mean"
    doc["points"][0]["stats"]["tps"].update(ci_low=-8092.9, ci_high=20229.7)
    doc["points"][1]["stats"]["tps"]["median"] = 99999
    for point in doc["points"]:
        point.pop("trends", None)  # from before the trends were stored
    assert len(check.check_file(incoming(tmp_path, doc))) > 1
    target, _ = run(tmp_path, doc)
    written = json.loads(target.read_text())
    assert [p["stats"] for p in written["points"]] == \
        [c["stats"] for c in document.point_stats(doc)]
    assert written["methods"]["summary"] == stats.SUMMARY_METHOD
    assert all("trends" in p for p in written["points"])
    assert check.check_file(target) == []


def test_without_a_description_there_is_none(tmp_path):
    target, _ = run(tmp_path)
    assert set(json.loads(target.read_text())["contribution"]) == {"submitted", "tool"}


@pytest.mark.parametrize("change, message", [
    ({"extra": 1}, "Additional properties are not allowed ('extra' was unexpected)"),
    ({"description": "x" * 501}, "is too long"),
    ({"tool": "by hand"}, "'data.submit' was expected"),
    ({"submitted": "yesterday"}, "is not a 'date-time'"),
])
def test_the_schema_holds_the_block_to_its_shape(change, message):
    doc = alice_doc()
    doc["contribution"] = {"submitted": "2026-11-22T07:00:00+00:00", "tool": "data.submit",
                           **change}
    [problem] = document.validate(doc)
    assert problem.startswith("contribution") and message in problem, problem


@pytest.mark.parametrize("description, message", [
    ("fast \x1b[31mdisk", "--description: control character U+001B at character 5; expected "),
    # (data.check's words follow: check.text_problems)
    ("x" * 501, "--description: 501 characters; expected at most 500"),
])
def test_a_bad_description_is_refused_before_anything_is_written(tmp_path, description,
                                                                 message):
    with pytest.raises(UserError, match="^" + re.escape(message)):
        run(tmp_path, description=description)
    assert not (tmp_path / "data").exists()


# --- refusals -----------------------------------------------------------------------------------

def test_an_invalid_file_is_refused_with_data_checks_lines_and_nothing_written(tmp_path):
    doc = alice_doc()
    del doc["points"][0]["runs"][1]["series"]["tps"][3]  # a sample short
    lines = []
    path = incoming(tmp_path, doc)
    with pytest.raises(SystemExit) as exc:
        submit.submit(path, data_dir=tmp_path / "data", say=lines.append)
    assert exc.value.code == 1
    assert lines == [f"{path}: points/0/runs/1/series/tps: 14 samples; expected 15, one per "
                     "entry of series/t",
                     f"{path} is not a result data.check accepts; nothing written"]
    assert not (tmp_path / "data").exists()


def test_a_file_that_is_not_a_result_is_refused(tmp_path):
    path = tmp_path / "notes.json"
    path.write_text('{"hello": "world"}')
    lines = []
    with pytest.raises(SystemExit):
        submit.submit(path, data_dir=tmp_path / "data", say=lines.append)
    assert f"{path}: (top): 'recipe' is a required property" in lines
    assert not (tmp_path / "data").exists()


def test_a_missing_file(tmp_path):
    with pytest.raises(UserError, match="no such file"):
        submit.submit(tmp_path / "nope.json", data_dir=tmp_path / "data")


def test_a_directory_is_no_result_file(tmp_path):
    """It used to be called "already committed" (git knows a directory of committed files)."""
    (tmp_path / "data" / "doublewrite").mkdir(parents=True)
    with pytest.raises(UserError, match=r"not a file; expected one result file \(a \.json\)"):
        submit.submit(tmp_path / "data" / "doublewrite", data_dir=tmp_path / "data")


@pytest.mark.integration  # runs git
def test_a_committed_file_in_data_is_refused(tmp_path):
    target, _ = run(tmp_path)
    git = ["git", "-C", str(tmp_path / "data"), "-c", "user.name=t", "-c", "user.email=t@t"]
    subprocess.run(git[:3] + ["init", "-q"], check=True)
    subprocess.run(git + ["add", "."], check=True)
    subprocess.run(git + ["commit", "-qm", "results"], check=True)
    with pytest.raises(UserError, match=r"already committed in .*/data/ \(results there are "
                                        r"append-only\)"):
        submit.submit(target, data_dir=tmp_path / "data")


def test_a_runs_own_new_result_in_data_is_prepared_where_it_is(tmp_path):
    """The run wrote it into data/ (untracked): prepared in place, no second file."""
    data = tmp_path / "data"
    doc = alice_doc()
    written = document.final_path(doc, data)
    written.parent.mkdir(parents=True)
    written.write_text(json.dumps(doc))
    target = submit.submit(written, description="my box", data_dir=data, say=lambda _: None)
    assert target == written and [p.name for p in written.parent.iterdir()] == [written.name]
    prepared = json.loads(written.read_text())
    assert prepared["contribution"]["description"] == "my box"
    assert "alice" not in written.read_text()


def own_result(tmp_path) -> Path:
    """A run's own untracked result in data/, as the run wrote it: the only copy there is."""
    written = document.final_path(alice_doc(), tmp_path / "data")
    written.parent.mkdir(parents=True)
    written.write_text(json.dumps(alice_doc()))
    return written


@pytest.mark.parametrize("words, kind", [
    ("loaded with mysql -uroot -pperformance", "-p<password> arguments"),
    # the README: a word beginning with -p is refused in a description (issue 77), any word
    ("-pS3cret box", "-p<password> arguments"),
    ("governor set with cpupower -performance", "-p<password> arguments"),
    ("password=x", "secret-looking NAME=value variables"),
    ("user made with IDENTIFIED BY 'x'", "passwords in SQL"),
])
def test_a_description_that_reads_as_a_credential_is_refused_before_anything(tmp_path, words,
                                                                              kind):
    """It was prepared in place, failed its own check and was removed: the only copy (issue 57)."""
    written = own_result(tmp_path)
    before = written.read_bytes()
    with pytest.raises(UserError) as info:
        submit.submit(written, description=words, data_dir=tmp_path / "data")
    assert str(info.value).startswith(f"--description: reads as a credential to data.check "
                                      f"({kind}), which would refuse the file; expected words")
    assert written.read_bytes() == before


def test_a_word_that_begins_with_p_elsewhere_in_the_result_is_a_word(tmp_path):
    """-performance in a result's own text (a run's server log) is no MySQL client's
    -p<password>: kept as written, and the file passes; only a description is held to the
    README's rule."""
    doc = alice_doc()
    doc["points"][0]["runs"][0]["server_log"] = {"note": "governor set with cpupower "
                                                         "-performance"}
    target, _ = run(tmp_path, doc, description="a laptop")
    assert json.loads(target.read_text())["points"][0]["runs"][0]["server_log"]["note"] == \
        "governor set with cpupower -performance"
    assert check.check_file(target) == []


def test_a_run_s_own_file_that_fails_once_prepared_is_put_back_not_removed(tmp_path,
                                                                          monkeypatch):
    written = own_result(tmp_path)
    before = written.read_bytes()
    real, calls = check.check_file, []

    def fails_once_prepared(path, **options):  # the input checks; the prepared file does not
        calls.append(path)
        return real(path, **options) if len(calls) == 1 else ["x: a problem"]
    monkeypatch.setattr(check, "check_file", fails_once_prepared)
    lines = []
    with pytest.raises(SystemExit):
        submit.submit(written, data_dir=tmp_path / "data", say=lines.append)
    assert lines[-1] == (f"{written} failed data.check once prepared; put the run's own file "
                         "back as it was")
    assert written.read_bytes() == before
    assert [p.name for p in written.parent.iterdir()] == [written.name]


def test_an_existing_result_is_never_replaced(tmp_path):
    target, _ = run(tmp_path, description="first")
    before = target.read_text()
    with pytest.raises(UserError, match="already exists: results are append-only"):
        run(tmp_path, description="second")
    assert target.read_text() == before
    assert [p.name for p in target.parent.iterdir()] == [target.name]  # no temp file left


def test_a_profile_that_would_write_outside_data_is_blocked(tmp_path):
    doc = alice_doc()
    doc["profile"] = "../../../escaped"  # free text in the schema
    with pytest.raises((UserError, SystemExit)):  # data.check refuses such a profile first
        run(tmp_path, doc)
    assert not list(tmp_path.rglob("*escaped*"))


# --- what the contributor is told ---------------------------------------------------------------

def test_the_git_commands_name_the_file(tmp_path):
    target, lines = run(tmp_path, description="Ryzen 7 5800X, WD SN850 NVMe, it's fast")
    branch = "result-logs-separate-20261122T061044Z-209a4cf4-quick"
    assert lines[-6:] == [
        f"wrote {target}: data.check passes",
        "open the pull request (data.submit runs no git command):",
        f"  git checkout -b {branch}",
        f"  git add {target}",
        "  git commit -m 'logs-separate result from Ryzen 7 5800X, WD SN850 NVMe, it'\"'\"'s fast'",
        f"  git push -u origin {branch}   # origin: your fork; then open the pull request"]


def test_a_file_in_the_checkout_is_named_relative_to_it():
    in_checkout = REPO / "data" / "logs-separate" / REAL.name  # named, not read
    assert submit.shown(in_checkout) == "data/logs-separate/" + REAL.name


@pytest.mark.integration  # runs invoke
def test_the_invoke_task(tmp_path):
    path = incoming(tmp_path, alice_doc())
    data = tmp_path / "data"
    invoke = [sys.executable, "-m", "invoke", "data.submit", "--path", str(path),
              "--data-dir", str(data)]
    done = subprocess.run(invoke + ["--description", "a laptop"], cwd=REPO, capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    target = data / "logs-separate" / REAL.name
    assert f"  git add {target}" in done.stdout.splitlines()
    assert json.loads(target.read_text())["contribution"]["description"] == "a laptop"
    again = subprocess.run(invoke, cwd=REPO, capture_output=True, text=True, timeout=120)
    assert again.returncode == 2
    assert again.stderr == f"error: {target} already exists: results are append-only, a " \
                           "submitted file is never replaced\n"
