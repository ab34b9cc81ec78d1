"""Unit tests for tuninglab.recipes.load, .tables, .reader and .model (recipe.toml ->
dataclasses, errors naming the file and the key)."""

import hashlib

import pytest

from helpers import load_error, recipe_text, write_recipe
from tuninglab.errors import UserError
from tuninglab.recipes.load import list_names
from tuninglab.recipes.load import load as load_recipe
from tuninglab.recipes.model import SHAPES, Dataset, Measure, Sweep, Workload


def load(tmp_path, text, name="demo"):
    write_recipe(tmp_path, name, text)
    return load_recipe(name, recipes_dir=tmp_path)


def cases(*triples):
    """(table, body, key) parameters, named by the key."""
    return [pytest.param(*t, id=t[2]) for t in triples]


# --- a valid recipe -----------------------------------------------------------------------------

def test_valid_recipe_loads_into_dataclasses(tmp_path):
    text = recipe_text()
    r = load(tmp_path, text)
    assert r.name == "demo"
    assert r.path == tmp_path / "demo" / "recipe.toml"
    assert r.title == "Doublewrite: ON vs OFF"
    assert r.question == "What does the doublewrite buffer cost?"
    assert r.topic == "demo"  # defaults to the directory name
    assert r.needs == ("root",)
    assert r.text == text
    assert r.sha256 == hashlib.sha256(text.encode()).hexdigest()
    assert r.workload == Workload("sysbench", "oltp_write_only", 2)
    assert r.sweep == Sweep("innodb_doublewrite", ("ON", "OFF"), "ON")
    assert r.measure == Measure(warmup=10.0, duration=60.0, repeats=5)
    assert r.server_settings == (("innodb_flush_log_at_trx_commit", "1"),)


@pytest.mark.parametrize("shape", sorted(SHAPES))
def test_dataset_defaults_come_from_the_shape(tmp_path, shape):
    r = load(tmp_path, recipe_text(dataset=f'[dataset]\nshape = "{shape}"\n'))
    expected = SHAPES[shape]
    assert r.dataset == Dataset(shape, expected["tables"], expected["table_size"],
                                expected["buffer_pool_size"],
                                memory_limit=expected["memory_limit"])


def test_dataset_keys_override_the_shape(tmp_path):
    r = load(tmp_path, recipe_text(
        dataset='[dataset]\nshape = "disk-bound"\ntables = 2\nbuffer_pool_size = 134217728\nmemory_limit = \"256M\"\n'))
    assert r.dataset.tables == 2
    assert r.dataset.table_size == SHAPES["disk-bound"]["table_size"]
    assert r.dataset.buffer_pool_size == "134217728"


def test_defaults_for_optional_keys(tmp_path):
    r = load(tmp_path, recipe_text(
        top='title = "t"\nquestion = "q"\n', server=None, profiles=None,
        workload='[workload]\nscript = "oltp_read_write"\n',
        sweep='[sweep]\nsetting = "innodb_flush_method"\nvalues = ["fsync", "O_DIRECT"]\n',
        measure='[measure]\nduration = 30\n'))
    assert r.needs == ()
    assert r.server_settings == ()
    assert r.workload == Workload("sysbench", "oltp_read_write", 4)
    assert r.sweep.baseline == "fsync"  # the first value
    assert r.measure == Measure(warmup=0.0, duration=30.0, repeats=5)
    assert r.profiles == {"full": {}}


def test_topic_given_explicitly(tmp_path):
    r = load(tmp_path, recipe_text(top='title = "t"\nquestion = "q"\ntopic = "redo"\n'))
    assert r.topic == "redo"


def test_profiles_are_parsed_with_units(tmp_path):
    r = load(tmp_path, recipe_text())
    assert r.profiles == {"full": {}, "quick": {"warmup": 5.0, "duration": 20.0, "repeats": 2,
                                                "buffer_pool_size": "32M"}}


def test_load_by_path_to_the_toml_file(tmp_path):
    path = write_recipe(tmp_path, "bypath", recipe_text())
    r = load_recipe(path)
    assert r.name == "bypath" and r.path == path


def test_list_names(tmp_path):
    write_recipe(tmp_path, "b", recipe_text())
    write_recipe(tmp_path, "a", recipe_text())
    (tmp_path / "not-a-recipe").mkdir()
    assert list_names(tmp_path) == ["a", "b"]


# --- booleans and option names ------------------------------------------------------------------

def test_toml_booleans_become_on_off(tmp_path):
    r = load(tmp_path, recipe_text(
        server="[server.settings]\ninnodb_adaptive_hash_index = false\n",
        sweep='[sweep]\nsetting = "innodb_doublewrite"\nvalues = [true, false]\nbaseline = false\n'))
    assert r.sweep.values == ("ON", "OFF")
    assert r.sweep.baseline == "OFF"
    assert r.server_settings == (("innodb_adaptive_hash_index", "OFF"),)


def test_numbers_become_strings(tmp_path):
    r = load(tmp_path, recipe_text(
        sweep='[sweep]\nsetting = "innodb_flush_log_at_trx_commit"\nvalues = [1, 2, 0]\n'
              'baseline = 2\n',
        server="[server.settings]\ninnodb_io_capacity = 400\n"))
    assert r.sweep.values == ("1", "2", "0")
    assert r.sweep.baseline == "2"
    assert dict(r.server_settings) == {"innodb_io_capacity": "400"}


def test_option_names_take_one_spelling(tmp_path):
    r = load(tmp_path, recipe_text(
        server='[server.settings]\nInnoDB-Flush-Method = "O_DIRECT"\n',
        sweep='[sweep]\nsetting = "Innodb-Doublewrite"\nvalues = ["ON", "OFF"]\n'))
    assert r.server_settings == (("innodb_flush_method", "O_DIRECT"),)
    assert r.sweep.setting == "innodb_doublewrite"


def test_server_settings_are_sorted(tmp_path):
    r = load(tmp_path, recipe_text(
        server="[server.settings]\nz_opt = 1\na_opt = 2\nm_opt = 3\n"))
    assert [name for name, _ in r.server_settings] == ["a_opt", "m_opt", "z_opt"]


# --- experiment(): profiles and overrides -------------------------------------------------------

def test_full_profile_is_the_recipe_as_written(tmp_path):
    r = load(tmp_path, recipe_text())
    e = r.experiment()
    assert e.profile == "full"
    assert e.recipe is r
    assert e.measure == r.measure
    assert e.dataset == r.dataset
    assert e.workload == r.workload
    assert e.sweep == r.sweep


def test_profile_overrides_measure_and_dataset(tmp_path):
    e = load(tmp_path, recipe_text()).experiment("quick")
    assert e.profile == "quick"
    assert e.measure == Measure(warmup=5.0, duration=20.0, repeats=2)
    assert e.dataset.buffer_pool_size == "32M"
    assert e.dataset.tables == SHAPES["disk-bound"]["tables"]


def test_command_line_overrides_beat_the_profile(tmp_path):
    e = load(tmp_path, recipe_text()).experiment("quick", repeats=3)
    assert e.measure.repeats == 3
    assert e.measure.duration == 20.0  # still the profile's
    e = load(tmp_path, recipe_text()).experiment("quick", repeats=3, duration=7.0, warmup=0.0)
    assert e.measure == Measure(warmup=0.0, duration=7.0, repeats=3)


def test_profile_threads_tables_and_table_size(tmp_path):
    e = load(tmp_path, recipe_text(
        profiles="[profiles.tiny]\nthreads = 1\ntables = 1\ntable_size = 1000\n")).experiment("tiny")
    assert e.workload.threads == 1
    assert (e.dataset.tables, e.dataset.table_size) == (1, 1000)
    assert e.measure == Measure(10.0, 60.0, 5)  # untouched


def test_experiment_does_not_change_the_recipe(tmp_path):
    r = load(tmp_path, recipe_text())
    r.experiment("quick", repeats=9)
    assert r.measure.repeats == 5
    assert r.profiles["quick"]["repeats"] == 2


def test_unknown_profile_names_the_file_and_lists_profiles(tmp_path):
    r = load(tmp_path, recipe_text())
    with pytest.raises(UserError) as info:
        r.experiment("nightly")
    message = str(info.value)
    assert str(r.path) in message
    assert "'nightly'" in message
    assert "full, quick" in message


def test_settings_for_has_base_pool_and_swept_option(tmp_path):
    e = load(tmp_path, recipe_text()).experiment()
    assert e.settings_for("OFF") == {"innodb_flush_log_at_trx_commit": "1",
                                     "innodb_buffer_pool_size": "64M",
                                     "innodb_doublewrite": "OFF"}
    assert e.settings_for("ON")["innodb_doublewrite"] == "ON"


def test_settings_for_uses_the_profile_pool(tmp_path):
    e = load(tmp_path, recipe_text()).experiment("quick")
    assert e.settings_for("ON")["innodb_buffer_pool_size"] == "32M"


def test_swept_option_wins_over_a_base_setting(tmp_path):
    e = load(tmp_path, recipe_text(
        server="[server.settings]\ninnodb_doublewrite = true\n")).experiment()
    assert e.settings_for("OFF")["innodb_doublewrite"] == "OFF"


# --- error paths: each names the file and the key -----------------------------------------------

def test_malformed_toml(tmp_path):
    message = load_error(tmp_path, recipe_text() + "\n[measure\nrepeats = \n")
    assert "not valid TOML" in message
    assert "line" in message  # tomllib's position


def test_not_utf8(tmp_path):
    path = tmp_path / "demo" / "recipe.toml"
    path.parent.mkdir()
    path.write_bytes(b'title = "caf\xe9"\n')
    with pytest.raises(UserError, match="not valid TOML") as info:
        load_recipe("demo", recipes_dir=tmp_path)
    assert str(path) in str(info.value)


def test_unknown_top_level_key(tmp_path):
    message = load_error(tmp_path, 'colour = "blue"\n' + recipe_text())
    assert "colour: unknown key" in message


@pytest.mark.parametrize("table,body,key", cases(
    ("dataset", '[dataset]\nshape = "disk-bound"\nrows = 5\n', "dataset.rows"),
    ("workload", '[workload]\nscript = "oltp_write_only"\nthread = 2\n', "workload.thread"),
    ("sweep", '[sweep]\nsetting = "x"\nvalues = ["a"]\nbase = "a"\n', "sweep.base"),
    ("measure", '[measure]\nduration = "1m"\nrepeat = 3\n', "measure.repeat"),
    ("server", "[server]\nport = 3306\n", "server.port"),
    ("profiles", "[profiles.quick]\nrepeat = 3\n", "profiles.quick.repeat"),
))
def test_unknown_key_inside_a_table(tmp_path, table, body, key):
    message = load_error(tmp_path, recipe_text(**{table: body}))
    assert f"{key}: unknown key" in message


@pytest.mark.parametrize("table,body,key", cases(
    ("dataset", None, "dataset"),
    ("workload", None, "workload"),
    ("sweep", None, "sweep"),
    ("measure", None, "measure"),
    ("top", 'question = "q"\n', "title"),
    ("top", 'title = "t"\n', "question"),
    ("dataset", "[dataset]\ntables = 2\n", "dataset.shape"),
    ("workload", "[workload]\nthreads = 2\n", "workload.script"),
    ("sweep", '[sweep]\nvalues = ["a"]\n', "sweep.setting"),
    ("sweep", '[sweep]\nsetting = "x"\n', "sweep.values"),
))
def test_missing_required_key(tmp_path, table, body, key):
    message = load_error(tmp_path, recipe_text(**{table: body}))
    assert f"{key}: missing" in message


@pytest.mark.parametrize("table,body,key", cases(
    ("workload", '[workload]\nscript = "oltp_write_only"\nthreads = "4"\n', "workload.threads"),
    ("measure", '[measure]\nduration = "1m"\nrepeats = "5"\n', "measure.repeats"),
    ("dataset", '[dataset]\nshape = "disk-bound"\ntables = 2.5\n', "dataset.tables"),
    ("top", 'title = 5\nquestion = "q"\n', "title"),
    ("top", 'title = "t"\nquestion = "q"\nneeds = "root"\n', "needs"),
    ("sweep", '[sweep]\nsetting = "x"\nvalues = "ON"\n', "sweep.values"),
    ("sweep", '[sweep]\nsetting = 5\nvalues = ["ON"]\n', "sweep.setting"),
    ("profiles", '[profiles.quick]\nrepeats = "2"\n', "profiles.quick.repeats"),
    ("profiles", "[profiles]\nquick = 3\n", "profiles.quick"),
    ("dataset", 'dataset = "disk-bound"\n', "dataset"),
))
def test_string_where_int_expected_and_other_wrong_types(tmp_path, table, body, key):
    message = load_error(tmp_path, recipe_text(**{table: body}))
    assert f"{key}: expected" in message


@pytest.mark.parametrize("table,body,key", cases(
    ("measure", '[measure]\nduration = "1m"\nrepeats = true\n', "measure.repeats"),
    ("workload", '[workload]\nscript = "oltp_write_only"\nthreads = false\n', "workload.threads"),
    ("dataset", '[dataset]\nshape = "disk-bound"\ntable_size = true\n', "dataset.table_size"),
    ("profiles", "[profiles.quick]\nrepeats = true\n", "profiles.quick.repeats"),
))
def test_bool_where_int_expected(tmp_path, table, body, key):
    message = load_error(tmp_path, recipe_text(**{table: body}))
    assert f"{key}: expected int, got a boolean" in message


@pytest.mark.parametrize("table,body,key", cases(
    ("measure", '[measure]\nduration = "1m"\nrepeats = 0\n', "measure.repeats"),
    ("workload", '[workload]\nscript = "oltp_write_only"\nthreads = -1\n', "workload.threads"),
    ("profiles", "[profiles.quick]\ntables = 0\n", "profiles.quick.tables"),
))
def test_whole_numbers_below_one(tmp_path, table, body, key):
    message = load_error(tmp_path, recipe_text(**{table: body}))
    assert f"{key}: expected a whole number >= 1" in message


@pytest.mark.parametrize("table,body,key", cases(
    ("measure", '[measure]\nduration = "soon"\n', "measure.duration"),
    ("measure", '[measure]\nduration = "1m"\nwarmup = "-5s"\n', "measure.warmup"),
    ("measure", '[measure]\nduration = "500ms"\n', "measure.duration"),
    ("measure", "[measure]\nduration = 0\n", "measure.duration"),
    ("measure", "[measure]\nduration = true\n", "measure.duration"),
    ("profiles", '[profiles.quick]\nwarmup = "5 minutes"\n', "profiles.quick.warmup"),
    ("dataset", '[dataset]\nshape = "disk-bound"\nbuffer_pool_size = "lots"\n',
     "dataset.buffer_pool_size"),
    ("profiles", '[profiles.quick]\nbuffer_pool_size = "1.5G"\n', "profiles.quick.buffer_pool_size"),
))
def test_bad_durations_and_sizes(tmp_path, table, body, key):
    message = load_error(tmp_path, recipe_text(**{table: body}))
    assert f"{key}: " in message


def test_baseline_not_among_values(tmp_path):
    message = load_error(tmp_path, recipe_text(
        sweep='[sweep]\nsetting = "innodb_doublewrite"\nvalues = ["ON", "OFF"]\n'
              'baseline = "DETECT_ONLY"\n'))
    assert "sweep.baseline" in message
    assert "'DETECT_ONLY'" in message


@pytest.mark.parametrize("values", ['["ON", "ON"]', '["ON", true]', '[1, "1"]', "[]"])
def test_duplicate_or_no_values(tmp_path, values):
    message = load_error(tmp_path, recipe_text(
        sweep=f'[sweep]\nsetting = "innodb_doublewrite"\nvalues = {values}\n'))
    assert "sweep.values: expected one or more distinct values" in message


def test_value_of_a_wrong_kind(tmp_path):
    message = load_error(tmp_path, recipe_text(
        sweep='[sweep]\nsetting = "innodb_doublewrite"\nvalues = ["ON", [1]]\n'))
    assert "sweep.values" in message


def test_unknown_shape(tmp_path):
    message = load_error(tmp_path, recipe_text(dataset='[dataset]\nshape = "memory-bound"\n'))
    assert "dataset.shape" in message
    assert "'memory-bound'" in message


def test_unknown_need(tmp_path):
    message = load_error(tmp_path, recipe_text(top='title = "t"\nquestion = "q"\n'
                                                   'needs = ["root", "gpu"]\n'))
    assert "needs: unknown need 'gpu'" in message


def test_unknown_workload_tool_and_script(tmp_path):
    message = load_error(tmp_path, recipe_text(workload='[workload]\ntool = "hammerdb"\n'
                                                        'script = "oltp_write_only"\n'))
    assert "workload.tool" in message
    message = load_error(tmp_path, recipe_text(workload='[workload]\nscript = "dbt2"\n'))
    assert "workload.script" in message and "'dbt2'" in message


@pytest.mark.parametrize("key", ["datadir", "innodb_buffer_pool_size", "socket", "port"])
def test_reserved_option_in_settings(tmp_path, key):
    message = load_error(tmp_path, recipe_text(server=f'[server.settings]\n{key} = "x"\n'))
    assert f"server.settings.{key}" in message
    assert "set by the engine" in message


def test_reserved_option_in_settings_with_dashes(tmp_path):
    message = load_error(tmp_path, recipe_text(server='[server.settings]\npid-file = "/x"\n'))
    assert "server.settings.pid-file" in message


def test_setting_value_of_a_wrong_kind(tmp_path):
    message = load_error(tmp_path, recipe_text(server="[server.settings]\ninnodb_x = [1, 2]\n"))
    assert "server.settings.innodb_x" in message


@pytest.mark.parametrize("setting", ["innodb_buffer_pool_size", "innodb-buffer-pool-size",
                                     "DATADIR"])
def test_reserved_option_as_the_swept_setting(tmp_path, setting):
    message = load_error(tmp_path, recipe_text(
        sweep=f'[sweep]\nsetting = "{setting}"\nvalues = ["1G", "2G"]\n'))
    assert "sweep.setting" in message
    assert "cannot be swept" in message


def test_missing_recipe_lists_known_recipes(tmp_path):
    write_recipe(tmp_path, "doublewrite", recipe_text())
    write_recipe(tmp_path, "flush-method", recipe_text())
    with pytest.raises(UserError) as info:
        load_recipe("redo-size", recipes_dir=tmp_path)
    message = str(info.value)
    assert "no recipe 'redo-size'" in message
    assert str(tmp_path / "redo-size" / "recipe.toml") in message
    assert "doublewrite, flush-method" in message


def test_missing_recipe_with_no_recipes_at_all(tmp_path):
    with pytest.raises(UserError, match=r"\(recipes: none\)"):
        load_recipe("anything", recipes_dir=tmp_path)


# --- error paths that once crashed instead of raising UserError ----------------------------------

@pytest.mark.parametrize("table,body,key", cases(
    ("measure", '[measure]\nwarmup = "10s"\n', "measure.duration"),
    ("measure", "[measure]\nduration = [60]\n", "measure.duration"),
    ("dataset", '[dataset]\nshape = "disk-bound"\nbuffer_pool_size = 1.5\n',
     "dataset.buffer_pool_size"),
    ("sweep", '[sweep]\nsetting = "x"\nvalues = ["0.5", "1.5"]\nbaseline = 1.5\n',
     "sweep.baseline"),
))
def test_missing_or_mistyped_duration_size_baseline(tmp_path, table, body, key):
    message = load_error(tmp_path, recipe_text(**{table: body}))
    assert key in message


def test_need_that_is_not_a_string(tmp_path):
    message = load_error(tmp_path, recipe_text(top='title = "t"\nquestion = "q"\n'
                                                   'needs = [["root"]]\n'))
    assert "needs" in message


@pytest.mark.parametrize("duration", ['"0s"', '"500ms"'])
def test_profile_duration_below_one_second(tmp_path, duration):
    message = load_error(tmp_path, recipe_text(
        profiles=f"[profiles.quick]\nduration = {duration}\n"))
    assert "profiles.quick.duration" in message


def test_negative_buffer_pool_size(tmp_path):
    message = load_error(tmp_path, recipe_text(
        dataset='[dataset]\nshape = "disk-bound"\nbuffer_pool_size = -1\n'))
    assert "dataset.buffer_pool_size" in message


# --- a project script's options, and workload.* sweeps ------------------------------------------

BATCH = '[workload]\nscript = "insert_batch"\nthreads = 1\n'
BATCH_SWEEP = '[sweep]\nsetting = "workload.commit"\nvalues = ["statement", 100, "1s"]\n'


def test_project_script_options_with_defaults_filled_in(tmp_path):
    r = load(tmp_path, recipe_text(workload=BATCH + '[workload.options]\nkey = "primary"\n'))
    assert r.workload == Workload("sysbench", "insert_batch", 1,
                                  (("commit", "statement"), ("key", "primary")))
    assert load(tmp_path, recipe_text(workload=BATCH)).workload.options == \
        (("commit", "statement"), ("key", "unique"))


def test_workload_options_take_pairs_or_a_dict_in_one_sorted_form():
    a = Workload("sysbench", "insert_batch", 1, {"key": "unique", "commit": "1s"})
    b = Workload("sysbench", "insert_batch", 1, [["commit", "1s"], ["key", "unique"]])
    assert a == b and a.options == (("commit", "1s"), ("key", "unique"))
    assert hash(a) == hash(b)
    assert Workload("sysbench", "oltp_insert", 4).options == ()


def test_workload_sweep_gives_each_point_its_option(tmp_path):
    e = load(tmp_path, recipe_text(workload=BATCH, sweep=BATCH_SWEEP)).experiment("quick")
    assert e.sweep.table == "workload" and e.sweep.key == "commit"
    assert not e.sweep.server_option
    assert e.sweep.values == ("statement", "100", "1s")
    assert dict(e.workload_for("100").options) == {"commit": "100", "key": "unique"}
    assert e.workload_for("1s").threads == 1
    assert "workload.commit" not in e.settings_for("1s") and "commit" not in e.settings_for("1s")


def test_a_threads_sweep_gives_each_point_its_client_threads(tmp_path):
    e = load(tmp_path, recipe_text(sweep='[sweep]\nsetting = "workload.threads"\n'
                                         'values = [1, 4, 64]\nbaseline = 4\n')).experiment()
    assert e.sweep.table == "workload" and not e.sweep.server_option
    assert [e.workload_for(v).threads for v in e.sweep.values] == [1, 4, 64]
    assert e.workload_for("64").script == e.workload.script
    assert "threads" not in e.settings_for("64")


def test_other_sweeps_keep_the_workload(tmp_path):
    e = load(tmp_path, recipe_text()).experiment()
    assert e.workload_for("OFF") is e.workload


@pytest.mark.parametrize("options,key,expected", [
    ('commit = "often"', "workload.options.commit", "expected statement, a whole number"),
    ("commit = 0", "workload.options.commit", "got '0'"),
    ('commit = "-5"', "workload.options.commit", "got '-5'"),
    ('key = "foreign"', "workload.options.key", "expected one of unique, primary"),
    ("key = true", "workload.options.key", "got 'ON'"),
    ("key = [1]", "workload.options.key", "expected a string"),
    ('batch = "10"', "workload.options.batch", "unknown key (expected one of: commit, key)"),
])
def test_bad_project_script_options(tmp_path, options, key, expected):
    message = load_error(tmp_path, recipe_text(workload=BATCH + f"[workload.options]\n{options}\n"))
    assert f"{key}: " in message and expected in message


def test_sysbench_scripts_take_no_options(tmp_path):
    message = load_error(tmp_path, recipe_text(
        workload='[workload]\nscript = "oltp_insert"\n[workload.options]\ncommit = "1s"\n'))
    assert "workload.options: the sysbench script oltp_insert takes no options" in message


def test_unknown_script_lists_the_project_scripts_too(tmp_path):
    message = load_error(tmp_path, recipe_text(workload='[workload]\nscript = "insert_bulk"\n'))
    assert "workload.script" in message and "insert_batch" in message


@pytest.mark.parametrize("workload,sweep,expected", [
    (BATCH, '[sweep]\nsetting = "workload.commit"\nvalues = ["statement", "sometimes"]\n',
     "sweep.values: 'sometimes': expected statement, a whole number"),
    (BATCH, '[sweep]\nsetting = "workload.key"\nvalues = ["unique", "fulltext"]\n',
     "sweep.values: 'fulltext': expected one of unique, primary"),
    (BATCH, '[sweep]\nsetting = "workload.rows"\nvalues = ["1", "2"]\n',
     "sweep.setting: expected workload.{active_warehouses, commit, key, threads}"),
    (None, '[sweep]\nsetting = "workload.threads"\nvalues = [1, 0]\n',
     "sweep.values: '0': expected a whole number of client threads from 1 to 1024"),
    (None, '[sweep]\nsetting = "workload.threads"\nvalues = [1, "many"]\n',
     "sweep.values: 'many': expected a whole number of client threads"),
    (None, '[sweep]\nsetting = "workload.threads"\nvalues = [1, 2000]\n',
     "sweep.values: '2000': expected a whole number of client threads from 1 to 1024"),
    (None, BATCH_SWEEP, "sweep.setting: workload.commit: the workload's script oltp_write_only "
                        "has no option 'commit'"),
])
def test_bad_workload_sweeps(tmp_path, workload, sweep, expected):
    message = load_error(tmp_path, recipe_text(
        **({"workload": workload} if workload else {}), sweep=sweep))
    assert expected in message


def test_profile_threads_keep_the_options(tmp_path):
    e = load(tmp_path, recipe_text(
        workload=BATCH + '[workload.options]\nkey = "primary"\n',
        profiles="[profiles.quick]\nthreads = 2\n")).experiment("quick")
    assert e.workload.threads == 2 and dict(e.workload.options)["key"] == "primary"


def test_a_threads_sweep_needs_connections_for_its_most_threads(tmp_path):
    from tuninglab.engine.run import preflight
    r = load(tmp_path, recipe_text(sweep='[sweep]\nsetting = "workload.threads"\n'
                                         'values = [1, 4, 64]\nbaseline = 4\n'))
    e = r.experiment()
    preflight.check_connections(r, e, {"max_connections": "66"}, "MariaDB 10.11")
    with pytest.raises(UserError, match=r"64 threads need 66 connections .* max_connections "
                                        r"= 60"):
        preflight.check_connections(r, e, {"max_connections": "60"}, "MariaDB 10.11")


@pytest.mark.parametrize("name", list_names())
def test_the_projects_profiles_never_plan_a_two_run_interval(name):
    # A 95% interval from 2 runs is Student's t at 1 degree of freedom, 12.7 standard errors
    # wide: not an interval a verdict can use (issue 38). --repeats can still ask for fewer.
    from tuninglab.recipes.load import load_all
    for recipe in load_all(name):
        for profile in ("full", *recipe.profiles):
            repeats = recipe.experiment(profile).measure.repeats
            assert repeats >= 3, f"{recipe.label} profile {profile}: {repeats} repeats"
