"""Pages compare servers (evidence/servers.py): every topic's verdict table and the home page's
table have a column per server, and a result on a new server adds to a page without moving what
it shows first, however many results that server has."""

import copy
import datetime as dt
import json
import re
import shutil
from pathlib import Path

import pytest

from helpers import DATA
from tuninglab.evidence import sets as evidence
from tuninglab.evidence import answers, claim_verdicts, claims_map, result_files, servers
from tuninglab.evidence.host_class import host_class, server_of
from tuninglab.evidence.topic_pages import topic_pages
from tuninglab.results.metrics import ratio_decimals
from tuninglab.results.result import Result
from tuninglab.site import home_table, hostviews, verdict_tables

# The committed doublewrite results of one host class (the one this full run's machine is of)
# on the reference server: the fixture's sets stay one class's and one server's however many
# classes and servers later results add.
CLASS_OF = DATA / "doublewrite" / "20261127T104626Z-848e4704-full-6df579c9.json"


def one_class() -> list[Path]:
    key = host_class(json.loads(CLASS_OF.read_text())).key
    docs = ((p, json.loads(p.read_text())) for p in sorted((DATA / "doublewrite").glob("*.json")))
    return [p for p, d in docs
            if host_class(d).key == key and server_of(d) == servers.REFERENCE]


DOUBLEWRITE = one_class()
CURRENT = [d for d in (json.loads(p.read_text()) for p in DOUBLEWRITE)
           if evidence.superseded_why(d) is None and not Result.of(d).variant]
# More MySQL results than the reference server has: its set is the larger.
ON_MYSQL = len(CURRENT) + 1


def claim():
    return claims_map.claim("zfs2009-doublewrite-off-serie-h")


def on_mysql(doc: dict, n: int) -> dict:
    """The result as if MySQL 9.7 had run it, on another sitting, after every committed one
    (and before now: a result dated in the future is never charted)."""
    doc = copy.deepcopy(doc)
    doc["server"].update(flavor="mysql", version="9.7.4")
    doc["host"]["id"] = f"{n:016x}"
    started = dt.datetime.now(dt.timezone.utc).replace(microsecond=0) - dt.timedelta(minutes=ON_MYSQL + 1 - n)
    doc["started"] = started.isoformat()
    return doc


@pytest.fixture
def data_dir(tmp_path, monkeypatch):
    """One class's committed doublewrite results, and more of them on MySQL 9.7: a set larger
    than the reference server's."""
    (tmp_path / "doublewrite").mkdir()
    for path in DOUBLEWRITE:
        shutil.copy(path, tmp_path / "doublewrite" / path.name)
    for n in range(ON_MYSQL):
        doc = on_mysql(CURRENT[n % len(CURRENT)], n + 1)
        (tmp_path / "doublewrite" / f"mysql-{n}.json").write_text(json.dumps(doc))
    monkeypatch.setattr(result_files, "DATA_DIR", tmp_path)
    return tmp_path


def test_the_guides_servers_in_order_with_their_labels_and_flags():
    assert servers.SHOWN == ("mariadb 10.11", "mariadb 11.8", "mysql 9.7")
    assert servers.REFERENCE == "mariadb 10.11"
    assert servers.ordered(["percona 8.0", "mysql 9.7", "mariadb 10.11"]) == [
        "mariadb 10.11", "mysql 9.7", "percona 8.0"]
    assert [servers.label(s) for s in servers.SHOWN] == ["MariaDB 10.11", "MariaDB 11.8",
                                                         "MySQL 9.7"]
    assert servers.command("invoke recipe x", "mariadb 10.11") == "invoke recipe x"
    assert servers.command("invoke recipe x", "mysql 9.7") == "invoke recipe x --server mysql-9.7"
    assert servers.flag("percona 8.0").startswith("--mysqld ")


def test_the_reference_servers_set_comes_first_however_large_another_is(data_dir):
    sets = evidence.evidence_sets("doublewrite")
    assert [s.server for s in sets] == ["mariadb 10.11", "mysql 9.7"]
    assert len(sets[1].results) > len(sets[0].results)
    first = claim_verdicts.verdicts(claim())[0]
    assert first.evidence.server == "mariadb 10.11"


def test_a_topic_table_has_a_column_per_server_each_with_its_own_verdict(data_dir):
    table = verdict_tables._table([claim()], [], "t")
    heads = re.findall(r"<th>(Today on [^<]*)</th>", table)
    assert heads == ["Today on MariaDB 10.11", "Today on MariaDB 11.8", "Today on MySQL 9.7"]
    cells = dict(re.findall(r'<td data-label="(Today on [^"]*)"[^>]*>(.*?)</td>', table))
    assert f"{ON_MYSQL} results from {ON_MYSQL} machines" in cells["Today on MySQL 9.7"]
    assert f"{ON_MYSQL} results" not in cells["Today on MariaDB 10.11"]
    assert "not measured yet" in cells["Today on MariaDB 11.8"]
    assert "invoke recipe doublewrite --server mariadb-11.8" in cells["Today on MariaDB 11.8"]


def test_an_untestable_row_spans_every_server_column(data_dir):
    _, untestable = claims_map.load_map()
    table = verdict_tables._table([claim()], untestable[:1], "t")
    assert 'colspan="3"' in table


def test_a_page_opens_on_the_reference_server_though_another_ran_later(data_dir):
    docs = result_files.results_for("doublewrite")
    newest = max(docs, key=lambda d: Result.of(d).started)
    assert Result.of(newest).raw["server"]["flavor"] == "mysql"
    shown = hostviews.shown_by_default(docs)
    assert Result.of(shown).raw["server"]["flavor"] == "mariadb"
    only_mysql = [d for d in docs if Result.of(d).raw["server"]["flavor"] == "mysql"]
    assert hostviews.shown_by_default(only_mysql) is only_mysql[-1]


def home_rows(page: str) -> list[str]:
    """The home table's body rows."""
    return page.split("<tbody>")[1].split("</tbody>")[0].split("<tr>")[1:]


def test_the_home_page_has_a_column_per_server_the_reference_first(data_dir):
    """A column per server under the question its cells answer; a server without a result
    says how to measure it in the cell's hover."""
    page = home_table.topics_fence("", "topics", "", {}, None)
    head = page.split("<thead>")[1].split("</thead>")[0]
    assert re.findall(r"<th>([^<]*)</th>", head) == ["MariaDB 10.11", "MariaDB 11.8",
                                                     "MySQL 9.7"]
    assert '<th colspan="3">Does the advice hold?' in head
    row = next(r for r in home_rows(page) if 'href="topics/doublewrite/"' in r)
    cells = dict(re.findall(r'<td data-label="([^"]*)" title="([^"]*)"', row))
    assert "--server mariadb-11.8" in cells["MariaDB 11.8"]
    assert "--server" not in cells["MariaDB 10.11"]
    # Kept out of the search index by an element no inner element shares a tag with.
    assert page.count("<section") == page.count("<section data-search-exclude>") == 1


def test_the_home_table_has_every_topic_and_server(data_dir):
    """A row per topic page with its advice in a few words, a cell per server with whether the
    advice holds there, or why there is no answer (one cell across the servers for advice that
    rests on no measurement), each linking to the page."""
    page = home_table.topics_fence("", "topics", "", {}, None)
    rows = home_rows(page)
    assert len(rows) == len(topic_pages())
    for row in rows:
        slug = re.search(r'href="topics/([^/]+)/"', row).group(1)
        if 'colspan="3"' in row:
            assert row.count("<td") == 2 and "rests on no measurement" in row
        else:
            assert row.count("<td") == 4 and row.count('class="tl-v') == 3
        assert row.count(f'<a href="topics/{slug}/"') == row.count("<td")
    flush = next(r for r in rows if 'href="topics/flush-log-at-trx-commit/"' in r)
    assert "Keep 1, the only durable setting" in flush


def test_a_home_cell_is_the_advice_verdict_with_its_interval_and_the_row_its_risk(data_dir):
    """A cell says the answer index's verdict and the interval of the comparison it rests on,
    marked as the advice's (answers.advice_mark) and as measured (measured.py); its hover
    names the comparison and its metric. A row whose compared setting trades durability says
    "keep it" and what the other value risks, so no gain on it is bare."""
    page = home_table.topics_fence("", "topics", "", {}, None)
    row = next(r for r in home_rows(page) if 'href="topics/doublewrite/"' in r)
    meta = next(m for m in topic_pages() if m["slug"] == "doublewrite")
    a = answers.answer(meta, "mariadb 10.11")
    topic, cell = re.findall(r"<td[^>]*>(.*?)</td>", row)[:2]
    assert ('class="tl-risk">Keep it: <code>OFF</code> risks a page torn by a crash '
            "mid-write") in topic
    interval = a.setting.text(ratio_decimals(a.setting.ratio, 2), mark="x", with_verdict=False)
    assert f'tl-v-{a.kind.replace(" ", "-")}">{a.kind}</span> · {interval}' in cell
    td = re.findall(r"<td [^>]*>", row)[1]
    assert answers.advice_mark(a) in td and 'data-measured="mariadb 10.11|doublewrite||yes"' in td
    hover = re.search(r'title="([^"]*)"', td).group(1)
    assert hover.startswith("Does the advice hold on MariaDB 10.11? ")
    assert "innodb_doublewrite OFF against ON, throughput (transactions/s)" in hover
    for r in home_rows(page):   # every risky row says its risk, whatever its cells show
        slug = re.search(r'href="topics/([^/]+)/"', r).group(1)
        m = next(m for m in topic_pages() if m["slug"] == slug)
        if answers.answer(m).risk_kind:
            assert 'class="tl-risk">Keep it: ' in r, slug


def test_the_home_order_is_data_losing_settings_then_wrong_defaults_then_effects():
    """check_order: the settings that lose data first, then the defaults a page marks
    `check_first: "default"`, then the rest as answers.ranked ranks them."""
    pages = [dict(m) for m in topic_pages()]
    for m in pages:
        m.pop("check_first", None)
        if m["slug"] in ("purge-threads", "io-capacity"):
            m["check_first"] = "default"
    ranked = answers.ranked(servers.REFERENCE, pages)
    order = [a.slug for a in home_table.check_order(ranked)]
    risky = [a.slug for a in ranked if a.risk_kind]
    assert risky and order[:len(risky)] == risky
    assert set(risky) >= {"flush-log-at-trx-commit", "doublewrite"}
    defaults = [a.slug for a in ranked if a.slug in ("purge-threads", "io-capacity")]
    assert order[len(risky):len(risky) + 2] == defaults
    rest = [a.slug for a in ranked if a.slug not in risky + defaults]
    assert order[len(risky) + 2:] == rest


def test_a_check_first_other_than_default_fails_the_page_naming_it():
    pages = [dict(m) for m in topic_pages()]
    pages[0]["check_first"] = "yes"
    with pytest.raises(ValueError, match=rf"docs/topics/{pages[0]['slug']}.md: check_first: "
                                         r"expected 'default', got 'yes'"):
        home_table.check_order(answers.ranked(servers.REFERENCE, pages))


def test_a_lab_vm_claim_says_why_no_other_server_is_measured():
    """The lab VM runs its guest's own MariaDB: no --server command would measure another."""
    c = claims_map.claim("zfs2009-recordsize-read-amplification")
    table = verdict_tables._table([c], [], "t")
    cells = dict(re.findall(r'<td data-label="(Today on [^"]*)"[^>]*>(.*?)</td>', table))
    for server in ("MariaDB 11.8", "MySQL 9.7"):
        assert "the lab VM runs its guest&#x27;s own MariaDB 10.11" in cells[f"Today on {server}"]
        assert "--server" not in cells[f"Today on {server}"]


def test_the_home_fence_takes_no_options():
    bad = home_table.topics_fence('part = "glance"', "topics", "", {}, None)
    assert 'class="admonition failure"' in bad and "takes no options" in bad


def test_a_duets_verdict_names_its_class_even_alone_in_its_column():
    """A duet's servers had half the machine: its cell says so, where a whole machine's sole
    set leaves its class to the page's line."""
    from tuninglab.evidence.host_class import HostClass
    from tuninglab.site import verdict_tables
    duet = HostClass("d", "duet, 1 of 2 CPUs a server on a machine", "duet", False, False, True)
    whole = HostClass("m", "a machine", "a machine", False, False)

    def note(cls):
        s = evidence.EvidenceSet("doublewrite", "", "mariadb 11.8", cls, (), ())
        v = claim_verdicts.Verdict("too noisy to tell", "too noisy to tell", None, None,
                                   evidence=s)
        return verdict_tables._set_note(v, several=False)
    assert note(duet) == "duet, 1 of 2 CPUs a server on a machine" and note(whole) == ""
