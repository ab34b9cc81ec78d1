"""The sampler's mapping of every metric, per flavour, on real or documented server output.

MariaDB 10.11: a captured SHOW GLOBAL STATUS. MySQL 8.0/8.4 (and Percona, which shares the
mapping): there is no server here, so the INNODB_METRICS rows are a transcription of the
reference manual's example; a metric that example does not show must come out absent (None),
never guessed. No server is started.
"""

from types import SimpleNamespace

import pytest

from helpers import FIXTURES, FakeConnection
from tuninglab.engine.measure import sampler

# metric -> (SHOW GLOBAL STATUS variable, its value in the MariaDB 10.11 capture)
MARIADB = {
    "history_list_length": ("Innodb_history_list_length", 0),
    "checkpoint_age_bytes": ("Innodb_checkpoint_age", 21693253),
    "checkpoint_max_age_bytes": ("Innodb_checkpoint_max_age", 80819529),
    "dirty_pages": ("Innodb_buffer_pool_pages_dirty", 742),
    "pages_flushed": ("Innodb_buffer_pool_pages_flushed", 0),
}
# metric -> ("status" or "metrics", the name MySQL exposes it under)
MYSQL = {
    "history_list_length": ("metrics", "trx_rseg_history_len"),
    "checkpoint_age_bytes": ("metrics", "log_lsn_checkpoint_age"),
    "checkpoint_max_age_bytes": ("metrics", "log_max_modified_age_sync"),
    "dirty_pages": ("status", "Innodb_buffer_pool_pages_dirty"),
    "pages_flushed": ("status", "Innodb_buffer_pool_pages_flushed"),
}
# INNODB_METRICS counters MySQL enables at startup (MONITOR_DEFAULT_ON in
# https://github.com/mysql/mysql-server/blob/91659ce3030a1630eabdded4e17b1ba5743c9473/storage/innobase/srv/srv0mon.cc);
# log_lsn_checkpoint_age and log_max_modified_age_sync are defined there without it.
MYSQL_ENABLED_BY_DEFAULT = {"trx_rseg_history_len"}


def read_tsv(name: str) -> tuple[list[str], list[list[str]]]:
    """(comment lines, rows split on tabs) of a fixture; the first row is its header."""
    lines = (FIXTURES / name).read_text().splitlines()
    return ([line for line in lines if line.startswith("#")],
            [line.split("\t") for line in lines if line and not line.startswith("#")])


@pytest.fixture(scope="module")
def mariadb_status() -> dict:
    _, rows = read_tsv("mariadb_10.11_global_status.tsv")
    assert rows[0] == ["Variable_name", "Value"]
    return dict(rows[1:])


@pytest.fixture(scope="module")
def mysql_metrics() -> dict:
    """What the sampler's INNODB_METRICS query returns from those rows: name -> count of the
    enabled counters (see test_mysql_query_reads_only_enabled_counters)."""
    _, rows = read_tsv("mysql_8.0_innodb_metrics.tsv")
    assert rows[0] == ["NAME", "COUNT", "STATUS"]
    return {name: count for name, count, status in rows[1:] if status == "enabled"}


def test_every_metric_has_an_expectation_per_flavour():
    assert set(MARIADB) == set(sampler.STATUS_METRICS["mariadb"])
    assert set(MYSQL) == set(sampler.STATUS_METRICS["mysql"]) == set(
        sampler.STATUS_METRICS["percona"])


# --- MariaDB 10.11 ------------------------------------------------------------------------------

@pytest.mark.parametrize("metric", MARIADB)
def test_mariadb_metric_value(mariadb_status, metric):
    variable, value = MARIADB[metric]
    assert int(mariadb_status[variable]) == value
    assert sampler.innodb_metrics(mariadb_status, {}, "mariadb")[metric] == value


@pytest.mark.parametrize("metric", MARIADB)
def test_mariadb_metric_reads_its_own_variable(mariadb_status, metric):
    # Several captured values are 0: a marked value shows the metric reads this variable and
    # not another one that happens to hold the same number.
    variable, _ = MARIADB[metric]
    status = dict(mariadb_status, **{variable: "987654321"})
    metrics = sampler.innodb_metrics(status, {}, "mariadb")
    assert metrics[metric] == 987654321
    assert list(metrics.values()).count(987654321) == 1


# --- MySQL 8.0/8.4 and Percona ------------------------------------------------------------------

def test_mysql_fixture_names_the_manual_it_transcribes():
    comments, rows = read_tsv("mysql_8.0_innodb_metrics.tsv")
    assert comments[0] == ("# transcribed from https://dev.mysql.com/doc/refman/8.0/en/"
                           "innodb-information-schema-metrics-table.html")
    assert rows[1:] == [["dml_inserts", "46273", "enabled"]]   # the manual's example row


def test_mysql_documented_count_is_read_as_a_number(mysql_metrics):
    assert sampler._number(mysql_metrics["dml_inserts"]) == 46273


@pytest.mark.parametrize("flavor", ["mysql", "percona"])
@pytest.mark.parametrize("metric", MYSQL)
def test_mysql_metric_absent_where_the_manual_shows_no_value(mysql_metrics, flavor, metric):
    # The example has no row for the three INNODB_METRICS counters, and no SHOW GLOBAL STATUS
    # of MySQL is captured here: each metric is recorded as absent.
    _, name = MYSQL[metric]
    assert name not in mysql_metrics
    assert sampler.innodb_metrics({}, mysql_metrics, flavor)[metric] is None


@pytest.mark.parametrize("flavor", ["mysql", "percona"])
@pytest.mark.parametrize("metric", MYSQL)
def test_mysql_metric_reads_its_own_name(mysql_metrics, flavor, metric):
    source, name = MYSQL[metric]
    status = {name: "4242"} if source == "status" else {}
    metrics = dict(mysql_metrics, **({name: 4242} if source == "metrics" else {}))
    result = sampler.innodb_metrics(status, metrics, flavor)
    assert result[metric] == 4242
    assert [m for m, v in result.items() if v is not None] == [metric]


def test_mysql_ignores_mariadb_status_names(mariadb_status):
    # MySQL has no Innodb_checkpoint_age: a server that had it must not feed the MySQL mapping.
    metrics = sampler.innodb_metrics(mariadb_status, {}, "mysql")
    assert metrics["history_list_length"] is None
    assert metrics["checkpoint_age_bytes"] is None
    assert metrics["checkpoint_max_age_bytes"] is None


# --- which counters the sampler enables ---------------------------------------------------------

def test_every_counter_disabled_by_default_is_enabled():
    read = {name for source, name in MYSQL.values() if source == "metrics"}
    assert set(sampler.MYSQL_MONITORS) == read - MYSQL_ENABLED_BY_DEFAULT
    assert set(sampler.MYSQL_MONITORS) == {"log_lsn_checkpoint_age", "log_max_modified_age_sync"}


def statements_of_a_sampling(flavor: str) -> list[str]:
    conn = FakeConnection()
    server = SimpleNamespace(binary=SimpleNamespace(flavor=flavor), connect=lambda: conn)
    s = sampler.Sampler(server, devices=[], interval=3600)  # no tick: only start and stop read
    s.start()
    s.stop()
    return conn.statements


@pytest.mark.parametrize("flavor", ["mysql", "percona"])
def test_mysql_enables_each_counter_in_its_own_statement_before_reading(flavor):
    statements = statements_of_a_sampling(flavor)
    enables = [f"SET GLOBAL innodb_monitor_enable = '{m}'" for m in sampler.MYSQL_MONITORS]
    assert statements[:len(enables)] == enables
    assert not any("innodb_monitor" in s for s in statements[len(enables):])


def test_mysql_query_reads_only_enabled_counters():
    queries = [s for s in statements_of_a_sampling("mysql") if "INNODB_METRICS" in s]
    assert queries and all("status = 'enabled'" in q for q in queries)


def test_mariadb_enables_nothing_and_reads_no_innodb_metrics():
    statements = statements_of_a_sampling("mariadb")
    assert statements and all(s == "SHOW GLOBAL STATUS" for s in statements)
