"""A duet on real servers: two throwaway servers from one template at once, each on its own CPU
(read back from the kernel) and, for a storage recipe, its own sandbox; both series recorded
second by second, the halves swapped; nothing left behind, and a failing side stops both."""

import dataclasses
import os
import shutil
import tempfile
from pathlib import Path

import pytest

from helpers import (NOTHING, fixture_recipe, leftovers, needs_real_server, run_recipe,
                     servers_under)
from tuninglab.contrib import design as design_rules
from tuninglab.contrib import forgery, values
from tuninglab import calibrate
from tuninglab.engine.run import duet, preflight, runner
from tuninglab.engine.run.leftovers import undo_recorded
from tuninglab.engine.run.progress import Progress
from tuninglab.engine.server import datadir
from tuninglab.errors import UserError
from tuninglab.recipes.load import load
from tuninglab.results.duet import DUET_METHOD

pytestmark = pytest.mark.integration


@pytest.fixture
def scratch():
    """A short directory (a socket's path must be short) for recipes and the work directory."""
    if os.geteuid() != 0:
        pytest.skip("needs root: memory cgroups and storage sandboxes")
    needs_real_server()
    path = Path(tempfile.mkdtemp(prefix="tl-duet-"))
    try:
        yield path
    finally:
        runner_clean(path / "wd")
        shutil.rmtree(path, ignore_errors=True)


def runner_clean(wd: Path) -> None:
    if wd.exists():
        undo_recorded(wd)


def duet_of(recipe, wd: Path, profile="full", warmup=2, seconds=8):
    opts = runner.Options(profile=profile, repeats=1, duration=seconds, warmup=warmup,
                          workdir=wd)
    plan, binary, _ = preflight.prepare(recipe, opts)
    e = plan.experiment
    base = next(p for p in plan.points if p.value == e.sweep.baseline)
    tested = next(p for p in plan.points if p is not base)
    data = datadir.ensure(wd, binary, e.dataset, e.workload.threads, print)
    (wd / "runs").mkdir(exist_ok=True)
    return tested, base, binary, data, e


def a_a(scratch):
    """A CPU-bound A/A duet's work directory and what duet_of gives for it."""
    wd = scratch / "wd"
    wd.mkdir()
    (scratch / "aa").mkdir()
    (scratch / "aa" / "recipe.toml").write_text(calibrate.scratch_recipe(
        "restart", 2, 8, 1, "duet A/A", "q"))
    return wd, duet_of(load("aa", scratch), wd)


def test_a_duet_runs_both_servers_at_once_on_their_own_cpus_and_swaps_them(scratch):
    wd, (tested, base, binary, data, e) = a_a(scratch)
    halves = duet.halves(tested, base, 1, binary, data, wd / "runs", e, Progress(2, 0, 10, print))
    first, second = halves
    assert first["tested"]["server_cpus"] == first["cpus"]["tested"] == [0]
    assert first["baseline"]["server_cpus"] == [1]
    assert second["tested"]["server_cpus"] == [1] and second["baseline"]["server_cpus"] == [0]
    for half in halves:
        paired = duet.paired(half)
        assert len(paired.values) >= 6 and all(x > 0 for x in paired.values)
    c = duet.comparison(halves, batches=2)   # one repeat: a ratio, no interval
    assert c.comparison.ratio > 0 and c.comparison.ci_low is None
    assert servers_under(wd) == [] and not list((wd / "runs").iterdir())


def test_a_storage_duet_builds_two_sandboxes_at_once_and_leaves_nothing(scratch):
    wd = scratch / "wd"
    wd.mkdir()
    fixture_recipe(scratch / "recipes", "tiny-storage")   # none against mq-deadline
    tested, base, binary, data, e = duet_of(load("tiny-storage", scratch / "recipes"), wd,
                                            profile="quick", warmup=0)
    halves = duet.halves(tested, base, 1, binary, data, wd / "runs", e, Progress(2, 0, 8, print))
    for half in halves:
        devices = {side: half[side]["storage"]["device"] for side in ("tested", "baseline")}
        assert devices["tested"] != devices["baseline"]
        assert half["tested"]["storage"]["scheduler"] == tested.storage["scheduler"]
        assert half["baseline"]["storage"]["scheduler"] == base.storage["scheduler"]
    assert leftovers(wd) == NOTHING and servers_under(wd) == []


def test_a_side_that_cannot_start_stops_the_duet_and_both_clean_up(scratch):
    wd, (tested, base, binary, data, e) = a_a(scratch)
    # a server refuses to start with an option it does not know
    broken = dataclasses.replace(tested, settings={**tested.settings, "no_such_option": "1"})
    with pytest.raises(UserError):
        duet.halves(broken, base, 1, binary, data, wd / "runs", e, Progress(2, 0, 10, print))
    assert servers_under(wd) == [] and leftovers(wd) == NOTHING


def test_invoke_recipe_with_design_duet_writes_a_result_of_halves(recipes_dir, shared_workdir,
                                                                  tmp_path):
    fixture_recipe(recipes_dir, "tiny-switchback")   # flush_log_at_trx_commit 1 vs 2
    lines = []
    path, doc = run_recipe("tiny-switchback", recipes_dir, shared_workdir, tmp_path / "data",
                           lines.append, design="duet", repeats=1, duration="10s")
    assert doc["plan"]["design"] == "duet" and doc["plan"]["repeats"] == 1
    halves = {}
    for point in doc["points"]:
        assert sorted(r["repeat"] for r in point["runs"]) == [1, 2]
        for run in point["runs"]:
            assert run["effective"]["innodb_flush_log_at_trx_commit"] == point["value"]
            halves.setdefault(run["repeat"], []).append((run["order"], run["server_cpus"]))
    for runs in halves.values():   # at once, on the two CPUs, the earlier order on the first
        assert [cpus for _, cpus in sorted(runs)] == [[0], [1]]
    ratio = doc["points"][1]["stats"]["ratio"]
    assert ratio["verdict_kind"] == "too few repeats" and ratio["ratio"] > 0   # one repeat
    assert ratio["batch_seconds"] >= 1 and ratio["placement"] > 0
    assert doc["methods"]["ratio"] == DUET_METHOD
    assert forgery.check_statistics(doc) == [] and values.check_numbers(doc) == []
    assert values.check_repeats(doc) == [] and design_rules.check_halves(doc) == []
    assert any(line.startswith("duet: 2 halves of two servers at once") for line in lines)
    assert any(line.startswith("[half 2/2] ") for line in lines)
    assert servers_under(shared_workdir) == []


def test_a_duet_refuses_a_named_device(recipes_dir, shared_workdir, tmp_path):
    fixture_recipe(recipes_dir, "tiny-switchback")
    with pytest.raises(UserError, match="a duet builds a sandbox for each of its two servers"):
        run_recipe("tiny-switchback", recipes_dir, shared_workdir, tmp_path / "data",
                   design="duet", devices=("/dev/loop-nonexistent",))


def test_the_stop_rule_adds_a_duets_rounds_two_halves_at_a_time(recipes_dir, shared_workdir,
                                                                tmp_path):
    """No duet reaches ±0.01%: after its planned repeat the rule adds whole repeats (two
    halves, places swapped) until another would overrun the budget."""
    fixture_recipe(recipes_dir, "tiny-switchback")
    lines = []
    _, doc = run_recipe("tiny-switchback", recipes_dir, shared_workdir, tmp_path / "data",
                        lines.append, design="duet", repeats=1, duration="8s",
                        precision="0.01%", budget="90s")
    repeats = doc["plan"]["repeats"]
    assert repeats >= 2 and "overrun the budget" in doc["plan"]["stopped"]
    for point in doc["points"]:
        assert sorted(r["repeat"] for r in point["runs"]) == list(range(1, 2 * repeats + 1))
    assert design_rules.check_halves(doc) == [] and values.check_repeats(doc) == []
    assert any(line.startswith("stop rule: ") and ": round 2" in line for line in lines)
    assert any(line.startswith(f"[half {2 * repeats}/{2 * repeats}] ") for line in lines)
    assert servers_under(shared_workdir) == []
