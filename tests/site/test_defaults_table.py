"""The "Today's defaults" tables: per server, every variable a set of earlier defaults
changes, today's value as that server read it back beside the earlier one, with the rows that
differ marked, counted and cited, or a line saying how to measure it when no result has been
committed (site/defaults_table.py); and where each server's default stands on each question a
source measured with a server option (site/defaults_advice.py)."""

import json

from helpers import DATA
from tuninglab.evidence import result_files
from tuninglab.site import defaults_advice, defaults_table
from tuninglab.results.result import Result

MYSQL = DATA / "defaults" / "20261128T225212Z-acff7a7b-quick-3b04171e.json"
MARIADB = DATA / "defaults" / "20261128T225506Z-acff7a7b-quick-0e20dc52.json"


def table_of(monkeypatch, *paths) -> str:
    docs = [json.loads(p.read_text()) for p in paths]
    monkeypatch.setattr(result_files, "results_for",
                        lambda recipe, variant="": [Result(d) for d in docs])
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


# --- where each default stands on the sources' questions (site/defaults_advice.py) -------------

def test_every_question_a_claim_asks_of_a_server_option_is_read_back():
    # the recipe's read_back is what makes the table: a claim on an option it does not read
    # would show "not read back" for every server
    from tuninglab.recipes.load import load
    read = set(load("defaults").sweep.read_back)
    assert {q["setting"] for q in defaults_advice._questions()} <= read


def test_each_default_is_the_faster_value_the_slower_or_neither():
    assert defaults_advice.which("O_DIRECT", "O_DIRECT", "fsync") == defaults_advice.FASTER
    assert defaults_advice.which("4", "1", "4") == defaults_advice.SLOWER
    assert defaults_advice.which("100663296", "1G", "48M") == defaults_advice.NEITHER
    assert defaults_advice.which("1073741824", "1G", "48M") == defaults_advice.FASTER


def test_the_table_reads_each_servers_default_back_under_its_own_name(monkeypatch):
    docs = [json.loads(p.read_text()) for p in (MYSQL, MARIADB)]
    monkeypatch.setattr(result_files, "results_for",
                        lambda recipe, variant="": [Result(d) for d in docs])
    out = defaults_advice.table()
    assert "<th>MariaDB 11.8 default</th><th>MySQL 9.7 default</th>" in out
    row = out[out.index("<code>innodb_flush_method</code>"):]
    row = row[:row.index("</tr>")]
    assert "O_DIRECT against fsync (Peter Zaitsev, 2004 x1.11)" in row
    assert row.endswith("<td>O_DIRECT</td>" + '<td class="tl-changed">O_DIRECT: the faster</td>' * 2)
    # The purge speed-up was an accident its source disowns (issue 59): no claim, no advice.
    assert "innodb_purge_threads" not in out
    # MySQL 9.7 names the redo log's size innodb_redo_log_capacity: read back under that name
    mysql = dict(docs[0])
    mysql["points"] = [dict(p, runs=[dict(p["runs"][0], effective={
        "innodb_redo_log_capacity": "104857600"})]) for p in docs[0]["points"]]
    assert defaults_advice.default_of(mysql, "innodb_log_file_size") == "104857600"
