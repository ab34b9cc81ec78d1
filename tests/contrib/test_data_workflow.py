"""The pull-request check of .github/workflows/data.yml: new result files are judged by the base
branch's checker, so a pull request that weakens data.check still fails. Runs the workflow's
script in a throwaway clone of this repository."""

import json
import os
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
    git(path, "checkout", "-q", "-b", "pull-request")
    return path


def contribution(clone: Path, host="c0ffee00c0ffee00", **changes) -> Path:
    """A copy of one of the project's results as another host's, placed and marked as
    data.submit would."""
    source = sorted((clone / "data" / "doublewrite").glob("*.json"))[0]
    doc = json.loads(source.read_text())
    doc["host"]["id"] = host
    doc["contribution"] = {"submitted": document.now(), "tool": "data.submit"}
    doc.update(changes)
    if doc["contribution"] is None:
        del doc["contribution"]
    path = document.final_path(doc, clone / "data")
    path.write_text(json.dumps(doc))
    return path


def check(clone: Path):
    env = {**os.environ, "PYTHON": sys.executable}
    return subprocess.run(["bash", str(SCRIPT), base(clone)], cwd=clone,
                          capture_output=True, text=True, env=env)


def base(clone: Path) -> str:
    return git(clone, "rev-parse", "origin/HEAD").strip()


def commit(clone: Path, message: str) -> None:
    git(clone, "add", "-A")
    git(clone, "commit", "-q", "-m", message)


def test_a_valid_new_result_passes(clone):
    contribution(clone)
    commit(clone, "a result from my machine")
    out = check(clone)
    assert out.returncode == 0, out.stdout + out.stderr
    assert "1 result file checked, 0 problems" in out.stdout
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
    assert out.returncode == 0 and "no new result files" in out.stdout


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
