"""The "Today's defaults" table (site/defaults_table.py): per server, every variable a set of
earlier defaults changes, today's value as that server read it back beside the earlier one,
with the rows that differ marked, counted and cited; a line saying how to measure it when no
result has been committed."""

import json

from helpers import DATA
from tuninglab.site import defaults_table, result_files

MYSQL = DATA / "defaults" / "20261128T225212Z-acff7a7b-quick-3b04171e.json"
MARIADB = DATA / "defaults" / "20261128T225506Z-acff7a7b-quick-0e20dc52.json"


def table_of(monkeypatch, *paths) -> str:
    docs = [json.loads(p.read_text()) for p in paths]
    monkeypatch.setattr(result_files, "results_for", lambda recipe, variant="": docs)
    return defaults_table.table()


def test_each_server_gets_its_own_table_marking_what_differs(monkeypatch):
    out = table_of(monkeypatch, MYSQL, MARIADB)
    assert out.index("MariaDB 11.8") < out.index("MySQL 9.7")   # the pages' order of servers
    assert "against the set <code>mysql-8.0</code> (9 of 11 differ here" in out
    assert "against the set <code>mariadb-10.11</code> (1 of 1 differ here" in out
    # MySQL 9.7 reads back O_DIRECT where 8.0's default was fsync: a marked row
    assert ('<tr class="tl-changed"><td><code>innodb_flush_method</code></td><td>O_DIRECT</td>'
            "<td>fsync</td></tr>") in out
    # and the same change buffering as 8.0's: an unmarked one
    assert ("<tr><td><code>innodb_change_buffering</code></td><td>all</td><td>all</td></tr>"
            in out)
    assert "MySQL 8.4 Reference Manual, 1.4 What Is New in MySQL 8.4" in out


def test_no_result_says_how_to_measure_one(monkeypatch):
    out = table_of(monkeypatch)
    assert "No result yet" in out and "invoke recipe defaults --server" in out
