"""The report's three forms (advise/output.py): a terminal table wrapped to its columns, JSON a
program can read back, Markdown whose cells survive a pipe in a value."""

import json
from dataclasses import replace

from advise_facts import host, server
from tuninglab.advise import output
from tuninglab.evidence.server_readings import Reading
from tuninglab.evidence.server_rows import Evidence, Row

EVIDENCE = Evidence("mariadb 10.11", "", "holds", "", "2 vs 1, redo log fsyncs per "
                    "transaction", "x0.02 [0.01, 0.03]", 3, 2, "AMD EPYC, 2 cores",
                    "the same kind of machine")


def rows():
    applies = Row("flush-log-at-trx-commit", "innodb_flush_log_at_trx_commit", "u/flush/",
                  Reading("innodb_flush_log_at_trx_commit = 2", False, "a crash loses"),
                  EVIDENCE, "change it: 1 is the only durable setting", True,
                  "invoke recipe flush-log-at-trx-commit --quick", "5m")
    piped = Row("mount-options", "Mount options", "u/mount/",
                Reading("ext4: rw|odd", None), EVIDENCE, "the evidence holds", False,
                "invoke recipe mount-options --quick --device SPARE_DEVICE", "20m")
    return [applies, piped]


def test_the_terminal_table_lists_every_topic_then_what_applies_with_its_command():
    text = output.terminal(server(), host(), rows(), "mariadb 10.11", "")
    assert text.splitlines()[0].startswith("server: 10.11.14-MariaDB")
    assert "Topic" in text and "Mount options" in text
    assert "1 of 2 topics have advice that applies here:" in text
    assert "measure it here: invoke recipe flush-log-at-trx-commit --quick (5m)" in text


def test_the_evidence_says_what_it_pools_in_the_same_words_as_the_page():
    one = replace(EVIDENCE, results=1, hosts=1)
    assert EVIDENCE.counted() == "3 results from 2 machines"
    assert one.counted() == "1 result from 1 machine"
    assert output._evidence_text(EVIDENCE).endswith("x0.02 [0.01, 0.03], 3 results from 2 machines")


def test_json_reads_back_with_every_row_and_the_count_that_applies():
    doc = json.loads(output.as_json(server(), host(), rows(), "mariadb 10.11", ""))
    assert doc["applies"] == 1 and doc["guide_server"] == "mariadb 10.11"
    assert [r["slug"] for r in doc["rows"]] == ["flush-log-at-trx-commit", "mount-options"]
    assert doc["rows"][0]["evidence"]["ratio"] == "x0.02 [0.01, 0.03]"
    assert doc["server"]["variables"]["innodb_flush_log_at_trx_commit"] == "1"


def test_markdown_links_each_topic_and_escapes_a_pipe():
    text = output.markdown(server(), host(), rows(), "mariadb 10.11", "")
    assert "| [Mount options](u/mount/) | ext4: rw\\|odd |" in text
    assert "`invoke recipe flush-log-at-trx-commit --quick` (5m)" in text
    assert text.count("\n| [") == 2


def hostile_rows():
    """A row whose value a server chose: escape codes, a line break forging a line, HTML."""
    value = "x\x1b[2J\nerror: forged <script>alert(1)</script> *b* _i_ [l](u) `c` a|b &amp;"
    return [replace(rows()[1], reading=Reading(value, None))]


def test_the_terminal_shows_a_servers_control_characters_as_escapes():
    s = server(version="10.11.14-MariaDB\x1b]0;owned\x07\r\nerror: forged")
    text = output.terminal(s, host(), hostile_rows(), "mariadb 10.11", "")
    assert "\x1b" not in text and "\x07" not in text and "\r" not in text
    assert not any(line.startswith("error:") for line in text.splitlines())
    assert "10.11.14-MariaDB\\x1b]0;owned\\x07\\r\\nerror: forged" in text.splitlines()[0]
    assert "x\\x1b[2J\\nerror:" in text


def test_markdown_escapes_html_and_markdown_in_a_cell():
    s = server(version="10.11.14-MariaDB <img src=x onerror=alert(1)>")
    text = output.markdown(s, host(), hostile_rows(), "mariadb 10.11", "")
    assert "<script>" not in text and "<img" not in text
    row = next(line for line in text.splitlines() if line.startswith("| [Mount"))
    assert ("| x\\\\x1b\\[2J\\\\nerror: forged &lt;script&gt;alert(1)&lt;/script&gt; \\*b\\* "
            "\\_i\\_ \\[l\\](u) \\`c\\` a\\|b &amp;amp; |") in row
    assert row.replace("\\|", "").count("|") == 6  # the five cells still end where they should
    assert "`invoke recipe mount-options --quick --device SPARE_DEVICE` (20m)" in row
