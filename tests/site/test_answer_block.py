"""A topic page's answer block (```answer```, site/answer_block.py) on the committed data: every
topic page opens with it, each server's row states its default (or the command that shows
the host's), a setting that trades durability never reads without its risk, and none of the
lab's words is in it; front matter it cannot render is refused with the page and the key."""

import copy
import html
import re

import pytest

from helpers import REPO, TOPICS
from tuninglab.evidence import answers, risks, servers
from tuninglab.evidence.topic_pages import topic_pages
from tuninglab.site import answer_block

# The lab's words a reader would have to look up (issue 78): never in the answer.
JARGON = ("sitting", "host class", "duet", "regime", "older evidence", "source in doubt",
          "variant", "quick")


@pytest.fixture(scope="module")
def pages() -> dict:
    return {m["slug"]: m for m in topic_pages()}


@pytest.fixture(scope="module")
def blocks(pages) -> dict:
    return {slug: answer_block.block(meta) for slug, meta in pages.items()}


def rows(block: str) -> dict:
    """{server: its row's HTML}."""
    return dict(re.findall(r'<tr data-server="([^"]+)">(.*?)</tr>', block, re.S))


def cell(row: str, label: str) -> str:
    return re.search(rf'<t[dh][^>]*data-label="{label}[^"]*"[^>]*>(.*?)</t[dh]>', row,
                     re.S).group(1)


def text(fragment: str) -> str:
    return html.unescape(re.sub(r"<[^>]+>", " ", fragment))


@pytest.mark.parametrize("topic", TOPICS)
def test_every_topic_page_opens_with_its_answer(topic):
    body = (REPO / "docs" / "topics" / f"{topic}.md").read_text().split("\n---\n", 1)[1]
    blocks = [b for b in re.split(r"\n\s*\n", body.strip()) if b.strip()]
    assert blocks[0].startswith("# "), topic
    assert blocks[1] == f'```answer\ntopic = "{topic}"\n```', (topic, blocks[1][:80])
    assert "**Advice.**" not in body


@pytest.mark.parametrize("topic", TOPICS)
def test_each_server_states_its_default_or_the_command_that_shows_it(blocks, topic):
    found = rows(blocks[topic])
    assert list(found) == list(servers.SHOWN)
    for server, row in found.items():
        default = cell(row, "Default")
        stated = re.search(r"<code>[a-z0-9_]+ = [^<]+</code>", default) or \
            "none on this server" in default or re.search(r"shown by <code>.+</code>", default)
        assert stated, (topic, server, default)
        assert text(cell(row, "Set")).strip(), (topic, server, "nothing to set")


def test_a_default_is_the_servers_own_as_read_from_it(blocks):
    io = rows(blocks["io-capacity"])
    assert "<code>innodb_io_capacity = 10000</code>" in io["mysql 9.7"]
    assert "<code>innodb_max_dirty_pages_pct_lwm = 0</code>" in io["mariadb 10.11"]
    assert "<code>innodb_flush_method = O_DIRECT</code>" in rows(blocks["direct-io"])[
        "mariadb 10.11"]
    assert "<code>innodb_buffer_pool_instances</code>: none on this server" in \
        rows(blocks["buffer-pool-instances"])["mariadb 11.8"]
    assert 'title="MariaDB 10.11.19&#x27;s defaults, read from the server on' in \
        blocks["doublewrite"]


@pytest.mark.parametrize("topic", TOPICS)
def test_a_setting_that_trades_durability_reads_with_its_risk_in_its_row(pages, blocks, topic):
    for server, row in rows(blocks[topic]).items():
        a = answers.answer(pages[topic], server)
        if a.risk_kind:
            said = cell(row, "Evidence")
            assert 'class="tl-risk"' in said and html.escape(a.risk) in said, (topic, server)
            assert a.risk_kind in text(said)


def test_the_pages_whose_advice_compares_a_risky_setting_say_so(blocks):
    risky = {"flush-log-at-trx-commit", "doublewrite", "mount-options"}
    for topic in risky:
        assert blocks[topic].count('class="tl-risk"') == len(servers.SHOWN), topic
    kinds = {risks.NOT_DURABLE, risks.NOT_CRASH_SAFE}
    assert all(any(k in blocks[t] for k in kinds) for t in risky)


@pytest.mark.parametrize("topic", TOPICS)
def test_the_answer_uses_none_of_the_labs_words(blocks, topic):
    said = text(blocks[topic]).lower()
    assert [w for w in JARGON if re.search(rf"\b{w}\b", said)] == [], topic


@pytest.mark.parametrize("topic", TOPICS)
def test_a_cell_stating_an_advice_verdict_carries_its_mark(pages, blocks, topic):
    for server, row in rows(blocks[topic]).items():
        a = answers.answer(pages[topic], server)
        mark = answers.advice_mark(a)
        if mark:
            assert mark in row and answer_block.VERDICT_WORDS[a.kind] in text(row), (topic,
                                                                                   server)


def test_the_evidence_names_the_comparison_its_pool_and_the_hardware(blocks):
    said = text(cell(rows(blocks["direct-io"])["mariadb 10.11"], "Evidence"))
    assert re.search(r"Advice holds : O_DIRECT against fsync x\d\.\d\d \[\d\.\d\d, \d\.\d\d\] "
                     r"faster", said), said
    assert re.search(r"\d+ results? from \d+ machines?: a \d+-core .+ VM with \d+ GiB and a "
                     r"virtio disk", said), said


def test_the_block_says_when_it_does_not_apply_and_links_how_it_was_measured(blocks):
    direct = blocks["direct-io"]
    assert "Does not apply when:" in direct and "SAN" in direct
    assert '<a href="#tl-today-server-0">How this was measured</a>' in direct
    assert '<a href="../../method/">' in direct
    assert "fio --name" in blocks["io-capacity"] and "(check it first)" in blocks["io-capacity"]


@pytest.mark.parametrize("topic", ["raid", "write-cache", "kernels", "swap"])
def test_a_topic_the_lab_cannot_measure_leads_with_the_sources_chart_and_the_real_run(
        blocks, topic):
    assert re.search(r"invoke recipe \S+ --device DISK1 .*--destroy-data", blocks[topic])
    body = (REPO / "docs" / "topics" / f"{topic}.md").read_text().split("\n---\n", 1)[1]
    answer_at, chart_at = body.index("```answer"), body.index('kind = "historical"')
    assert answer_at < chart_at < body.index("```today") < body.index("\n## ")


# --- front matter it cannot render ------------------------------------------------------------

def refused(pages, slug: str, **changes) -> str:
    meta = copy.deepcopy(pages[slug])
    for key, value in changes.items():
        if value is None:
            meta.pop(key, None)
        else:
            meta[key] = value
    with pytest.raises(ValueError) as caught:
        answer_block.block(meta)
    return str(caught.value)


def test_front_matter_it_cannot_render_is_refused_with_the_page_and_the_key(pages):
    assert refused(pages, "doublewrite", answer=None) == \
        "docs/topics/doublewrite.md: answer: expected one line of text, got None"
    assert "docs/topics/doublewrite.md: expected `setting:`" in \
        refused(pages, "doublewrite", setting=None)
    assert "set: expected one text, or one per flavour (mariadb, mysql), got mariadb" in \
        refused(pages, "doublewrite", set={"mariadb": "`ON`"})
    assert "setting: innodb_doublewrtie is a variable none of" in \
        refused(pages, "doublewrite", setting="innodb_doublewrtie")
    assert "is set by the capture itself" in refused(pages, "doublewrite", setting="datadir")
    assert "check_first: 'yes', expected \"default\"" in \
        refused(pages, "doublewrite", check_first="yes")


def test_a_bad_fence_fails_the_strict_build_in_its_place(caplog):
    out = answer_block.answer_fence('topic = "no-such-page"', "answer", "answer", {}, None)
    assert 'class="admonition failure"' in out
    assert "answer fence: no topic page docs/topics/no-such-page.md" in caplog.text


def test_a_default_reads_as_a_configuration_file_writes_it():
    assert answer_block.shown_value("innodb_log_file_size", "100663296") == "96M"
    assert answer_block.shown_value("innodb_max_dirty_pages_pct_lwm", "0.000000") == "0"
    assert answer_block.shown_value("innodb_flush_method", "O_DIRECT") == "O_DIRECT"
