"""The CPUs a server is held to (issue 21, hyper-threading's nearest question on a host without
SMT): a recipe sets or sweeps them, the server runs on that many from its exec, and each run
records the CPUs the kernel has it on."""

from types import SimpleNamespace

import pytest

from helpers import (
    fixture_recipe,
    load_error,
    recipe_text,
    run_recipe,
    servers_under,
    write_recipe,
)
from tuninglab.engine.run import preflight
from tuninglab.engine.server import pinning
from tuninglab.errors import UserError
from tuninglab.recipes import plan
from tuninglab.recipes.load import load

SWEEP = '[sweep]\nsetting = "server.cpus"\nvalues = [1, 2]\nbaseline = 2\n'


def experiment(tmp_path, **tables):
    write_recipe(tmp_path, "demo", recipe_text(**tables))
    return load("demo", recipes_dir=tmp_path).experiment()


def test_a_sweep_gives_each_point_its_cpus(tmp_path):
    points = plan.build(experiment(tmp_path, sweep=SWEEP)).points
    assert [(p.value, p.cpus) for p in points] == [("1", 1), ("2", 2)]
    assert plan.design_for(experiment(tmp_path, sweep=SWEEP)) == "restart"


def test_a_recipe_may_hold_its_server_to_some_cpus(tmp_path):
    e = experiment(tmp_path, server="[server]\ncpus = 1\n")
    assert {p.cpus for p in plan.build(e).points} == {1}
    assert {p.cpus for p in plan.build(experiment(tmp_path)).points} == {0}  # all of them


@pytest.mark.parametrize("tables, expected", [
    ({"server": "[server]\ncpus = 0\n"}, "server.cpus: expected a whole number >= 1, got 0"),
    ({"sweep": '[sweep]\nsetting = "server.cpus"\nvalues = [1, "two"]\n'},
     "sweep.values: 'two': expected a whole number of CPUs from 1 to 256"),
    ({"sweep": SWEEP, "lab": '[lab]\nkernel = "cloud-amd64"\n'},
     "server.cpus: the lab VM's server keeps glibc's allocator and the VM's CPUs"),
])
def test_bad_cpus(tmp_path, tables, expected):
    assert expected in load_error(tmp_path, recipe_text(**tables))


def test_more_cpus_than_the_host_gives_or_pinning_as_well_is_refused(tmp_path, monkeypatch):
    monkeypatch.setattr(pinning, "available", lambda: [0])
    e = experiment(tmp_path, sweep=SWEEP)
    with pytest.raises(UserError, match="to run on 2 CPUs, but this host gives the runner 1"):
        preflight.check_cpus(e.recipe, e, plan.build(e).points)
    monkeypatch.setattr(pinning, "available", lambda: [0, 1])
    preflight.check_cpus(e.recipe, e, plan.build(e).points)
    pinned = SimpleNamespace(measure=SimpleNamespace(pin=True))
    with pytest.raises(UserError, match="measure.pin and server.cpus both place"):
        preflight.check_cpus(e.recipe, pinned, plan.build(e).points)


def test_the_first_cpus_of_the_runners():
    assert pinning.first(0) is None
    assert pinning.first(1) == pinning.available()[:1]


# The tiny recipe sweeping its server's CPUs instead of the doublewrite buffer.
TINY_SWEEP = {'setting = "innodb_doublewrite"\nvalues = ["ON", "OFF"]\n':
              'setting = "server.cpus"\nvalues = [1, 2]\n'}


@pytest.mark.integration
def test_each_run_holds_its_server_to_its_cpus_and_records_them(recipes_dir, shared_workdir,
                                                                tmp_path):
    if len(pinning.available()) < 2:
        pytest.skip("needs two CPUs")
    fixture_recipe(recipes_dir, "tiny", "cpus", replace=TINY_SWEEP)
    _, doc = run_recipe("cpus", recipes_dir, shared_workdir, tmp_path / "data", repeats=1)
    held = {p["value"]: p["runs"][0]["server_cpus"] for p in doc["points"]}
    assert held == {"1": pinning.available()[:1], "2": pinning.available()[:2]}
    assert servers_under(shared_workdir) == []
