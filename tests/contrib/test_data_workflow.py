"""The pull-request check of .github/workflows/data.yml: the files a pull request adds or changes
under data/ are judged by the base branch's checker, so a pull request that weakens data.check
still fails; every one is checked whatever its name, a link or a file of no kind data/ holds is
refused, claims and historical files are read strictly. Runs the workflow's script in a
throwaway clone of this repository whose base branch holds this checkout's checker."""

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from helpers import REPO
from tuninglab.results import document

pytestmark = pytest.mark.integration  # clones this repository, runs git and bash
SCRIPT = REPO / ".github" / "check-new-results.sh"


def git(cwd, *args) -> str:
    return subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True,
                          check=True).stdout


@pytest.fixture
def clone(tmp_path):
    if git(REPO, "rev-parse", "--is-shallow-repository").strip() == "true":
        pytest.skip("needs the full git history (git fetch --unshallow)")
    path = tmp_path / "clone"
    subprocess.run(["git", "clone", "-q", str(REPO), str(path)], check=True)
    git(path, "config", "user.email", "contributor@example.org")
    git(path, "config", "user.name", "A contributor")
    # The script runs the base branch's checker: the base holds this checkout's, as it is now,
    # committed or not, so that the checker under test is the one the tests run beside.
    for part in ("src", ".github", "recipes"):
        shutil.rmtree(path / part)
        shutil.copytree(REPO / part, path / part,
                        ignore=shutil.ignore_patterns("__pycache__", "*.egg-info"))
    commit(path, "the checker under test", "--allow-empty")  # empty: it is committed already
    git(path, "branch", "base")
    git(path, "checkout", "-q", "-b", "pull-request")
    return path


def contribution(clone: Path, host="c0ffee00c0ffee00", name=None, **changes) -> Path:
    """A copy of one of the project's results as another host's, placed and marked as
    data.submit would (or under name, in data/doublewrite/)."""
    source = sorted(git(clone, "ls-files", "data/doublewrite/*.json").split())[0]  # the base's
    doc = json.loads((clone / source).read_text())
    doc["host"]["id"] = host
    doc["contribution"] = {"submitted": document.now(), "tool": "data.submit"}
    doc.update(changes)
    if doc["contribution"] is None:
        del doc["contribution"]
    path = document.final_path(doc, clone / "data")
    if name:
        path = path.with_name(name)
    path.write_text(json.dumps(doc))
    return path


def check(clone: Path):
    env = {**os.environ, "PYTHON": sys.executable}
    return subprocess.run(["bash", str(SCRIPT), base(clone)], cwd=clone,
                          capture_output=True, text=True, env=env)


def base(clone: Path) -> str:
    return git(clone, "rev-parse", "base").strip()


def commit(clone: Path, message: str, *options) -> None:
    git(clone, "add", "-A")
    git(clone, "commit", "-q", *options, "-m", message)


def test_a_valid_new_result_passes(clone):
    contribution(clone)
    commit(clone, "a result from my machine")
    out = check(clone)
    assert out.returncode == 0, out.stdout + out.stderr
    assert "1 result file, 0 claims files, 0 historical files checked, 0 problems" in out.stdout
    assert git(clone, "worktree", "list").count("\n") == 1  # the base's worktree is gone


def test_a_pull_request_cannot_weaken_the_checker_it_is_judged_by(clone):
    bad = contribution(clone, profile="quick", points=[])
    checker = clone / "src" / "tuninglab" / "contrib" / "check.py"
    checker.write_text(checker.read_text() + "\n\ndef check_paths(paths=()):\n    return []\n")
    commit(clone, "a result, and a checker that accepts anything")
    # The pull request's own checker would pass it:
    own = subprocess.run([sys.executable, "-c", "from tuninglab.contrib import check as datacheck; "
                          f"print(datacheck.check_paths(['{bad}']))"], cwd=clone,
                         env={**os.environ, "PYTHONPATH": str(clone / "src")},
                         capture_output=True, text=True)
    assert own.stdout.strip() == "[]"
    out = check(clone)
    assert out.returncode == 1
    assert f"data/doublewrite/{bad.name}" in out.stdout and "problem" in out.stdout


def test_no_new_result_files_is_nothing_to_check(clone):
    (clone / "README.md").write_text("changed\n")
    commit(clone, "docs only")
    out = check(clone)
    assert out.returncode == 0 and "no file under data/ is added or changed" in out.stdout


def test_a_result_that_is_no_contribution_or_poses_as_a_project_host_fails(clone):
    project_host = json.loads(sorted((clone / "data" / "doublewrite").glob("*.json"))[0]
                              .read_text())["host"]["id"]
    own = contribution(clone, started="2026-11-20T00:00:00+00:00", contribution=None)
    posing = contribution(clone, host=project_host, started="2026-11-20T01:00:00+00:00")
    commit(clone, "a result without data.submit's block, and one from the project's host")
    out = check(clone)
    assert out.returncode == 1
    lines = out.stdout.splitlines()
    assert any(line.startswith(f"data/doublewrite/{own.name}: contribution: missing")
               for line in lines), out.stdout
    assert any(line.startswith(f"data/doublewrite/{posing.name}: host/id: {project_host} is")
               for line in lines), out.stdout


# --- every file under data/, whatever its name (issue 36) ---------------------------------------

def append(path: Path, text: str) -> None:
    path.write_text(path.read_text() + text)


def test_every_added_or_changed_file_is_checked_whatever_its_name(clone):
    """The files that passed on dc97b5d: a result named with its profile "quické" (git quotes
    the name, which no pattern matched: "no new result files"), a symlinked result (cp followed
    it), a claims file that reads "false" as true, and files of no kind data/ holds."""
    doublewrite = clone / "data" / "doublewrite"
    stamp = "2026-11-20T02:00:00+00:00"
    forged = contribution(clone, profile="quické", started=stamp, run_id="0badc0de",
                          name="20261120T020000Z-c0ffee00-quické-0badc0de.json")
    target = contribution(clone, started="2026-11-20T03:00:00+00:00")
    elsewhere = clone / "mine.json"
    target.rename(elsewhere)
    target.symlink_to(Path("..") / ".." / "mine.json")
    quoted = contribution(clone, started="2026-11-20T04:00:00+00:00", name='q"uo\\te.json')
    (doublewrite / "notes.txt").write_text("my machine\n")
    claims = clone / "data" / "claims" / "zaitsev-2004-os-hardware.toml"
    number = claims.read_text().count("[[claim]]") + 1
    append(claims, '\n[[claim]]\nid = "flipped"\ntable = "direct-io-2-6.csv"\nrow = "Direct IO"\n'
                   'column = "LARGE"\nrecipe = "direct-io"\npoint = "O_DIRECT"\n'
                   'invert = "false"\n')
    commit(clone, "results, a link, notes and a claim")
    head = git(clone, "rev-parse", "HEAD").strip()
    git(clone, "update-index", "--add", "--cacheinfo", f"160000,{head},data/doublewrite/sub.json")
    git(clone, "commit", "-q", "-m", "a submodule")
    out = check(clone)
    assert out.returncode == 1, out.stdout + out.stderr
    lines = out.stdout.splitlines()
    for expected in [f"data/doublewrite/{target.name}: a symbolic link: add the result file "
                     "itself",
                     "data/doublewrite/sub.json: a git submodule (gitlink): add the result "
                     "file itself",
                     "data/doublewrite/notes.txt: not a result file, a claims file or a "
                     "historical file; expected data/<recipe>/<name>.json, "
                     "data/claims/<source>.toml, data/historical/<source>/source.toml or "
                     "data/historical/<source>/<table>.csv",
                     f"data/doublewrite/{forged.name}: profile: 'quické' is no profile name; "
                     "expected lower-case ASCII letters, digits and dashes, as a recipe's "
                     "[profiles] are named",
                     f"data/claims/zaitsev-2004-os-hardware.toml [[claim]] #{number}: invert: "
                     "expected true or false (a TOML boolean), got the string 'false'"]:
        assert expected in lines, out.stdout
    for name in (forged.name, quoted.name):  # not where document.final_path puts a result
        assert any(line.startswith(f"data/doublewrite/{name}: (top): the file is ")
                   for line in lines), out.stdout
    assert "2 result files, 1 claims file, 0 historical files checked" in out.stdout
    assert "Traceback" not in out.stderr


def copy_source(clone: Path, slug: str, new: str, edit=lambda text: text) -> None:
    """Another historical source: a copy of slug's files, and its claims file through edit."""
    shutil.copytree(clone / "data" / "historical" / slug, clone / "data" / "historical" / new)
    claims = clone / "data" / "claims"
    (claims / f"{new}.toml").write_text(edit((claims / f"{slug}.toml").read_text()))


def test_a_new_source_with_its_claims_passes(clone):
    copy_source(clone, "zfs-innodb-2009", "zfs-innodb-2009-again",
                lambda text: text.replace('id = "', 'id = "again-')
                .replace("headline = true\n", ""))
    commit(clone, "a source and its claims")
    out = check(clone)
    assert out.returncode == 0, out.stdout + out.stderr
    assert "0 result files, 1 claims file, 8 historical files checked, 0 problems" in out.stdout
    assert "6 historical source(s) and 6 claims file(s) checked, 0 problem(s)" in out.stdout


def test_a_claim_id_twice_and_a_bad_table_are_refused_naming_their_files(clone):
    copy_source(clone, "zfs-innodb-2009", "zfs-innodb-2009-again",
                lambda text: text.replace("headline = true\n", ""))
    copy_source(clone, "dimitri-2012-mysql56-tpcc", "dimitri-2012-again")
    table = clone / "data" / "historical" / "dimitri-2012-again" / "results.csv"
    append(table, "a second claim,4\n")
    (table.parent / "notes.md").write_text("to do\n")
    first = next(line for line in (clone / "data" / "claims" / "zfs-innodb-2009.toml")
                 .read_text().splitlines() if line.startswith("id = "))
    commit(clone, "copied sources")
    out = check(clone)
    assert out.returncode == 1
    lines = out.stdout.splitlines()
    assert "data/historical/dimitri-2012-again/notes.md: not a result file, a claims file or a " \
           "historical file; expected data/<recipe>/<name>.json, data/claims/<source>.toml, " \
           "data/historical/<source>/source.toml or data/historical/<source>/<table>.csv" in lines
    short = next(n for n, line in enumerate(table.read_text().splitlines(), 1)
                 if line.startswith("a second claim"))
    assert f"data/historical/dimitri-2012-again/results.csv: line {short}: 2 cells; expected " \
           "5, as the header" in lines, out.stdout
    claim_id = first.split('"')[1]
    assert f"data/claims/zfs-innodb-2009.toml [[claim]] #1: id '{claim_id}' is taken by " \
           "data/claims/zfs-innodb-2009-again.toml [[claim]] #1; expected each claim its own " \
           "id" in lines, out.stdout


def test_a_linked_recipe_is_refused(clone):
    """The pull request's recipes/ are copied beside its results: a recipe.toml that is a link
    would have the checker read a file of the machine CI runs on."""
    contribution(clone)
    link = clone / "recipes" / "doublewrite" / "recipe.toml"
    link.unlink()
    link.symlink_to("/etc/hostname")
    commit(clone, "a linked recipe")
    out = check(clone)
    assert out.returncode == 1
    assert "recipes/doublewrite/recipe.toml: not a regular file or directory (a link?); expected " \
           "recipes/<name>/recipe.toml files" in out.stdout.splitlines(), out.stdout
