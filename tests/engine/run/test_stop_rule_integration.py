"""The stop rule on a restart design, for real: rounds added after the planned repeats until
the budget, recorded in the result."""

import pytest

from helpers import fixture_recipe, run_recipe, servers_under

pytestmark = pytest.mark.integration


def test_the_stop_rule_adds_restart_rounds_until_its_budget(recipes_dir, shared_workdir,
                                                            tmp_path):
    fixture_recipe(recipes_dir, "tiny", "ruled-restart", replace={
        "[measure]": '[measure]\ndesign = "restart"'})
    lines = []
    path, doc = run_recipe("ruled-restart", recipes_dir, shared_workdir, tmp_path / "data",
                           lines.append, precision="0.01%", budget="50s")
    rounds = doc["plan"]["repeats"]
    assert doc["plan"]["design"] == "restart"
    assert rounds > 2 and "would overrun the budget" in doc["plan"]["stopped"]
    assert len(doc["plan"]["order"]) == 2 * rounds
    for point in doc["points"]:
        assert sorted(r["repeat"] for r in point["runs"]) == list(range(1, rounds + 1))
    assert any(line.startswith("stop rule: widest interval") for line in lines)
    assert servers_under(shared_workdir) == []
