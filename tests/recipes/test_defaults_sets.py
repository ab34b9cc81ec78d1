"""A server.defaults sweep (recipes/defaults_sets.py): its points are named sets of a flavour's
earlier defaults beside the server's own ("today"); a set is run only by its own flavour from
the release that changed those defaults, every other server skips it saying whose defaults
they are, and data.check accepts that skip and no other. Bad [defaults] tables are refused in
one line naming the file and the key."""

from types import SimpleNamespace

import pytest

from helpers import load_error, recipe_text, write_recipe
from tuninglab.contrib import experiment as ex
from tuninglab.engine.run import preflight
from tuninglab.errors import NotOnThisServer
from tuninglab.recipes import defaults_sets, plan as planner
from tuninglab.recipes.load import load

SWEEP = """[sweep]
setting = "server.defaults"
values = ["today", "old"]
baseline = "today"
"""
SET = """[defaults.old]
flavor = "mysql"
since = "8.4.0"
source = "a manual's section"

[defaults.old.settings]
innodb_io_capacity = 200
"""


def demo(sweep=SWEEP, sets=SET) -> str:
    return recipe_text(sweep=sweep) + "\n" + sets


def test_a_set_of_earlier_defaults_is_a_point_that_sets_them(tmp_path):
    write_recipe(tmp_path, "demo", demo())
    experiment = load("demo", recipes_dir=tmp_path).experiment()
    sweep = experiment.sweep
    [old] = sweep.sets
    assert (old.name, old.flavor, old.since, old.settings) == \
        ("old", "mysql", (8, 4, 0), (("innodb_io_capacity", "200"),))
    assert experiment.settings_for("old")["innodb_io_capacity"] == "200"
    assert "innodb_io_capacity" not in experiment.settings_for("today")
    assert defaults_sets.observed(sweep) == ("innodb_io_capacity",)


@pytest.mark.parametrize("sets, words", [
    (SET.replace('"mysql"', '"percona"'), 'defaults.old.flavor: expected one of mysql, mariadb, '
                                          "got 'percona'"),
    (SET.replace('"8.4.0"', '"8.4-lts"'), "defaults.old.since: expected the release that changed "
                                          "the defaults, such as \"8.4.0\", got '8.4-lts'"),
    (SET.replace('"a manual\'s section"', '""'), "defaults.old.source: expected the manual's "
                                                 "section that states these defaults"),
    (SET.replace("innodb_io_capacity = 200", ""), "defaults.old.settings: expected at least one "
                                                  "setting"),
    (SET.replace("innodb_io_capacity = 200", 'datadir = "/etc"'), "defaults.old.settings.datadir"),
    (SET.replace("since", "sinse"), "defaults.old"),
])
def test_a_bad_set_is_refused_naming_its_key(tmp_path, sets, words):
    message = load_error(tmp_path, demo(sets=sets))
    assert "\n" not in message and words in message


def test_the_sweep_needs_today_and_only_the_sets_names(tmp_path):
    no_today = SWEEP.replace('"today", "old"', '"old", "older"').replace('"today"', '"old"')
    assert "sweep.values: expected 'today'" in load_error(tmp_path, demo(sweep=no_today))
    unknown = SWEEP.replace('"today", "old"', '"today", "olde"')
    assert "sweep.values: 'olde': expected 'today' or the name of a [defaults.\"<name>\"] " \
           "table (old)" in load_error(tmp_path, demo(sweep=unknown))


def test_sets_of_defaults_belong_to_a_server_defaults_sweep(tmp_path):
    message = load_error(tmp_path, recipe_text() + "\n" + SET)
    assert 'defaults: sets of defaults are the points of a server.defaults sweep' in message


@pytest.mark.parametrize("flavor, version, runs", [
    ("mysql", (9, 7, 4), True), ("mysql", (8, 4, 0), True), ("mysql", (8, 0, 36), False),
    ("mariadb", (11, 8, 9), False)])
def test_a_set_is_run_by_its_flavour_from_the_release_that_changed_it(flavor, version, runs):
    old = defaults_sets.DefaultsSet("old", "mysql", (8, 4, 0), (), "s")
    why = old.refuses(flavor, version)
    assert (why is None) == runs
    if not runs:
        assert why == ("old sets the defaults MySQL 8.4.0 and later changed: a point for "
                       "MySQL 8.4.0 and later only")


# --- the defaults recipe on each server --------------------------------------------------------

def defaults_plan():
    recipe = load("defaults")
    return recipe, planner.build(recipe.experiment("quick"))


def server(flavor, version):
    label = f"{defaults_sets.FLAVORS[flavor]} {'.'.join(map(str, version))}"
    return SimpleNamespace(label=label, flavor=flavor, version=version)


@pytest.fixture
def every_option_known(monkeypatch):
    monkeypatch.setattr(preflight, "check_options", lambda *a, **k: None)


@pytest.mark.parametrize("flavor, version, kept, skipped", [
    ("mysql", (9, 7, 4), ["today", "mysql-8.0"], "mariadb-10.11"),
    ("mariadb", (11, 8, 9), ["today", "mariadb-10.11"], "mysql-8.0")])
def test_each_server_runs_its_own_flavours_set_and_skips_the_other(every_option_known, flavor,
                                                                  version, kept, skipped):
    recipe, plan = defaults_plan()
    out = preflight.expressible(recipe, plan, server(flavor, version))
    assert sorted(p.value for p in out.points) == sorted(kept)
    [(value, why)] = out.skipped
    assert value == skipped and "a point for" in why


def test_a_server_older_than_every_set_is_refused_in_one_line(every_option_known):
    recipe, plan = defaults_plan()
    with pytest.raises(NotOnThisServer) as err:
        preflight.expressible(recipe, plan, server("mariadb", (10, 11, 19)))
    message = str(err.value)
    assert "\n" not in message
    assert "MariaDB 10.11.19 runs none of the sets of earlier defaults this sweep compares its " \
           "own with (mariadb-10.11 is for MariaDB 11.6.2 and later; mysql-8.0 is for MySQL " \
           "8.4.0 and later)" in message


def skipped_doc(value):
    return {"plan": {"seed": 1, "repeats": 3, "skipped": [{"value": value, "why": "refused"}]}}


def test_data_check_accepts_the_skip_of_another_servers_set_and_no_other():
    experiment = load("defaults").experiment("quick")
    assert ex.check_skipped(skipped_doc("mariadb-10.11"), experiment, "mysql", (9, 7, 4)) == []
    doc = skipped_doc("mysql-8.0") | {"server": {"flavor": "mysql", "version": "9.7.4"}}
    [problem] = ex.check_skipped(doc, experiment, "mysql", (9, 7, 4))
    assert "plan/skipped/0/value" in problem and "'mysql-8.0'" in problem


def test_read_back_adds_variables_every_point_reads(tmp_path):
    write_recipe(tmp_path, "demo", demo(sets='[defaults]\nread_back = ["innodb-flush-method"]\n'
                                            + SET))
    sweep = load("demo", recipes_dir=tmp_path).sweep
    assert sweep.read_back == ("innodb_flush_method",)
    assert defaults_sets.observed(sweep) == ("innodb_flush_method", "innodb_io_capacity")


@pytest.mark.parametrize("read_back, words", [
    ('["innodb flush"]', "defaults.read_back: 'innodb flush': expected an option name"),
    ("[3]", "defaults.read_back: 3: expected an option name"),
    ('"innodb_flush_method"', "defaults.read_back: expected list, got a string")])
def test_a_bad_read_back_is_refused(tmp_path, read_back, words):
    message = load_error(tmp_path, demo(sets=f"[defaults]\nread_back = {read_back}\n" + SET))
    assert "\n" not in message and words in message


def test_read_back_belongs_to_a_server_defaults_sweep(tmp_path):
    message = load_error(tmp_path, recipe_text() + '\n[defaults]\nread_back = ["innodb_doublewrite"]\n')
    assert "defaults: sets of defaults are the points of a server.defaults sweep" in message
