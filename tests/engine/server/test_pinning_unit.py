"""CPU pinning ([measure] pin): how a host's CPUs are split, that the split is applied to the
server's threads and to the load generator started inside, and what the recipe and the
result say of it."""

import os
import subprocess
import sys
from types import SimpleNamespace

import pytest

from helpers import fixture_recipe
from tuninglab.engine.run import record
from tuninglab.engine.server import pinning
from tuninglab.errors import UserError
from tuninglab.recipes import plan as planner
from tuninglab.recipes.load import load


@pytest.mark.parametrize("cpus,split", [
    ([0], None),
    ([0, 1], {"server": [1], "client": [0]}),
    ([3, 1, 2, 0], {"server": [1, 2, 3], "client": [0]}),
    (list(range(8)), {"server": [2, 3, 4, 5, 6, 7], "client": [0, 1]}),
])
def test_the_load_generator_gets_a_quarter_of_the_cpus_and_at_least_one(cpus, split):
    assert pinning.split(cpus) == split


def test_nothing_is_pinned_without_a_split():
    own = os.sched_getaffinity(0)
    with pinning.pinned(SimpleNamespace(), None):  # no process asked for
        assert os.sched_getaffinity(0) == own


@pytest.mark.skipif(len(os.sched_getaffinity(0)) < 2, reason="needs two CPUs to split")
def test_the_server_threads_and_the_client_started_inside_are_pinned_apart():
    cpus = pinning.split(pinning.available())
    server = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(30)"])
    own = os.sched_getaffinity(0)
    try:
        with pinning.pinned(SimpleNamespace(process=server), cpus):
            client = subprocess.run([sys.executable, "-c", "import os; "
                                     "print(sorted(os.sched_getaffinity(0)))"],
                                    capture_output=True, text=True, check=True)
            assert sorted(os.sched_getaffinity(server.pid)) == cpus["server"]
        assert client.stdout.strip() == str(cpus["client"])
        assert os.sched_getaffinity(0) == own  # the engine's own thread given back its CPUs
    finally:
        server.kill()
        server.wait()


def experiment(tmp_path, measure_lines: str):
    fixture_recipe(tmp_path, "tiny", replace={"[measure]\n": f"[measure]\n{measure_lines}"})
    return load("tiny", recipes_dir=tmp_path).experiment()


def test_pin_and_drop_caches_are_off_unless_a_recipe_sets_them(tmp_path):
    m = experiment(tmp_path, "").measure
    assert (m.pin, m.drop_caches) == (False, False)
    m = experiment(tmp_path / "on", "pin = true\ndrop_caches = true\n").measure
    assert (m.pin, m.drop_caches) == (True, True)


def test_pin_must_be_a_boolean(tmp_path):
    with pytest.raises(UserError, match="pin"):
        experiment(tmp_path, 'pin = "yes"\n')


def test_the_dry_run_and_the_result_say_what_was_pinned(tmp_path, monkeypatch):
    monkeypatch.setattr(pinning, "available", lambda: [0, 1])
    e = experiment(tmp_path, "pin = true\n")
    assert "CPUs: the server and the load generator pinned" in planner.describe(
        planner.build(e), "MariaDB 10.11.19")
    assert record._pin(e.measure) == {"pin": {"server": [1], "client": [0]}}
    monkeypatch.setattr(pinning, "available", lambda: [0])
    assert record._pin(e.measure) == {}  # one CPU: nothing to split, nothing recorded


def test_drop_caches_in_the_work_directory_needs_root(tmp_path, monkeypatch):
    from tuninglab.engine.run import preflight
    fixture_recipe(tmp_path, "tiny", replace={"[measure]\n": "[measure]\ndrop_caches = true\n"})
    monkeypatch.setattr(os, "geteuid", lambda: 1000)
    with pytest.raises(UserError, match="measure.drop_caches needs root"):
        preflight.check_needs(load("tiny", recipes_dir=tmp_path))
