"""The pure tables of server option names (recipes/server_names.py): what the engine maps a
recipe's settings with and data.check reads a result's server by."""

from tuninglab.engine.server import option_names
from tuninglab.recipes import server_names


def test_an_option_a_server_version_no_longer_has():
    gone = server_names.gone
    assert gone("innodb_buffer_pool_instances", "mariadb", (10, 11, 19)) == (10, 6, 0)
    assert gone("innodb_buffer_pool_instances", "mariadb", (10, 5, 27)) is None  # ignored there
    assert gone("innodb_buffer_pool_instances", "mysql", (8, 4, 3)) is None
    assert gone("innodb_thread_concurrency", "mariadb", (10, 6, 0)) == (10, 6, 0)
    assert gone("query_cache_size", "percona", (8, 0, 36)) == (8, 0, 0)
    assert gone("innodb_doublewrite", "mariadb", (10, 11, 19)) is None


def test_every_removal_with_a_version_is_explained():
    assert set(server_names.GONE_FROM) <= set(server_names.REMOVED)


def test_the_engine_checks_with_the_same_tables():
    assert option_names.REMOVED is server_names.REMOVED
