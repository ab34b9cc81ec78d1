"""The server's memory allocator (issue 21): a recipe sets or sweeps it, the engine preloads
its library, and a server that reports another allocator fails the run."""

import pytest

from helpers import fixture_recipe, load_error, recipe_text, run_recipe, servers_under, write_recipe
from tuninglab.engine.server import allocators
from tuninglab.errors import UserError
from tuninglab.recipes import plan
from tuninglab.recipes.load import load

SWEEP = '[sweep]\nsetting = "server.allocator"\nvalues = ["glibc", "jemalloc"]\n'


def test_glibc_preloads_nothing():
    assert allocators.library("glibc") is None and allocators.environment("glibc") is None


def test_a_missing_library_names_its_package(monkeypatch):
    monkeypatch.setattr(allocators, "_from_ldconfig", lambda soname: None)
    monkeypatch.setattr(allocators, "LIB_DIRS", ("/nonexistent",))
    with pytest.raises(UserError, match=r"needs libjemalloc.so.2, which is not installed "
                                        r"\(`apt-get install libjemalloc2`"):
        allocators.library("jemalloc")


@pytest.mark.parametrize("asked, reported", [
    ("glibc", "system"), ("jemalloc", "jemalloc 5.3.0-0-g54eaed1d8b56b1aa528be3bdd1877e59c56fa90c"),
    ("tcmalloc", "tcmalloc 2.10"), ("jemalloc", None)])
def test_the_servers_report_matches_what_was_asked(asked, reported):
    allocators.check(asked, reported)


@pytest.mark.parametrize("asked, reported", [("jemalloc", "system"), ("glibc", "tcmalloc 2.10")])
def test_another_allocator_than_asked_fails(asked, reported):
    with pytest.raises(UserError, match="an allocator that never ran"):
        allocators.check(asked, reported)


def test_a_sweep_gives_each_point_its_allocator(tmp_path):
    write_recipe(tmp_path, "demo", recipe_text(sweep=SWEEP))
    points = plan.build(load("demo", recipes_dir=tmp_path).experiment()).points
    assert [(p.allocator, p.settings.get("allocator")) for p in points] == [
        ("glibc", None), ("jemalloc", None)]


def test_a_recipe_may_set_its_allocator(tmp_path):
    write_recipe(tmp_path, "demo", recipe_text(server='[server]\nallocator = "tcmalloc"\n'))
    e = load("demo", recipes_dir=tmp_path).experiment()
    assert {p.allocator for p in plan.build(e).points} == {"tcmalloc"}


@pytest.mark.parametrize("tables, expected", [
    ({"server": '[server]\nallocator = "mimalloc"\n'},
     "server.allocator: expected one of glibc, jemalloc, tcmalloc, got 'mimalloc'"),
    ({"sweep": '[sweep]\nsetting = "server.allocator"\nvalues = ["glibc", "hoard"]\n'},
     "sweep.values: 'hoard': expected one of glibc, jemalloc, tcmalloc"),
    ({"sweep": SWEEP, "lab": '[lab]\nkernel = "cloud-amd64"\n'},
     "server.allocator: the lab VM's server keeps glibc's allocator"),
])
def test_bad_allocators(tmp_path, tables, expected):
    assert expected in load_error(tmp_path, recipe_text(**tables))


# The tiny recipe sweeping the server's allocator instead of the doublewrite buffer.
TINY_SWEEP = {'setting = "innodb_doublewrite"\nvalues = ["ON", "OFF"]\n':
              'setting = "server.allocator"\nvalues = ["glibc", "jemalloc", "tcmalloc"]\n'}


@pytest.mark.integration
def test_each_run_preloads_its_allocator_and_records_what_the_server_runs(
        recipes_dir, shared_workdir, tmp_path):
    fixture_recipe(recipes_dir, "tiny", "malloc", replace=TINY_SWEEP)
    _, doc = run_recipe("malloc", recipes_dir, shared_workdir, tmp_path / "data", repeats=1)
    reported = {p["value"]: p["runs"][0]["allocator"] for p in doc["points"]}
    assert reported["glibc"] == {"name": "glibc", "reported": "system"}
    assert reported["jemalloc"]["reported"].startswith("jemalloc ")
    assert reported["tcmalloc"]["reported"].startswith("tcmalloc ")
    assert all(p["runs"][0]["summary"]["tps"] > 0 for p in doc["points"])
    assert servers_under(shared_workdir) == []
