"""A recipe changes how the server works, never where it reads or writes (recipes/
server_values.py): an option that names a file or a directory, one that runs SQL or a cluster's
programs, and a value holding a path are refused with one line naming the file and the key, in
[server.settings], as the swept option, in its values and in a variant."""

import pytest

from helpers import load_error, recipe_text, write_recipe
from tuninglab.errors import UserError
from tuninglab.recipes.load import load, load_all
from tuninglab.recipes.server_values import name_problem, names_path

PATH_MESSAGE = ("names a file or directory of the server: the engine keeps every file of a run's "
                "server (run as root) in the run's own directory; expected an option that names "
                "no path")
# The cases, the options that name no path by their suffix, and a few by their suffix.
PATH_OPTIONS = {
    "general_log_file": "/root/.bashrc", "slow_query_log_file": "/etc/cron.d/x",
    "innodb_data_home_dir": "/etc", "innodb_undo_directory": "/etc",
    "innodb_temp_data_file_path": "/etc/x:12M", "innodb_data_file_path": "ibdata1:12M",
    "innodb_tmpdir": "/etc", "tmpdir": "/etc", "secure_file_priv": "", "plugin_dir": "/tmp",
    "character_sets_dir": "/tmp", "lc_messages_dir": "/tmp", "log_bin": "/etc/x",
    "log_bin_index": "x", "relay_log": "/etc/x", "log_basename": "x", "ssl_key": "/tmp/k",
    "admin_ssl_cert": "/tmp/c", "keyring_file_data": "/tmp/k", "innodb_buffer_pool_filename":
    "/etc/x", "aria_log_dir_path": "/etc", "server_audit_file_path": "/etc/x",
    "log_slow_query_file": "x", "ft_stopword_file": "/etc/shadow", "chroot": "/tmp",
    "innodb_directories": "/etc", "log_tc": "x", "innodb_redo_log_archive_dirs": "a:/etc",
}


def settings_error(tmp_path, name, value) -> str:
    message = load_error(tmp_path, recipe_text(server=f'[server.settings]\n{name} = "{value}"\n'))
    assert "\n" not in message
    return message


@pytest.mark.parametrize("name, value", PATH_OPTIONS.items(), ids=list(PATH_OPTIONS))
def test_an_option_that_names_a_path_is_refused(tmp_path, name, value):
    message = settings_error(tmp_path, name, value)
    assert message.endswith(f"recipe.toml: server.settings.{name}: {PATH_MESSAGE}")


@pytest.mark.parametrize("name", ["general-log-file", "GENERAL_LOG_FILE", "loose_general_log_file",
                                  "loose-innodb-data-home-dir"])
def test_every_spelling_of_a_path_option_is_refused(tmp_path, name):
    assert settings_error(tmp_path, name, "/root/.bashrc").endswith(PATH_MESSAGE)


def test_the_engines_own_options_keep_their_message(tmp_path):
    message = settings_error(tmp_path, "datadir", "/etc")
    assert message.endswith("server.settings.datadir: set by the engine itself (the data shape "
                            "sets the buffer pool)")
    message = settings_error(tmp_path, "loose_innodb_buffer_pool_size", "1G")
    assert message.endswith("server.settings.loose_innodb_buffer_pool_size: is the engine's own "
                            "innodb_buffer_pool_size, which recipes cannot set")


@pytest.mark.parametrize("name", ["init_file", "init_connect", "init_slave"])
def test_sql_the_server_would_run_is_refused(tmp_path, name):
    message = settings_error(tmp_path, name, "SELECT 1")
    assert f"server.settings.{name}: is SQL the server runs itself, as root" in message


def test_a_cluster_option_is_refused(tmp_path):
    message = settings_error(tmp_path, "wsrep_notify_cmd", "touch x")
    assert "server.settings.wsrep_notify_cmd: is a Galera cluster option" in message


@pytest.mark.parametrize("name, value", [("debug_dbug", "d:t:o,/tmp/trace"),
                                         ("innodb_ft_server_stopword_table", "/etc/passwd"),
                                         ("innodb_ft_user_stopword_table", "db/../x"),
                                         ("default_time_zone", "../../etc/localtime"),
                                         ("plugin_load_add", "/tmp/evil.so")])
def test_a_value_holding_a_path_is_refused(tmp_path, name, value):
    message = settings_error(tmp_path, name, value)
    assert f"server.settings.{name}: {value!r}" in message
    assert message.endswith("expected a value without '/'") or "not a path" in message


def test_names_joined_by_a_slash_pass_where_the_option_takes_them(tmp_path):
    write_recipe(tmp_path, "demo", recipe_text(
        server='[server.settings]\ninnodb_ft_server_stopword_table = "sbtest/stopwords"\n'
               'default_time_zone = "America/Argentina/Buenos_Aires"\ncore_file = "ON"\n'))
    settings = dict(load("demo", recipes_dir=tmp_path).server_settings)
    assert settings["innodb_ft_server_stopword_table"] == "sbtest/stopwords"


def test_a_swept_path_option_is_refused(tmp_path):
    message = load_error(tmp_path, recipe_text(
        sweep='[sweep]\nsetting = "general_log_file"\nvalues = ["a.log", "/root/.bashrc"]\n'))
    assert message.endswith(f"sweep.setting: 'general_log_file' {PATH_MESSAGE}")


def test_a_swept_value_holding_a_path_is_refused(tmp_path):
    message = load_error(tmp_path, recipe_text(
        sweep='[sweep]\nsetting = "debug_dbug"\nvalues = ["d", "d:o,/etc/cron.d/x"]\n'))
    assert message.endswith("sweep.values: 'd:o,/etc/cron.d/x' holds '/': a path would take "
                            "the server outside its run's directory; expected a value without "
                            "'/'")


def test_a_lab_tables_sweep_keeps_its_own_rules(tmp_path):
    """'/' is a server value's problem only: a storage sweep's mount options are checked by
    their table."""
    write_recipe(tmp_path, "demo", recipe_text(
        storage='[storage]\nfilesystem = "ext4"\n',
        sweep='[sweep]\nsetting = "storage.mount_options"\nvalues = ["noatime", "data=journal"]\n'))
    assert load("demo", recipes_dir=tmp_path).sweep.values == ("noatime", "data=journal")


def test_a_variants_server_settings_are_held_to_it(tmp_path):
    path = write_recipe(tmp_path, "demo", recipe_text() + '\n[variants.logged.server.settings]\n'
                                                          'general_log_file = "/root/.bashrc"\n')
    with pytest.raises(UserError) as info:
        load_all("demo", tmp_path)
    assert str(info.value) == f"{path}: variants.logged.server.settings.general_log_file: " \
                              f"{PATH_MESSAGE}"


def test_options_that_end_like_a_path_but_name_none_pass():
    assert not any(names_path(n) for n in ("aria_sync_log_dir", "core_file", "innodb_status_file",
                                           "innodb_open_files", "innodb_log_file_size",
                                           "innodb_file_per_table", "ssl_cipher"))
    assert name_problem("innodb_flush_log_at_trx_commit") is None
