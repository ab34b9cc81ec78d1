"""A recipe run whole on a server that lacks one experiment's option: that experiment is skipped
with its reason, the others run; asked for by name, or with nothing left, it is refused."""

from types import SimpleNamespace

import pytest

from tuninglab.engine.run import preflight, runner
from tuninglab.engine.server.option_names import check_known
from tuninglab.errors import NotOnThisServer, UserError

RECIPES = [SimpleNamespace(label="doublewrite", variant=""),
           SimpleNamespace(label="doublewrite, variant mysql-only", variant="mysql-only")]


@pytest.fixture
def prepare(monkeypatch):
    def fake(recipe, _opts):
        if recipe.variant == "mysql-only":
            raise NotOnThisServer("recipes/doublewrite/recipe.toml: the server MariaDB 10.11.19 "
                                  "has no option 'innodb_doublewrite_files'")
        return f"prepared {recipe.label}"
    monkeypatch.setattr(preflight, "prepare", fake)


def test_the_whole_recipe_skips_the_experiment_the_server_cannot_express(prepare):
    lines = []
    ready = runner._prepare_all(RECIPES, ["o1", "o2"], False, lines.append)
    assert ready == [("o1", "prepared doublewrite")]
    assert lines == ["skipping doublewrite, variant mysql-only: recipes/doublewrite/recipe.toml: "
                     "the server MariaDB 10.11.19 has no option 'innodb_doublewrite_files'"]


def test_an_experiment_asked_for_by_name_is_refused(prepare):
    with pytest.raises(NotOnThisServer, match="has no option 'innodb_doublewrite_files'"):
        runner._prepare_all(RECIPES[1:], ["o2"], True, print)


def test_with_nothing_left_the_recipe_is_refused_saying_so_once(prepare):
    lines = []
    with pytest.raises(NotOnThisServer):
        runner._prepare_all(RECIPES[1:], ["o2"], False, lines.append)
    assert lines == []   # the error says why; no "skipping" line repeats it


def test_an_unknown_option_is_not_on_this_server_and_still_a_user_error():
    with pytest.raises(NotOnThisServer) as err:
        check_known({"innodb_buffer_pool_instances": 4}, frozenset({"innodb_doublewrite"}),
                    "MariaDB 10.11.19", "recipes/x/recipe.toml: sweep.setting")
    assert isinstance(err.value, UserError)
    assert "(MariaDB ignores it from 10.5.1" in str(err.value)


# --- a point the server cannot express --------------------------------------------------------

def modes_plan():
    from tuninglab.recipes import plan as planner
    from tuninglab.recipes.load import load
    recipe = load("doublewrite", variant="modes")
    return recipe, planner.build(recipe.experiment("quick"))


def refusing(monkeypatch, *values):
    """check_options as a server that lacks these values of the sweep would answer."""
    def check(recipe, experiment, binary, points=()):
        for point in points:
            if point.value in values:
                raise NotOnThisServer(f"{point.value} is a value of another server only")
    monkeypatch.setattr(preflight, "check_options", check)


BINARY = SimpleNamespace(label="MySQL 9.7.4")


def test_a_point_the_server_cannot_express_is_skipped_and_the_rest_replanned(monkeypatch):
    recipe, plan = modes_plan()
    refusing(monkeypatch, "fast")
    kept = preflight.expressible(recipe, plan, BINARY)
    assert [p.value for p in kept.points] == ["ON", "DETECT_ONLY", "OFF"]
    assert kept.skipped == (("fast", "fast is a value of another server only"),)
    assert {r.point.value for r in kept.runs} == {"ON", "DETECT_ONLY", "OFF"}
    assert len(kept.runs) == 3 * plan.experiment.measure.repeats


def test_every_point_expressible_leaves_the_plan_as_it_is(monkeypatch):
    recipe, plan = modes_plan()
    refusing(monkeypatch)
    assert preflight.expressible(recipe, plan, BINARY) is plan


def test_a_sweep_left_without_the_values_it_is_about_is_not_on_this_server(monkeypatch):
    recipe, plan = modes_plan()
    refusing(monkeypatch, "fast", "DETECT_ONLY")
    with pytest.raises(NotOnThisServer, match="MySQL 9.7.4 takes none of the values of "
                                              "innodb_doublewrite this sweep is about"):
        preflight.expressible(recipe, plan, BINARY)


def test_a_baseline_the_server_cannot_express_refuses_the_experiment(monkeypatch):
    recipe, plan = modes_plan()
    refusing(monkeypatch, "ON")
    with pytest.raises(NotOnThisServer, match="ON is a value"):
        preflight.expressible(recipe, plan, BINARY)


def test_the_run_says_which_points_it_skipped(monkeypatch, tmp_path):
    recipe, plan = modes_plan()
    refusing(monkeypatch, "fast")
    kept = preflight.expressible(recipe, plan, BINARY)
    lines = []
    opts = runner.Options(profile="quick", dry_run=True, workdir=str(tmp_path))
    monkeypatch.setattr(runner.dynamic, "settled", lambda p, wd, b: p)
    monkeypatch.setattr(runner, "Saved", lambda *a: (_ for _ in ()).throw(RuntimeError("stop")))
    with pytest.raises(RuntimeError, match="stop"):
        runner.run("doublewrite", opts, lines.append, (kept, BINARY, ()))
    assert lines == ["skipping point fast of doublewrite:modes: fast is a value of "
                     "another server only"]


def test_every_plan_of_the_experiment_keeps_what_it_skipped(monkeypatch):
    """The run replans (a switchback falling back to restarts, the stop rule's rounds): the
    skipped points stay recorded, since they ride on the experiment's sweep."""
    from tuninglab.engine.run import stop_rule
    from tuninglab.recipes import plan as planner
    recipe, plan = modes_plan()
    refusing(monkeypatch, "fast")
    kept = preflight.expressible(recipe, plan, BINARY)
    restart = planner.build(kept.experiment, kept.seed, "restart")
    assert restart.skipped == kept.skipped and len(restart.points) == 3
    assert stop_rule.with_rounds(kept, 9).skipped == kept.skipped


def test_the_result_records_why_naming_the_recipe_as_the_repository_does(monkeypatch):
    from tuninglab.engine.run import record
    recipe, plan = modes_plan()

    def check(recipe_, experiment, binary, points=()):
        if any(p.value == "fast" for p in points):
            raise NotOnThisServer(f"{recipe_.path}: sweep.values (variant modes): refused")
    monkeypatch.setattr(preflight, "check_options", check)
    kept = preflight.expressible(recipe, plan, BINARY)
    assert record._skipped(kept) == {"skipped": [
        {"value": "fast", "why": "recipes/doublewrite/recipe.toml: sweep.values (variant modes): "
                                 "refused"}]}
