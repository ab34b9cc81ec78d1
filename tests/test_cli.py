"""The command line as a user runs it: one clear line and an exit code, never a traceback."""

import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.integration  # every test runs invoke in a subprocess
REPO = Path(__file__).resolve().parents[1]
INVOKE = [sys.executable, "-m", "invoke"]


def invoke(*args):
    return subprocess.run(INVOKE + list(args), cwd=REPO, capture_output=True, text=True,
                          timeout=120)


@pytest.mark.parametrize("args, message", [
    (["recipe", "nosuch"], "error: no recipe 'nosuch'"),
    (["recipe", "doublewrite", "--mysqld", "/nonexistent/mysqld"],
     "error: --mysqld /nonexistent/mysqld: no such file"),
    (["recipe", "doublewrite", "--repeats", "0"], "error: --repeats: expected a whole number"),
    (["recipe", "doublewrite", "--duration", "soon"], "error: --duration: expected a duration"),
    (["recipe", "doublewrite", "--profile", "huge"], "error: "),
    (["recipe", "io-schedulers", "--variant", "ssd"], "error: recipe io-schedulers has no "
                                                       "variant 'ssd' (variants: scan)"),
    (["recipe", "doublewrite", "--device", "/dev/null"], "error: recipe doublewrite runs in "
                                                         "the work directory and takes no "
                                                         "--device"),
    # Bad input said in one line before anything starts (issue 16); a dry run to be safe.
    (["recipe", "doublewrite", "--seed", "abc", "--dry-run"],
     "error: --seed: expected a whole number, got 'abc'"),
    (["recipe", "doublewrite", "--repeats", "99999999", "--dry-run"],
     "error: --repeats: expected a whole number from 1 to 1000, got 99999999"),
    (["recipe", "doublewrite", "--duration", "99999h", "--dry-run"],
     "error: --duration: expected at most 24h, got '99999h'"),
    (["recipe", "doublewrite", "--repeats", "1000", "--duration", "10h", "--dry-run"],
     "error: recipe doublewrite (full profile): 2 points x 1000 repeats = 2000 runs"),
    (["recipe", "../../x", "--dry-run"], "error: recipe '../../x': expected a plain name"),
    (["recipe", "doublewrite", "--variant", "../x", "--dry-run"],
     "error: --variant '../x': expected a variant name"),
    (["recipe", "doublewrite", "--workdir", "/proc", "--dry-run"],
     ("error: work directory /proc: a virtual filesystem (proc), expected a directory on a "
      "real filesystem you can write")),
    (["recipe", "doublewrite", "--workdir", "/etc/passwd", "--dry-run"],
     "error: work directory /etc/passwd: is a file, expected a directory"),
    (["recipe", "doublewrite", "--design", "parallel", "--dry-run"],
     "error: --design: expected restart, switchback or duet, got 'parallel'"),
    (["recipe", "concurrency", "--design", "duet", "--dry-run"],
     "error: --design duet: concurrency cannot run as a duet: the sweep changes "
     "workload.threads, a question about the whole machine"),
])
def test_user_errors_are_one_line_without_traceback(args, message):
    result = invoke(*args)
    assert result.returncode == 2
    assert result.stderr.startswith(message), result.stderr
    assert "Traceback" not in result.stderr + result.stdout


def test_a_mysqld_that_is_not_executable_is_named(tmp_path):
    fake = tmp_path / "mysqld"
    fake.write_text("not a program")
    fake.chmod(0o644)
    result = invoke("recipe", "doublewrite", "--mysqld", str(fake))
    assert result.returncode == 2
    assert result.stderr.startswith(f"error: --mysqld {fake}: not an executable file") or \
        "does not answer like a MySQL server" in result.stderr  # root may execute any file


def test_recipe_list_shows_every_recipe_with_estimates():
    result = invoke("recipe.list")
    assert result.returncode == 0, result.stderr
    for name in ("doublewrite", "redo-size", "direct-io", "flush-log-at-trx-commit"):
        assert name in result.stdout
    assert "quick " in result.stdout and "full " in result.stdout


@pytest.mark.parametrize("place", ["/", "/etc", "home"])
def test_a_dry_run_refuses_a_work_directory_the_run_would_refuse(tmp_path, place):
    """Issue 57 ("decide"): a dry run in / or /etc planned a run that the run itself refuses;
    it says so now, and writes nothing there."""
    if place == "home":
        place = tmp_path / "home"
        (place / "notes").mkdir(parents=True)
    before = sorted(p.name for p in Path(place).iterdir())
    result = invoke("recipe", "redo-size", "--quick", "--dry-run", "--workdir", str(place))
    assert result.returncode != 0 and "Traceback" not in result.stderr
    assert f"work directory {place}: holds files the lab did not make" in result.stderr
    assert sorted(p.name for p in Path(place).iterdir()) == before


def test_dry_run_prints_the_plan_and_starts_nothing(tmp_path):
    result = invoke("recipe", "redo-size", "--quick", "--dry-run", "--workdir", str(tmp_path / "w"))
    assert result.returncode == 0, result.stderr
    out = result.stdout
    assert "innodb_log_file_size=48M (baseline)" in out
    assert out.count("repeat ") >= 3 and "estimated time:" in out
    assert "dry run: nothing was started" in out
    assert not (tmp_path / "w").exists()


def test_data_check_passes_on_the_committed_results(committed_data):
    result = invoke("data.check", "--path", str(committed_data))
    assert result.returncode == 0, result.stdout
    assert ", 0 problems" in result.stdout


def test_data_check_reports_file_and_json_path(tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text('{"schema_version": 3}')
    result = invoke("data.check", "--path", str(bad))
    assert result.returncode == 1
    assert f"{bad}: schema_version: 3 is not one of [1, 2]" in result.stdout
    assert f"{bad}: (top): 'recipe' is a required property" in result.stdout


ROOT = pytest.mark.skipif(__import__("os").geteuid() != 0, reason="storage recipes need root")


@ROOT
@pytest.mark.parametrize("args, message", [
    (["--device", "/dev/vda", "--device", "/dev/vdb"], "tests one device, got 2"),
    (["--device", "/nonexistent/disk", "--destroy-data"], "/nonexistent/disk"),
    (["--device", "/dev/null", "--destroy-data"], "not a block device"),
    (["--device", "ROOT", "--destroy-data"], "holds /"),
    (["--device", "/dev/vda", "RECIPE=logs-separate"], "two devices, for the data and for the "
                                                       "redo log, got 1"),
])
def test_a_device_that_is_not_safe_to_erase_is_refused(args, message):
    root = subprocess.run(["findmnt", "-no", "SOURCE", "/"], capture_output=True,
                          text=True).stdout.strip()
    name = next((a.split("=")[1] for a in args if a.startswith("RECIPE=")), "io-schedulers")
    args = [root if a == "ROOT" else a for a in args if not a.startswith("RECIPE=")]
    result = invoke("recipe", name, "--quick", "--dry-run", *args)
    assert result.returncode == 2, result.stdout + result.stderr
    assert result.stderr.startswith("error: ") and message in result.stderr, result.stderr
    assert "Traceback" not in result.stderr + result.stdout
