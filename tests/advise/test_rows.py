"""The rows (advise/rows.py): the guide's server closest to the reader's, the host class
closest to the reader's host, what follows from the evidence and the reading, and the command
that measures it here; read against the committed results."""

import pytest

from advise_facts import MYSQL_9_7, host, server
from tuninglab.advise import output
from tuninglab.evidence import server_rows as rows
from tuninglab.evidence import advice, answers, host_class, result_files
from tuninglab.evidence.server_readings import Reading
from tuninglab.evidence.topic_pages import topic_pages


@pytest.fixture
def committed(committed_data, monkeypatch):
    monkeypatch.setattr(result_files, "DATA_DIR", committed_data)
    return committed_data


def test_each_server_maps_to_the_guides_own_or_its_closest_saying_so():
    assert rows.guide_server("mariadb", (10, 11, 14)) == ("mariadb 10.11", "")
    assert rows.guide_server("mysql", (9, 7, 4)) == ("mysql 9.7", "")
    server, note = rows.guide_server("mariadb", (10, 6, 21))
    assert server == "mariadb 10.11" and "closest to MariaDB 10.6" in note
    assert rows.guide_server("percona", (8, 4, 2))[0] == "mysql 9.7"
    assert rows.guide_server("mariadb", (11, 4, 5))[0] == "mariadb 11.8"


def test_differences_name_the_parts_that_differ():
    here = {"CPU": "AMD EPYC", "cores": 2, "memory": "24 GiB", "VM": True, "disk": "virtio disk"}
    there = {**here, "cores": 8, "VM": False}
    assert answers.differences(here, there) == ["cores: 8 there, 2 here", "VM: not a VM there, a "
                                             "VM here"]
    assert answers.differences(here, {**here, "CPU": None}) == []


def evidence(kind, why=""):
    return rows.Evidence("mariadb 10.11", "", kind, why, "OFF vs ON", "x1.05 [1.01, 1.09]", 3,
                         2, "AMD EPYC", "the same kind of machine")


META = {"advice": "Keep it ON."}


def test_advice_applies_only_where_the_evidence_holds_and_the_value_differs():
    off, on, free = Reading("x = OFF", False), Reading("x = ON", True), Reading("x", None)
    follows, applies = rows.what_follows(META, off, evidence(advice.HOLDS))
    assert applies and follows.startswith("change it: Keep it ON.")
    assert rows.what_follows(META, on, evidence(advice.HOLDS)) == (
        "yours already follows the advice, and the evidence holds", False)
    assert rows.what_follows(META, free, evidence(advice.HOLDS))[1] is False
    for kind in (advice.CANNOT_TELL, advice.DOES_NOT_HOLD, rows.NO_EVIDENCE):
        follows, applies = rows.what_follows(META, off, evidence(kind, "too noisy to tell"))
        assert not applies and "not advised" not in follows, follows


def test_too_noisy_evidence_is_said_so_never_advised():
    """Too noisy evidence changes nothing, and a current value that follows the advice never
    reads as if it were not advised (issue 78)."""
    noisy = evidence(advice.CANNOT_TELL, "too noisy to tell")
    follows, _ = rows.what_follows(META, Reading("x", False), noisy)
    assert follows == "nothing to change on this evidence: too noisy to tell"
    follows, _ = rows.what_follows(META, Reading("x = ON", True), noisy)
    assert follows.startswith("yours follows the page's advice; the evidence here cannot tell")


def test_the_rows_for_a_server_the_guide_measures_judge_its_evidence(committed):
    h = host()
    found = rows.rows(server(innodb_flush_log_at_trx_commit=2), h, {})
    assert [r.slug for r in found] == [m["slug"] for m in topic_pages()]
    by = {r.slug: r for r in found}
    flush = by["flush-log-at-trx-commit"]
    assert flush.reading.follows is False
    judged = answers.answer(next(m for m in topic_pages()
                                 if m["slug"] == "flush-log-at-trx-commit")).verdict
    assert flush.evidence.kind == judged.kind          # one host class: the guide's own
    assert flush.evidence.results >= 1 and flush.evidence.ratio.startswith("x")
    assert flush.applies == (judged.kind == advice.HOLDS)
    assert flush.command.startswith("invoke recipe flush-log-at-trx-commit --quick")
    assert flush.estimate and flush.url.endswith("/topics/flush-log-at-trx-commit/")
    assert "--device SPARE_DEVICE" in by["filesystems"].command


def test_a_mysql_server_gets_mysql_evidence_and_its_own_command(committed):
    found = {r.slug: r for r in rows.rows(server(MYSQL_9_7), host(), {})}
    assert all(r.evidence.server == "mysql 9.7" for r in found.values())
    assert found["doublewrite"].command.endswith("--server mysql-9.7")
    assert "lab VM runs its guest's own" in found["raid"].command


def test_the_closest_host_class_is_chosen_and_its_differences_said(committed):
    meta = next(m for m in topic_pages() if m["slug"] == "doublewrite")
    r = advice.rests_on(meta)
    first = rows.evidence(r, "mariadb 10.11", "", {})
    assert first.kind in advice.KINDS and first.host_class
    doc = next(c for c in advice.claim_verdicts.comparisons(r.recipe, r.variant, r.point)
               if c.evidence.host_class.name == first.host_class).evidence.results[-1]
    parts = host_class.machine_parts(doc)
    same = rows.evidence(r, "mariadb 10.11", "", parts)
    assert same.closeness.endswith("the same kind of machine")
    other = rows.evidence(r, "mariadb 10.11", "", {**parts, "cores": 96})
    assert "cores:" in other.closeness and "96 here" in other.closeness


def test_a_server_with_text_where_numbers_belong_gets_its_report_in_every_form(committed):
    """innodb_max_dirty_pages_pct_lwm, Innodb_checkpoint_age and Innodb_checkpoint_max_age
    holding text were a ValueError traceback: each is now its row's words."""
    s = server(innodb_max_dirty_pages_pct_lwm="\x1b[31mlow", status={
        "innodb_checkpoint_age": "old", "innodb_checkpoint_max_age": "100"})
    found = rows.rows(s, host(), {})
    by = {r.slug: r for r in found}
    assert "'\\x1b[31mlow' is not a number" in by["io-capacity"].reading.value
    assert "'old' is not a number" in by["redo-size"].reading.value
    for form in output.FORMS.values():
        assert "\x1b" not in form(s, host(), found, "mariadb 10.11", "")
