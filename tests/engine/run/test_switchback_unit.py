"""Unit tests of the switchback design: its schedule of blocks, the SET GLOBAL it sends, how it
reads back values, and the answers it remembers about a server."""

import json

import pytest

from helpers import fixture_recipe
from tuninglab.engine.run import switchback
from tuninglab.engine.server import dynamic
from tuninglab.errors import UserError
from tuninglab.recipes import plan as planner
from tuninglab.recipes.load import load


class Run:
    def __init__(self, key):
        self.key = key


def test_blocks_follow_the_warm_up_each_with_its_settle_and_measured_seconds():
    blocks = switchback.schedule([Run("a#1"), Run("b#1"), Run("b#2")], warmup=20, settle=2,
                                 duration=5)
    assert [(b.switched_s, b.first_s, b.last_s) for b in blocks] == [
        (20, 23, 27), (27, 30, 34), (34, 37, 41)]


def test_without_warm_up_or_settle_the_first_block_starts_at_once():
    blocks = switchback.schedule([Run("a#1"), Run("b#1")], warmup=0, settle=0, duration=3)
    assert [(b.switched_s, b.first_s, b.last_s) for b in blocks] == [(0, 1, 3), (3, 4, 6)]


@pytest.mark.parametrize("value,literal", [
    (1, "1"), ("2", "2"), (-1, "-1"), ("48M", "50331648"), ("1g", "1073741824"),
    ("on", "ON"), ("OFF", "OFF"), ("O_DIRECT", "'O_DIRECT'"), ("it's", "'it''s'"),
    ("a\\b", "'a\\\\b'"),
])
def test_set_statement_writes_numbers_sizes_keywords_and_quoted_strings(value, literal):
    assert switchback.set_statement("innodb_x", value) == f"SET GLOBAL innodb_x = {literal}"


@pytest.mark.parametrize("name", ["a b", "x;DROP", "", "a-b"])
def test_set_statement_refuses_what_is_no_variable_name(name):
    with pytest.raises(ValueError, match="not a server variable name"):
        switchback.set_statement(name, 1)


@pytest.mark.parametrize("asked,effective,same", [
    (1, "1", True), ("48M", "50331648", True), ("ON", "ON", True), ("on", "ON", True),
    (5000, "2000", False), ("OFF", "ON", False), ("O_DIRECT", "o_direct", True)])
def test_a_value_read_back_is_compared_as_the_server_writes_it(asked, effective, same):
    assert switchback.same_value(asked, effective) is same


class Binary:
    path, version_text, label = "/usr/sbin/mariadbd", "Ver 10.11", "MariaDB 10.11"
    flavor = "mariadb"

    def map(self, settings):
        return dict(settings)


def flush_plan(tmp_path, design):
    fixture_recipe(tmp_path, "tiny-switchback", replace={
        'design = "switchback"': f'design = "{design}"'})
    return planner.build(load("tiny-switchback", recipes_dir=tmp_path).experiment())


def test_answers_are_remembered_per_binary(tmp_path):
    dynamic.remember(tmp_path, Binary(), {"innodb_a": True})
    dynamic.remember(tmp_path, Binary(), {"innodb_b": False})
    assert dynamic.remembered(tmp_path, Binary()) == {"innodb_a": True, "innodb_b": False}
    other = Binary()
    other.version_text = "Ver 11.4"
    assert dynamic.remembered(tmp_path, other) == {}


@pytest.mark.parametrize("text", ["not json", "[1, 2]", '{"/usr/sbin/mariadbd Ver 10.11": 3}'])
def test_a_broken_answers_file_is_no_answer(tmp_path, text):
    (tmp_path / dynamic.ANSWERS).write_text(text)
    assert dynamic.remembered(tmp_path, Binary()) == {}
    dynamic.remember(tmp_path, Binary(), {"innodb_a": True})  # and is replaced
    assert json.loads((tmp_path / dynamic.ANSWERS).read_text())


def test_auto_becomes_restart_where_the_server_said_a_setting_is_fixed(tmp_path):
    plan = flush_plan(tmp_path / "r", "auto")
    assert plan.switchback
    assert dynamic.settled(plan, tmp_path, Binary()) is plan  # nothing known yet
    dynamic.remember(tmp_path, Binary(), {"innodb_flush_log_at_trx_commit": False})
    settled = dynamic.settled(plan, tmp_path, Binary())
    assert settled.design == "restart"
    assert [r.key for r in settled.runs] == [r.key for r in plan.runs]


def test_switchback_asked_for_on_a_fixed_setting_is_refused_naming_it(tmp_path):
    plan = flush_plan(tmp_path / "r", "switchback")
    dynamic.remember(tmp_path, Binary(), {"innodb_flush_log_at_trx_commit": False})
    with pytest.raises(UserError) as err:
        dynamic.settled(plan, tmp_path, Binary())
    text = str(err.value)
    assert "measure.design" in text and "tiny-switchback/recipe.toml" in text
    assert "reads innodb_flush_log_at_trx_commit only at startup" in text
    assert 'expected design = "restart" or "auto"' in text


def test_a_fallback_names_the_settings_the_binary_said_are_fixed(tmp_path):
    """runner._fallback: what plan/fallback records when a switchback plan becomes restarts,
    from the answers the binary gave (dynamic.remembered)."""
    from tuninglab.engine.run import runner
    plan = flush_plan(tmp_path / "r", "auto")
    dynamic.remember(tmp_path, Binary(), {"innodb_flush_log_at_trx_commit": False,
                                          "innodb_io_capacity": False})
    assert runner._fallback(plan, tmp_path, Binary()) == {
        "from": "switchback", "startup_only": ["innodb_flush_log_at_trx_commit"],
        "reason": "MariaDB 10.11 reads innodb_flush_log_at_trx_commit only at startup"}
    assert runner._fallback(plan, tmp_path, Binary(), "refused")["reason"] == "refused"
