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


def test_with_nothing_left_the_recipe_is_refused(prepare):
    with pytest.raises(NotOnThisServer):
        runner._prepare_all(RECIPES[1:], ["o2"], False, lambda _line: None)


def test_an_unknown_option_is_not_on_this_server_and_still_a_user_error():
    with pytest.raises(NotOnThisServer) as err:
        check_known({"innodb_buffer_pool_instances": 4}, frozenset({"innodb_doublewrite"}),
                    "MariaDB 10.11.19", "recipes/x/recipe.toml: sweep.setting")
    assert isinstance(err.value, UserError)
    assert "(MariaDB ignores it from 10.5.1" in str(err.value)
