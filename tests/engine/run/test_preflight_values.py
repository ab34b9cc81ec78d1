"""Unit tests for engine.preflight.check_options: every value of every point (the baseline,
each sweep value, each variant) is put to the server before anything starts, and a value it
refuses or would change is named by the recipe file and key. The server's answers here are
its captured words (no server binary is run)."""

import pytest

from helpers import FIXTURES, fixture_recipe, recipe_text, write_recipe
from tuninglab.engine.run import preflight
from tuninglab.engine.server.mysqld import Checked, parse_values, parse_variables
from tuninglab.engine.server.option_names import option_problems
from tuninglab.recipes.server_names import map_settings
from tuninglab.errors import UserError
from tuninglab.recipes import plan as planner
from tuninglab.recipes.load import load, load_all

HELP = (FIXTURES / "mariadb_10.11_verbose_help.txt").read_text()
FLUSH_METHODS = ("fsync", "O_DSYNC", "littlesync", "nosync", "O_DIRECT", "O_DIRECT_NO_FSYNC")


class FakeBinary:
    """A server binary that knows MariaDB 10.11's options (or MySQL 8.4's spelling)."""

    def __init__(self, flavor="mariadb", version=(10, 11, 19)):
        self.flavor, self.version = flavor, version
        self.label = f"{'MariaDB' if flavor == 'mariadb' else 'MySQL'} " \
                     f"{'.'.join(map(str, version))}"
        self.variables = parse_variables(HELP) | {"innodb_redo_log_capacity"}

    def map(self, settings):
        return map_settings(settings, self.flavor, self.version)


def answer(binary, settings) -> Checked:
    """What MariaDB's help mode says of these settings, in its own words: 'bogus' and 'banana'
    are refused, 1000 purge threads become 32, a 1K buffer pool 2M, other values are kept."""
    lines = []
    for name, value in binary.map(settings).items():
        dashed = name.replace("_", "-")
        if value in ("bogus", "banana") or name == "innodb_flush_method" and \
                value not in FLUSH_METHODS:
            lines.append(f"2026-11-22 21:54:21 0 [ERROR] /usr/sbin/mariadbd: Error while "
                         f"setting value '{value}' to '{dashed}'")
        elif name == "innodb_purge_threads" and int(value) > 32:
            lines.append(f"2026-11-22 21:54:21 0 [Warning] option '{dashed}': unsigned value "
                         f"{value} adjusted to 32")
        elif name == "innodb_buffer_pool_size" and value == "1K":
            lines.append(f"2026-11-22 21:54:21 0 [Warning] option '{dashed}': unsigned value "
                         "1024 adjusted to 2097152")
    values = {**parse_values(HELP), **binary.map(settings)}
    return Checked(option_problems("\n".join(lines)), values, HELP)


@pytest.fixture(autouse=True)
def server_answers(monkeypatch):
    asked = []

    def check_settings(binary, settings):
        asked.append(dict(settings))
        return answer(binary, settings)
    monkeypatch.setattr(preflight.srv, "check_settings", check_settings)
    return asked


def check(tmp_path, text=None, fixture=None, replace=None, profile="full", binary=None,
          variant=""):
    """check_options on a recipe written under tmp_path; the UserError's message, or None."""
    if fixture:
        fixture_recipe(tmp_path, fixture, "demo", replace)
    else:
        write_recipe(tmp_path, "demo", text)
    recipe = load("demo", tmp_path, variant)
    experiment = recipe.experiment(profile)
    plan = planner.build(experiment)
    try:
        preflight.check_options(recipe, experiment, binary or FakeBinary(), plan.points)
    except UserError as exc:
        assert "\n" not in str(exc)
        return str(exc)
    return None


def test_every_point_is_put_to_the_server(tmp_path, server_answers):
    assert check(tmp_path, fixture="flush-method") is None
    assert [a["innodb_flush_method"] for a in server_answers] == ["fsync", "O_DSYNC", "O_DIRECT"]


def test_a_sweep_value_the_server_refuses_is_named_with_its_choices(tmp_path):
    message = check(tmp_path, fixture="flush-method", replace={
        '"O_DIRECT"]': '"O_DIRECT", "O_BOGUS"]'})
    assert message == (f"{tmp_path / 'demo' / 'recipe.toml'}: sweep.values: MariaDB 10.11.19 "
                       "refuses 'O_BOGUS' for innodb_flush_method; expected one of: "
                       f"{', '.join(FLUSH_METHODS)}")


def test_a_server_setting_the_server_refuses_is_named(tmp_path):
    message = check(tmp_path, recipe_text(
        server='[server.settings]\ninnodb_io_capacity = "banana"\n'))
    assert message == (f"{tmp_path / 'demo' / 'recipe.toml'}: server.settings."
                       "innodb_io_capacity: MariaDB 10.11.19 refuses 'banana' for "
                       "innodb_io_capacity")


def test_a_value_the_server_would_change_is_refused(tmp_path):
    message = check(tmp_path, recipe_text(
        sweep='[sweep]\nsetting = "innodb_purge_threads"\nvalues = [4, 1000]\n'))
    assert "sweep.values: MariaDB 10.11.19 would run innodb_purge_threads = 32, not '1000'" \
        in message


def test_a_refused_value_of_a_variant_names_the_variant(tmp_path):
    text = recipe_text() + '\n[variants.fast]\nsweep = {setting = "innodb_flush_method", ' \
                           'values = ["fsync", "bogus"], baseline = "fsync"}\n'
    assert check(tmp_path, text) is None  # the main experiment is fine
    message = check(tmp_path, text, variant="fast")
    assert message.startswith(f"{tmp_path / 'demo' / 'recipe.toml'}: sweep.values (variant "
                              "fast): MariaDB 10.11.19 refuses 'bogus'")
    assert len(load_all("demo", tmp_path)) == 2


def test_the_recipe_spelling_is_named_where_mysql_maps_it(tmp_path):
    message = check(tmp_path, recipe_text(
        server='[server.settings]\ninnodb_log_file_size = "banana"\n'),
        binary=FakeBinary("mysql", (8, 4, 3)))
    assert "server.settings.innodb_log_file_size: MySQL 8.4.3 refuses 'banana' for " \
           "innodb_redo_log_capacity" in message


def test_a_profiles_buffer_pool_is_named_by_the_profile(tmp_path):
    message = check(tmp_path, recipe_text(profiles='[profiles.quick]\nbuffer_pool_size = "1K"\n'),
                    profile="quick")
    assert ": profiles.quick.buffer_pool_size: MariaDB 10.11.19 would run " \
           "innodb_buffer_pool_size = 2097152, not '1024'" in message


def test_the_data_shapes_buffer_pool_is_named_by_the_dataset(tmp_path):
    message = check(tmp_path, recipe_text(
        dataset='[dataset]\nshape = "disk-bound"\nbuffer_pool_size = "1K"\n'))
    assert ": dataset.buffer_pool_size: MariaDB 10.11.19 would run " in message


# --- threads and max_connections ----------------------------------------------------------------

def test_threads_beyond_max_connections_are_refused_before_anything_starts(tmp_path):
    message = check(tmp_path, recipe_text(
        workload='[workload]\nscript = "oltp_write_only"\nthreads = 200\n'))
    assert message == (f"{tmp_path / 'demo' / 'recipe.toml'}: workload.threads: 200 threads "
                       "need 202 connections with the engine's own, but MariaDB 10.11.19 "
                       "allows max_connections = 151; expected fewer threads, or "
                       "max_connections in [server.settings]")


def test_a_profiles_threads_are_named_by_the_profile(tmp_path):
    message = check(tmp_path, recipe_text(profiles="[profiles.quick]\nthreads = 500\n"),
                    profile="quick")
    assert ": profiles.quick.threads: 500 threads need 502 connections" in message


def test_max_connections_in_the_settings_lets_more_threads_run(tmp_path):
    assert check(tmp_path, recipe_text(
        server="[server.settings]\nmax_connections = 300\n",
        workload='[workload]\nscript = "oltp_write_only"\nthreads = 200\n')) is None


# --- with the installed server (its help mode: no server is started) ---------------------------

@pytest.mark.integration
@pytest.mark.parametrize("replace, message", [
    ({'"O_DIRECT"]': '"O_DIRECT", "O_BOGUS"]'},
     ("sweep.values: MariaDB {version} refuses 'O_BOGUS' for innodb_flush_method; expected "
      "one of: fsync, O_DSYNC")),
    ({"innodb_flush_log_at_trx_commit = 1": 'innodb_io_capacity = "banana"'},
     ("server.settings.innodb_io_capacity: MariaDB {version} refuses 'banana' for "
      "innodb_io_capacity (Unknown suffix 'b'")),
    ({"threads = 2": "threads = 1000"}, "workload.threads: 1000 threads need 1002 connections"),
], ids=["sweep-value", "server-setting", "threads"])
def test_a_dry_run_refuses_what_the_real_server_would(tmp_path, monkeypatch, replace, message):
    """The README's promise: every option is checked before anything starts, in a dry run too."""
    from tuninglab.engine.run import runner
    from tuninglab.engine.server import mysqld as server
    monkeypatch.undo()  # the real check_settings
    binary = server.find()
    if binary.flavor != "mariadb":
        pytest.skip("the messages are MariaDB's")
    fixture_recipe(tmp_path / "recipes", "flush-method", "bad", replace)
    opts = runner.Options(recipes_dir=tmp_path / "recipes", workdir=tmp_path / "work",
                          data_dir=tmp_path / "data", dry_run=True)
    with pytest.raises(UserError) as info:
        runner.run_all("bad", opts, None, lambda *_: None)
    version = ".".join(map(str, binary.version))
    assert f"{tmp_path / 'recipes' / 'bad' / 'recipe.toml'}: " \
           f"{message.format(version=version)}" in str(info.value)
    assert not (tmp_path / "work").exists()
