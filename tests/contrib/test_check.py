"""datacheck: every committed result in data/ passes, and each rule rejects a document made bad
from a real one, with a line naming the file, the JSON path and what was expected."""

import hashlib
import json
import subprocess
import sys

import pytest

from helpers import (
    DATA,
    REPO,
    committed_results,
    place_result as place,
    result_problems as problems_of,
)
from tuninglab.contrib import check, history
from tuninglab.recipes.regime import declared
from tuninglab.results import document

FILES = committed_results()  # <recipe>/<file>.json: never a result a user's own run added
BASE = DATA / "doublewrite" / "20261121T233847Z-209a4cf4-quick.json"  # 2 points x 5 repeats
SHALLOW = subprocess.run(["git", "rev-parse", "--is-shallow-repository"], cwd=REPO,
                         capture_output=True, text=True).stdout.strip() == "true"


def base_doc() -> dict:
    return json.loads(BASE.read_text())




def rehash(doc, text):
    doc["recipe"]["text"] = text
    doc["recipe"]["sha256"] = hashlib.sha256(text.encode()).hexdigest()


# --- the real files -----------------------------------------------------------------------------

def test_there_are_result_files_and_historical_is_left_out(committed_data):
    files = check.result_files([committed_data])
    assert committed_data / "doublewrite" / BASE.name in files
    records = sorted(p.relative_to(committed_data).as_posix()
                     for p in (committed_data / "calibrations").glob("*.json"))
    # the A/A calibration records are checked too (check_file gives them to calibrations.py)
    assert sorted(f.relative_to(committed_data).as_posix() for f in files) == sorted(FILES
                                                                                    + records)
    assert (committed_data / "historical").is_dir()  # there, and left out


def test_without_paths_it_checks_data(monkeypatch, committed_data):
    """`invoke data.check` with no --path: every result under data/."""
    monkeypatch.setattr(check, "DATA_DIR", committed_data)
    assert check.result_files() == check.result_files([committed_data])
    records = list((committed_data / "calibrations").glob("*.json"))
    assert len(check.result_files()) == len(FILES) + len(records)
    assert all(check.check_file(p) == [] for p in records)


@pytest.mark.parametrize("path", FILES)
def test_every_result_file_passes(committed_data, path):
    problems = check.check_file(committed_data / path)
    if SHALLOW:  # tests.yml checks out one commit: older recipe versions cannot be confirmed
        problems = [p for p in problems if "shallow clone" not in p]
    assert problems == []


def test_the_base_document_passes_where_final_path_puts_it(tmp_path):
    assert problems_of(tmp_path, base_doc())[1] == []


# --- the file -----------------------------------------------------------------------------------

def test_too_big(tmp_path):
    path = place(tmp_path, base_doc())
    with open(path, "r+b") as f:
        f.truncate(check.MAX_BYTES + 1)  # sparse: costs no disk
    assert check.check_file(path) == [
        f"{path}: (file): 20,000,001 bytes; expected at most 20 MB (20,000,000 bytes)"]


@pytest.mark.parametrize("content, message", [
    (b"{not json", "(file): not JSON: Expecting property name enclosed in double quotes at "
                   "line 1 column 2; expected a JSON document"),
    (b'{"a": "\xff"}', "(file): not UTF-8 (byte 7); expected UTF-8 JSON"),
    (b"[1, 2]", "(top): a JSON list; expected an object"),
    (b"[" * 100_000, "(file): not JSON this checker reads: maximum recursion depth exceeded"),
])
def test_not_a_json_object(tmp_path, content, message):
    path = tmp_path / "data" / "doublewrite" / BASE.name
    path.parent.mkdir(parents=True)
    path.write_bytes(content)
    [line] = check.check_file(path)
    assert line.startswith(f"{path}: {message}"), line


def test_nan_and_infinity_are_named_by_path(tmp_path):
    doc = base_doc()
    doc["points"][0]["runs"][1]["summary"]["tps"] = float("nan")   # json.dumps writes NaN
    doc["points"][1]["runs"][0]["series"]["tps"][3] = float("-inf")
    path = place(tmp_path, doc)
    text = path.read_text()
    assert "NaN" in text and "-Infinity" in text
    assert check.check_file(path) == [
        f"{path}: points/0/runs/1/summary/tps: NaN; expected a finite number "
        "(JSON has no NaN or Infinity)",
        f"{path}: points/1/runs/0/series/tps/3: -Infinity; expected a finite number "
        "(JSON has no NaN or Infinity)"]


def test_a_number_that_overflows_to_infinity(tmp_path):
    path = place(tmp_path, base_doc())
    path.write_text(path.read_text().replace('"seed": 1,', '"seed": 1e999,', 1))
    assert check.check_file(path) == [
        f"{path}: plan/seed: inf (a number too large for a float); expected a finite number"]


def test_a_missing_file_and_a_symbolic_link(tmp_path):
    link = tmp_path / "link.json"
    link.symlink_to(BASE)
    assert check.check_paths([tmp_path / "nope.json", link]) == [
        f"{tmp_path / 'nope.json'}: (file): no such file; expected a result file",
        f"{link}: (file): a symbolic link, not a regular file: not read; expected a result file"]


# --- the schema ---------------------------------------------------------------------------------

def test_schema_errors_are_lines_with_their_path(tmp_path):
    doc = base_doc()
    path = place(tmp_path, doc)
    del doc["host"]
    doc["points"][0]["runs"][2]["summary"]["tps"] = "fast"
    path.write_text(json.dumps(doc))
    assert check.check_file(path) == [
        f"{path}: (top): 'host' is a required property",
        f"{path}: points/0/runs/2/summary/tps: 'fast' is not of type 'number'"]


# --- the recipe and its version -----------------------------------------------------------------

def test_unknown_recipe(tmp_path):
    doc = base_doc()
    doc["recipe"]["name"] = "no-such-recipe"
    path, problems = problems_of(tmp_path, doc)
    assert path.parent.name == "no-such-recipe"
    assert problems == [f"{path}: recipe/name: no recipe 'no-such-recipe': recipes/"
                        "no-such-recipe/recipe.toml does not exist; expected a recipe in "
                        "recipes/ (invoke recipe.list)"]


def test_unknown_variant(tmp_path):
    doc = base_doc()
    doc["variant"] = "ssd"
    path, problems = problems_of(tmp_path, doc)
    assert path.name.endswith("-quick-ssd.json")
    assert problems == [f"{path}: variant: recipe doublewrite has no variant 'ssd'; expected "
                        "one of: '' (the main experiment), 'modes', 'tpcc'"]


def test_hash_that_is_not_the_texts(tmp_path):
    doc = base_doc()
    doc["recipe"]["text"] += "# edited\n"
    digest = hashlib.sha256(doc["recipe"]["text"].encode()).hexdigest()
    path, problems = problems_of(tmp_path, doc)
    assert problems == [f"{path}: recipe/sha256: {doc['recipe']['sha256']} is not the sha256 "
                        f"of recipe/text ({digest}); expected the two to match"]


def test_unknown_version_of_the_recipe(tmp_path):
    doc = base_doc()
    rehash(doc, doc["recipe"]["text"].replace('duration = "20s"', 'duration = "2s"'))
    path, problems = problems_of(tmp_path, doc)
    sha = doc["recipe"]["sha256"]
    if SHALLOW:
        assert problems == [f"{path}: recipe/sha256: {sha} is not the current recipes/"
                            "doublewrite/recipe.toml, and cannot check older versions: shallow "
                            "clone; fetch the full history (git fetch --unshallow)"]
    else:
        assert problems == [f"{path}: recipe/sha256: {sha} is no version of recipes/doublewrite/"
                            "recipe.toml; expected the current file or one in its git history"]


def git(*args) -> str:
    return subprocess.run(["git", *args], cwd=REPO, capture_output=True, text=True,
                          check=True).stdout


@pytest.mark.integration  # runs git
@pytest.mark.skipif(SHALLOW, reason="needs the recipes' git history")
def test_an_older_committed_version_of_the_recipe_is_known(tmp_path):
    path = "recipes/io-schedulers/recipe.toml"
    first = git("log", "--format=%H", "--", path).split()[-1]
    old = git("show", f"{first}:{path}")
    assert old.encode() != (REPO / path).read_bytes()
    doc = base_doc()
    doc["recipe"]["name"] = "io-schedulers"
    rehash(doc, old)
    assert check.check_recipe(doc) == []  # a version of the recipe...
    path, problems = problems_of(tmp_path, doc)
    assert not [p for p in problems if ": recipe/" in p]
    # ...whose experiment doublewrite's runs are not (contrib/experiment.py)
    assert f"{path}: sweep/setting: 'innodb_doublewrite'; expected 'storage.scheduler', the " \
           "setting recipe/text sweeps" in problems


def shallow_git(cwd, *args):
    return b"true\n" if "--is-shallow-repository" in args else b""  # and no history


def failing_git(exc):
    def git(cwd, *args):
        raise exc
    return git


@pytest.mark.parametrize("fake_git, why", [
    (shallow_git, "shallow clone; fetch the full history (git fetch --unshallow)"),
    (failing_git(FileNotFoundError("git")), "git is not installed"),
    (failing_git(subprocess.CalledProcessError(128, "git", stderr=b"fatal: not a git "
                                                                b"repository\n")),
     "git failed: fatal: not a git repository"),
])
def test_a_history_it_cannot_read_is_said_not_passed(tmp_path, monkeypatch, fake_git, why):
    monkeypatch.setattr(history, "git", fake_git)
    history.recipe_versions.cache_clear()
    history.revision_time.cache_clear()
    try:
        doc = base_doc()
        rehash(doc, doc["recipe"]["text"] + "\n")
        path, problems = problems_of(tmp_path, doc)
        assert problems == [f"{path}: recipe/sha256: {doc['recipe']['sha256']} is not the "
                            "current recipes/doublewrite/recipe.toml, and cannot check older "
                            f"versions: {why}"]
        current = base_doc()
        text = (REPO / "recipes" / "doublewrite" / "recipe.toml").read_text()
        rehash(current, text)
        current["regime"] = declared(text)  # a result of today's recipe carries its checks
        # ...run with the base file's warm-up, which today's quick profile no longer has
        current["plan"]["overrides"] = {"warmup_s": current["plan"]["warmup_s"]}
        document.recompute(current)
        assert problems_of(tmp_path / "current", current)[1] == []  # the current file is known
    finally:
        history.recipe_versions.cache_clear()
        history.revision_time.cache_clear()


# --- values -------------------------------------------------------------------------------------

def test_negative_values_in_summary_and_series(tmp_path):
    doc = base_doc()
    doc["points"][0]["runs"][0]["summary"]["io"]["write_bytes_per_trx"] = -5.0
    doc["points"][1]["runs"][4]["series"]["latency_p95_ms"][0] = -1
    document.recompute(doc)  # statistics in line with the runs: only this rule speaks
    path, problems = problems_of(tmp_path, doc)
    assert problems == [
        f"{path}: points/0/runs/0/summary/io/write_bytes_per_trx: -5.0 is negative; "
        "expected a number >= 0",
        f"{path}: points/1/runs/4/series/latency_p95_ms/0: -1 is negative; expected a number >= 0"]


def test_missing_and_repeated_repeats(tmp_path):
    doc = base_doc()
    del doc["points"][0]["runs"][2]        # repeat 3 of ON is gone
    doc["points"][1]["runs"][1]["repeat"] = 1
    document.recompute(doc)
    path, problems = problems_of(tmp_path, doc)
    assert problems == [
        f"{path}: points/0/runs: repeats 1, 2, 4, 5, missing 3; expected 1 to 5 once each "
        "(plan/repeats)",
        f"{path}: points/1/runs: repeats 1, 1, 3, 4, 5, missing 2; expected 1 to 5 once each "
        "(plan/repeats)"]


def test_series_of_another_length_than_t(tmp_path):
    doc = base_doc()
    doc["points"][0]["runs"][1]["series"]["tps"].pop()
    path, problems = problems_of(tmp_path, doc)
    assert problems == [f"{path}: points/0/runs/1/series/tps: 19 samples; expected 20, one per "
                        "entry of series/t"]


def test_series_too_short_for_the_plans_duration(tmp_path):
    doc = base_doc()
    series = doc["points"][1]["runs"][0]["series"]
    for key in series:
        del series[key][10:]
    document.recompute(doc)
    path, problems = problems_of(tmp_path, doc)
    assert problems == [f"{path}: points/1/runs/0/series/t: 10 samples for a 20 s run; "
                        "expected 18 to 22 (plan/duration_s, one a second)"]


def test_timestamps_out_of_order(tmp_path):
    doc = base_doc()
    run = doc["points"][0]["runs"][0]
    run["finished"] = "2026-11-21T23:39:10+00:00"
    doc["points"][1]["runs"][0]["started"] = "2026-11-21T23:00:00+00:00"
    path, problems = problems_of(tmp_path, doc)
    assert problems == [
        f"{path}: points/0/runs/0/finished: 2026-11-21T23:39:10+00:00 is before "
        f"points/0/runs/0/started {run['started']}; expected started <= each run's started "
        "<= its finished <= finished",
        f"{path}: points/1/runs/0/started: 2026-11-21T23:00:00+00:00 is before started "
        "2026-11-21T23:38:47+00:00; expected started <= each run's started <= its finished "
        "<= finished"]


def test_an_unfinished_result(tmp_path):
    doc = base_doc()
    doc["finished"] = None
    path, problems = problems_of(tmp_path, doc)
    assert problems == [f"{path}: finished: null; expected the time the run finished (only "
                        "finished results belong in data/)"]


def test_baseline_and_point_ids(tmp_path):
    doc = base_doc()
    doc["points"][1]["id"] = doc["points"][0]["id"]          # both innodb_doublewrite=ON
    doc["sweep"]["baseline"] = "innodb_doublewrite=OFF"
    path, problems = problems_of(tmp_path, doc)
    assert problems == [
        f"{path}: points/1/id: 'innodb_doublewrite=ON' is also points/0/id; expected unique "
        "point ids",
        f"{path}: sweep/baseline: 'innodb_doublewrite=OFF' is no point; expected one of: "
        "'innodb_doublewrite=ON'"]


# --- text ---------------------------------------------------------------------------------------

def test_control_characters_and_long_strings(tmp_path):
    doc = base_doc()
    doc["storage"]["path"] = "/work\x1b[31m red"
    doc["points"][0]["settings"]["innodb_x"] = "y" * 2001
    doc["host"]["cpu_model"] = "AMD\nEPYC"            # one line: a newline is refused (issue 77)
    doc["points"][1]["effective"] = {"bad\rkey": "1"}
    path, problems = problems_of(tmp_path, doc)
    one_line = ("expected one line of text without control characters or line separators (a "
                "line break would forge a line of the terminal's)")
    assert problems == [
        f"{path}: host/cpu_model: control character U+000A at character 3; {one_line}",
        f"{path}: storage/path: control character U+001B at character 5; {one_line}",
        f"{path}: points/0/settings/innodb_x: 2,001 characters; expected at most 2,000",
        f"{path}: points/1/effective/bad\\rkey: the key control character U+000D at character 3;"
        f" {one_line}",
        # the setting is also none the recipe gives (contrib/experiment.py), a line cut short
        check.one_line(f"{path}: points/0/settings/innodb_x: {'y' * 2001!r} is no setting the "
                       "recipe gives point innodb_doublewrite=ON on MariaDB 10.11.19; expected "
                       "none")]
    assert all("\x1b" not in line and "\r" not in line and "\n" not in line
               for line in problems)


def test_a_long_recipe_text_is_named_once_and_lines_stay_short(tmp_path):
    doc = base_doc()
    rehash(doc, doc["recipe"]["text"] + "#" * (check.MAX_RECIPE_TEXT))
    path, problems = problems_of(tmp_path, doc)
    size = len(doc["recipe"]["text"].encode())
    assert problems[0] == (f"{path}: recipe/text: {size:,} bytes; expected at most "
                           f"{check.MAX_RECIPE_TEXT:,}")
    assert problems[1].startswith(f"{path}: recipe/text: '") and \
        problems[1].endswith("' is too long")                  # the schema's own limit
    assert len(problems) == 2 and len(problems[1]) <= check.MAX_LINE + 5


# --- the file's place ---------------------------------------------------------------------------

@pytest.mark.parametrize("where", [f"data/redo-size/{BASE.name}",
                                   "data/doublewrite/20261121T233847Z-209a4cf4-full.json"])
def test_a_file_in_the_wrong_place(tmp_path, where):
    path, problems = problems_of(tmp_path, base_doc(), where)
    assert problems == [
        f"{path}: (top): the file is {'/'.join(where.split('/')[1:])}; expected "
        f"data/doublewrite/{BASE.name} (document.final_path: recipe/name, started, host/id, "
        "profile, variant)"]


# --- the command line ---------------------------------------------------------------------------

@pytest.mark.integration  # runs invoke
def test_invoke_data_check_prints_the_line_and_fails(tmp_path):
    doc = base_doc()
    doc["points"][0]["runs"][1]["series"]["tps"].pop()
    bad = place(tmp_path, doc)
    good = place(tmp_path / "good", base_doc())
    result = subprocess.run([sys.executable, "-m", "invoke", "data.check", "--path", str(bad),
                             "--path", str(good)],
                            cwd=REPO, capture_output=True, text=True, timeout=120)
    assert result.returncode == 1, result.stdout + result.stderr
    assert result.stdout.splitlines() == [
        f"{bad}: points/0/runs/1/series/tps: 19 samples; expected 20, one per entry of series/t",
        "2 result files checked, 1 problem"]
    assert "Traceback" not in result.stderr


@pytest.mark.integration  # runs invoke
def test_invoke_data_check_passes_a_good_directory(tmp_path):
    good = place(tmp_path, base_doc())
    result = subprocess.run([sys.executable, "-m", "invoke", "data.check", "--path",
                             str(tmp_path / "data")],
                            cwd=REPO, capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stdout == "1 result file checked, 0 problems\n"
    assert good.is_file()


# --- JSON a reader would misread, and values no recipe gives (issue 36) ------------------------

def test_a_key_twice_in_one_object(tmp_path):
    """json.loads keeps the last of two values silently: the checker and the site would read
    one, a reviewer the other."""
    path = place(tmp_path, base_doc())
    text = path.read_text()
    path.write_text(text.replace('"profile": "quick"', '"profile": "full", "profile": "quick"', 1))
    assert check.check_file(path) == [
        f"{path}: (file): the key 'profile' twice in one object; expected each key once (a JSON "
        "reader keeps only the last)"]


def test_a_value_nested_too_deep(tmp_path):
    doc = base_doc()
    deep = value = {}
    for _ in range(900):
        value["x"] = {}
        value = value["x"]
    doc["methods"]["extra"] = deep
    path, problems = problems_of(tmp_path, doc)
    assert problems[0].startswith(f"{path}: methods/extra/x/x/")
    assert problems[0].endswith(f": nested {check.MAX_DEPTH + 1} levels deep; expected at most "
                                f"{check.MAX_DEPTH}")
    assert len(problems) == 1


def test_dates_before_the_lab_existed(tmp_path):
    doc = base_doc()
    doc["started"] = "1970-01-01T00:00:00+00:00"
    path, problems = problems_of(tmp_path, doc)
    assert f"{path}: started: 1970-01-01T00:00:00+00:00 is before 2026-01-01, before the lab's " \
           "first recipe; expected the time the run ran" in problems


@pytest.mark.parametrize("where, key, value, message", [
    ("plan", "warmup_s", 1e308, "1e+308 is beyond what a recipe may ask; expected at most "
                                "86,400 seconds (a day)"),
    ("workload", "threads", 10**19, "1e+19 is beyond what a recipe may ask; expected at most "
                                    "1,024 threads"),
])
def test_a_plan_no_recipe_asks_for(tmp_path, where, key, value, message):
    doc = base_doc()
    doc[where][key] = value
    path, problems = problems_of(tmp_path, doc)
    assert f"{path}: {where}/{key}: {message}" in problems


def test_a_calibration_record_is_never_a_contribution(committed_data, tmp_path):
    """Issue 57: `data.check --contributions --path data/calibrations/<forged>.json` reported
    nothing, where CI refuses the file; now both say why (pull_request.py says it too)."""
    forged = tmp_path / "calibrations" / "20261201T000000Z-0badc0de.json"
    forged.parent.mkdir()
    forged.write_bytes(next((committed_data / "calibrations").glob("*.json")).read_bytes())
    assert check.check_paths([forged]) == []  # a valid record, as the project's
    problems = check.check_paths([forged], contributions=True)
    assert problems == [f"{forged}: an A/A calibration record: it sets how wide every pooled "
                        "interval of its host class is, so only the project's own machines add "
                        "them (invoke lab.noise)"]
