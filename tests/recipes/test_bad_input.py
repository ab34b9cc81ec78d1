"""Bad input in a recipe, its profiles or the command line's overrides: one line naming the file
and the key (or the option) and what was expected, never a value that reaches the server as
something else, never a plan so large that building it exhausts memory."""

import pytest

from helpers import load_error, recipe_text, write_recipe
from tuninglab.errors import UserError
from tuninglab.recipes import plan
from tuninglab.recipes.load import MAX_RECIPE_TEXT, check_name, load, recipe_path
from tuninglab.recipes.model import MAX_REPEATS, MAX_THREADS

INJECTION = "300\nskip_grant_tables = 1\n[mysqld]\nlog_error = /elsewhere/x.log"


def one_line(message: str) -> str:
    assert "\n" not in message, message
    return message


# --- control characters and option names (my.cnf injection) -------------------------------------

@pytest.mark.parametrize("char", ["\n", "\r", "\0", "\t", "\x1b", "\u202e", "\u200b", "\x85"],
                         ids=["newline", "cr", "nul", "tab", "escape", "bidi", "zero-width",
                              "next-line"])
def test_a_server_setting_with_a_control_character_is_refused(tmp_path, char):
    message = one_line(load_error(tmp_path, recipe_text(
        server=f'[server.settings]\ninnodb_io_capacity = "300\\u{ord(char):04x}1"\n')))
    assert "server.settings.innodb_io_capacity: " in message
    assert "control character" in message


def test_the_injection_of_the_issue_is_refused(tmp_path):
    text = recipe_text(server='[server.settings]\ninnodb_io_capacity = """' + INJECTION + '"""\n')
    message = one_line(load_error(tmp_path, text))
    assert "server.settings.innodb_io_capacity: " in message and "control character" in message


def test_a_sweep_value_with_a_newline_is_refused(tmp_path):
    message = one_line(load_error(tmp_path, recipe_text(
        sweep='[sweep]\nsetting = "innodb_io_capacity"\nvalues = ["100", "300\\n[mysqld]"]\n')))
    assert "sweep.values: " in message and "control character" in message
    assert "'300\\n[mysqld]'" in message  # the value shown escaped, on the one line


def test_a_sweep_baseline_with_a_newline_is_refused(tmp_path):
    message = one_line(load_error(tmp_path, recipe_text(
        sweep='[sweep]\nsetting = "innodb_doublewrite"\nvalues = ["ON", "OFF"]\n'
              'baseline = "ON\\n"\n')))
    assert "sweep.baseline: " in message


@pytest.mark.parametrize("name", ["innodb io capacity", "innodb_io_capacity\\n[mysqld]",
                                  "innodb_io_capacity\\n", "\\tinnodb_io_capacity",
                                  "innodb.io", "innodb=io", "innodb#io", "ïnnodb", ""],
                         ids=["space", "newline", "trailing-newline", "leading-tab", "dot",
                              "equals", "hash", "non-ascii", "empty"])
def test_a_server_setting_name_must_be_letters_digits_dash_underscore(tmp_path, name):
    message = one_line(load_error(tmp_path, recipe_text(
        server=f'[server.settings]\n"{name}" = 1\n')))
    assert "server.settings." in message
    assert "expected an option name of letters, digits, '_' and '-'" in message


@pytest.mark.parametrize("setting", ["innodb io", "innodb_io\\n[mysqld]", "innodb;x",
                                     "innodb_doublewrite\\n"])
def test_a_swept_option_name_must_be_letters_digits_dash_underscore(tmp_path, setting):
    message = one_line(load_error(tmp_path, recipe_text(
        sweep=f'[sweep]\nsetting = "{setting}"\nvalues = ["1", "2"]\n')))
    assert "sweep.setting: " in message
    assert ("expected an option name of letters, digits, '_' and '-'" in message
            or "control character" in message)  # a line break is refused as such, first


def test_a_storage_sweep_value_with_a_newline_is_refused(tmp_path):
    message = one_line(load_error(tmp_path, recipe_text(
        storage='[storage]\nfilesystem = "ext4"\n',
        sweep='[sweep]\nsetting = "storage.mount_options"\nvalues = ["noatime", "a\\nb"]\n')))
    assert "sweep.values: " in message and "control character" in message


def test_plain_values_still_load(tmp_path):
    write_recipe(tmp_path, "demo", recipe_text(
        server='[server.settings]\ninnodb_log_file_size = "64M"\ninnodb_flush_method = '
               '"O_DIRECT"\nlog_warnings = 2\nsql_mode = "STRICT_ALL_TABLES,NO_ZERO_DATE"\n'))
    r = load("demo", recipes_dir=tmp_path)
    assert dict(r.server_settings)["sql_mode"] == "STRICT_ALL_TABLES,NO_ZERO_DATE"


# --- repeats, threads and durations -------------------------------------------------------------

def test_repeats_in_the_recipe_are_bounded(tmp_path):
    message = one_line(load_error(tmp_path, recipe_text(
        measure=f'[measure]\nduration = "1m"\nrepeats = {MAX_REPEATS + 1}\n')))
    assert f"measure.repeats: expected a whole number from 1 to {MAX_REPEATS}, got " \
           f"{MAX_REPEATS + 1}" in message


def test_repeats_in_a_profile_are_bounded(tmp_path):
    message = one_line(load_error(tmp_path, recipe_text(
        profiles="[profiles.quick]\nrepeats = 99999999\n")))
    assert f"profiles.quick.repeats: expected a whole number from 1 to {MAX_REPEATS}" in message


def test_repeats_on_the_command_line_are_bounded(tmp_path):
    write_recipe(tmp_path, "demo", recipe_text())
    r = load("demo", recipes_dir=tmp_path)
    with pytest.raises(UserError) as info:
        r.experiment("full", repeats=99999999)
    assert str(info.value) == (f"--repeats: expected a whole number from 1 to {MAX_REPEATS}, "
                               "got 99999999")
    assert r.experiment("full", repeats=MAX_REPEATS).measure.repeats == MAX_REPEATS


@pytest.mark.parametrize("table", ["workload", "profiles"])
def test_threads_are_bounded(tmp_path, table):
    tables = {"workload": '[workload]\nscript = "oltp_write_only"\nthreads = 100000\n'} \
        if table == "workload" else {"profiles": "[profiles.quick]\nthreads = 100000\n"}
    message = one_line(load_error(tmp_path, recipe_text(**tables)))
    key = "workload.threads" if table == "workload" else "profiles.quick.threads"
    assert f"{key}: expected a whole number from 1 to {MAX_THREADS}, got 100000" in message


def test_tpcc_threads_are_bounded(tmp_path):
    message = one_line(load_error(tmp_path, recipe_text(
        dataset='[dataset]\nshape = "cpu-bound"\nwarehouses = 2\n',
        workload='[workload]\ntool = "tpcc"\nthreads = 5000\n')))
    assert f"workload.threads: expected a whole number from 1 to {MAX_THREADS}" in message


@pytest.mark.parametrize("value", ["inf", "nan", '"9999999h"', "1e300"])
def test_a_duration_beyond_a_day_is_refused(tmp_path, value):
    message = one_line(load_error(tmp_path, recipe_text(
        measure=f"[measure]\nduration = {value}\nrepeats = 2\n")))
    assert "measure.duration: expected at most 24h" in message


@pytest.mark.parametrize("key", ["duration", "warmup"])
def test_a_command_line_duration_beyond_a_day_is_refused(tmp_path, key):
    write_recipe(tmp_path, "demo", recipe_text())
    r = load("demo", recipes_dir=tmp_path)
    with pytest.raises(UserError, match=f"^--{key}: expected at most 24h, got '25h'$"):
        r.experiment("full", **{key: "25h"})


# --- the plan's size ----------------------------------------------------------------------------

def test_a_plan_of_too_many_runs_is_refused_before_it_is_built(tmp_path):
    values = ", ".join(f'"{n}"' for n in range(100, 120))
    write_recipe(tmp_path, "demo", recipe_text(
        sweep=f'[sweep]\nsetting = "innodb_io_capacity"\nvalues = [{values}]\n',
        measure='[measure]\nduration = "1s"\nrepeats = 1000\n'))
    e = load("demo", recipes_dir=tmp_path).experiment()
    with pytest.raises(UserError) as info:
        plan.build(e)
    message = one_line(str(info.value))
    assert message.startswith("recipe demo (full profile): 20 points x 1000 repeats = 20000 runs")
    assert f"at most {plan.MAX_RUNS}" in message and "--repeats" in message


def test_a_plan_longer_than_a_week_is_refused(tmp_path):
    write_recipe(tmp_path, "demo", recipe_text())
    e = load("demo", recipes_dir=tmp_path).experiment("full", repeats=1000, duration="24h")
    with pytest.raises(UserError) as info:
        plan.build(e)
    message = one_line(str(info.value))
    assert "2 points x 1000 repeats = 2000 runs" in message
    assert "longer than the 7 days a plan may take" in message


def test_a_large_plan_within_the_bounds_is_built(tmp_path):
    write_recipe(tmp_path, "demo", recipe_text())
    e = load("demo", recipes_dir=tmp_path).experiment("full", repeats=MAX_REPEATS,
                                                      duration="30s")
    assert len(plan.build(e).runs) == 2 * MAX_REPEATS


# --- the recipe's size ---------------------------------------------------------------------------

def test_a_recipe_larger_than_a_result_may_carry_is_refused_when_loaded(tmp_path):
    """A result carries its recipe's text, which data.check holds to MAX_RECIPE_TEXT bytes:
    a larger recipe is refused before it runs, not after."""
    text = recipe_text()
    path = write_recipe(tmp_path, "demo", text + "#" * (5 * 2**20))
    message = one_line(load_error(tmp_path, text + "#" * (5 * 2**20)))
    assert message == f"{path}: more than 65,536 bytes; expected a recipe of at most 65,536 " \
                      "bytes (data.check's limit on a result's recipe/text)"
    at_limit = text + "\n" + "#" * (MAX_RECIPE_TEXT - len(text.encode()) - 1)
    write_recipe(tmp_path, "demo", at_limit)
    assert len(load("demo", recipes_dir=tmp_path).text.encode()) == MAX_RECIPE_TEXT


# --- recipe and profile names -------------------------------------------------------------------

@pytest.mark.parametrize("name", ["../../x", "/etc", "a/b", "..", ".", "doublewrite.toml",
                                  "Double_Write", "-x", "x\ny", ""])
def test_a_recipe_name_must_be_a_plain_name(tmp_path, name):
    with pytest.raises(UserError) as info:
        check_name(name)
    message = one_line(str(info.value))
    assert message.startswith(f"recipe {name!r}: expected a plain name")
    assert "invoke recipe.list" in message
    with pytest.raises(UserError, match="expected a plain name"):
        recipe_path(name, tmp_path)


def test_a_recipe_outside_the_recipes_directory_is_not_loaded(tmp_path):
    write_recipe(tmp_path, "outside", recipe_text())
    recipes = tmp_path / "recipes"
    recipes.mkdir()
    with pytest.raises(UserError, match="expected a plain name"):
        load("../outside", recipes_dir=recipes)


@pytest.mark.parametrize("name", ["doublewrite", "redo-size", "a1"])
def test_plain_recipe_names_pass(name):
    check_name(name)


@pytest.mark.parametrize("profile", ["../../x", "Quick", "a b", "x" * 40])
def test_a_profile_name_must_be_a_plain_name(tmp_path, profile):
    message = one_line(load_error(tmp_path, recipe_text(
        profiles=f'[profiles."{profile}"]\nrepeats = 1\n')))
    assert "expected a profile name of lower-case letters, digits and dashes" in message


@pytest.mark.parametrize("storage", ['mount_options = "noatime\\n"',
                                     'mkfs_options = ["-m", "0\\u202e"]',
                                     'scheduler = "none\\u0000"'],
                         ids=["mount-options", "mkfs-options", "scheduler"])
def test_a_storage_string_with_a_control_character_is_refused(tmp_path, storage):
    message = one_line(load_error(tmp_path, recipe_text(
        storage=f'[storage]\nfilesystem = "ext4"\n{storage}\n')))
    assert "storage." in message and "control character" in message


# --- the smallest effect worth knowing ----------------------------------------------------------

def measure(smallest_effect: str) -> str:
    return f'[measure]\nduration = "1m"\nsmallest_effect = {smallest_effect}\n'


@pytest.mark.parametrize("value, shown", [
    ('"0%"', "'0%'"), ('"150%"', "'150%'"), ('"100%"', "'100%'"), ('"abc"', "'abc'"),
    ('"-3%"', "'-3%'"), ('"3"', "'3'"), ('""', "''"), ('"1e1%"', "'1e1%'"),
    ("3", "3"), ("0.03", "0.03"), ("true", "True")])  # a bare number: 3% or 0.03%?
def test_a_smallest_effect_that_is_no_percentage_in_range_is_refused(tmp_path, value, shown):
    message = one_line(load_error(tmp_path, recipe_text(measure=measure(value))))
    assert message.endswith(': measure.smallest_effect: expected a percentage above 0% and '
                            f'below 100% such as "3%", got {shown}')


@pytest.mark.parametrize("value, pct", [('"3%"', 3.0), ('"2.5%"', 2.5), ('" 10 % "', 10.0),
                                        ('"99.5%"', 99.5)])
def test_a_smallest_effect_is_read_as_a_number_of_percent(tmp_path, value, pct):
    write_recipe(tmp_path, "demo", recipe_text(measure=measure(value)))
    assert load("demo", recipes_dir=tmp_path).measure.smallest_effect_pct == pct


def test_a_recipe_without_a_smallest_effect_leaves_it_to_the_statistics(tmp_path):
    write_recipe(tmp_path, "demo", recipe_text())
    r = load("demo", recipes_dir=tmp_path)
    assert r.measure.smallest_effect_pct is None
    assert r.experiment("full", repeats=3).measure.smallest_effect_pct is None


def test_a_variant_and_a_profile_keep_or_override_the_smallest_effect(tmp_path):
    text = recipe_text(measure=measure('"5%"')) + \
        '\n[variants.wide]\ntitle = "w"\n[variants.wide.measure]\nsmallest_effect = "10%"\n'
    write_recipe(tmp_path, "demo", text)
    main = load("demo", recipes_dir=tmp_path)
    assert main.experiment("quick", repeats=2).measure.smallest_effect_pct == 5.0
    wide = load("demo", recipes_dir=tmp_path, variant="wide")
    assert wide.measure.smallest_effect_pct == 10.0
    assert wide.measure.duration == 60.0  # the rest of [measure] is the main experiment's
