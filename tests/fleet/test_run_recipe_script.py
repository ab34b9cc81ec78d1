"""ansible/run-recipe.sh, the host's side of a fleet run, run here as fleet-run.yml runs it
there: a run's state, its start (pid and exit code kept), its poll (the latest progress and
error lines), the result files it wrote (only regular files of this tree's data/RECIPE/) and
its stop (the whole process group)."""

import os
import subprocess
import time

from helpers import REPO

SCRIPT = REPO / "ansible" / "run-recipe.sh"


def step(run_dir, *args, cwd=None):
    done = subprocess.run(["sh", str(SCRIPT), str(run_dir), *args], capture_output=True,
                          text=True, cwd=cwd, timeout=60)
    return done.returncode, done.stdout.splitlines(), done.stderr


def test_a_run_starts_once_reports_its_progress_and_keeps_its_exit(tmp_path):
    run = tmp_path / "runs" / "abc"
    assert step(run, "state")[1] == ["new"]
    assert step(run, "poll")[1] == ["starting"]   # until start has written the pid
    code, _, _ = step(run, "start", "sh", "-c", "echo '[1/2] a'; echo '[2/2] b'; "
                                               "echo 'error: boom'; exit 3")
    assert code == 3 and (run / "rc").read_text() == "3\n"
    assert step(run, "poll")[1] == ["done 3", "[2/2] b", "error: boom"]
    assert step(run, "state")[1] == ["new"] and not (run / "rc").exists()   # to start again
    step(run, "start", "true")
    assert step(run, "state")[1] == ["done 0"]   # done: nothing to start


def test_a_run_whose_process_ended_without_an_exit_code_is_lost(tmp_path):
    run = tmp_path / "r"
    run.mkdir()
    dead = subprocess.Popen(["true"])
    dead.wait()
    (run / "pid").write_text(f"{dead.pid}\n")
    assert step(run, "poll")[1][0] == "lost"


def test_only_regular_result_files_of_the_trees_recipe_are_listed(tmp_path):
    tree, run = tmp_path / "tree", tmp_path / "run"
    (tree / "data" / "doublewrite").mkdir(parents=True)
    good = tree / "data" / "doublewrite" / "a.json"
    good.write_text("{}")
    run.mkdir()
    (run / "log").write_text(f"[1/1] x\nwrote {good}\n  wrote {good}\n")
    assert step(run, "written", "doublewrite", "100", cwd=tree)[:2] == (0, [str(good)])
    for bad in ["/etc/shadow.json", f"{tree}/data/doublewrite/../../x.json",
                f"{tree}/data/direct-io/a.json", f"{tree}/data/doublewrite/sub/a.json"]:
        (run / "log").write_text(f"wrote {bad}\n")
        code, out, err = step(run, "written", "doublewrite", "100", cwd=tree)
        assert code == 1 and out == [] and "not a result file of doublewrite" in err
    (run / "log").write_text(f"wrote {good}\n")
    code, _, err = step(run, "written", "doublewrite", "1", cwd=tree)   # over the bound
    assert code == 1 and "not a regular file of at most 1 bytes" in err


def _alive_in_group(pgid):
    """The processes of a process group that still run (not zombies an init has yet to reap)."""
    alive = []
    for entry in os.listdir("/proc"):
        try:
            stat = open(f"/proc/{entry}/stat").read()
        except OSError:
            continue
        fields = stat[stat.rindex(")") + 2:].split()
        if entry.isdigit() and int(fields[2]) == pgid and fields[0] != "Z":
            alive.append(int(entry))
    return alive


def test_stop_ends_the_recipes_whole_process_group(tmp_path):
    run = tmp_path / "r"
    proc = subprocess.Popen(["sh", str(SCRIPT), str(run), "start", "sh", "-c",
                             "sleep 60 & sleep 60; wait"])
    deadline = time.monotonic() + 10
    while not (run / "pid").exists() and time.monotonic() < deadline:
        time.sleep(0.05)
    pgid = int((run / "pid").read_text())
    assert step(run, "poll")[1][0] == "running"
    code, out, _ = step(run, "stop")
    assert code == 0 and out == [f"stopped the recipe of {run} (pid {pgid})"]
    proc.wait(10)
    assert _alive_in_group(pgid) == []   # the sleep in the background went too
    assert (run / "rc").read_text() == "143\n"
