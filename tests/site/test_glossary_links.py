"""A page's first use of each glossary term links to the glossary (site/glossary_links.py); the
glossary has an entry for every term linked, and the built pages link it."""

import re

from tuninglab.files import PROJECT_DIR as ROOT
from tuninglab.site import glossary_links as g


def test_the_first_use_is_linked_and_only_it():
    html = "<p>A switchback run. Another switchback.</p>"
    out = g.linked(html, "topics/direct-io/")
    assert out.count('class="tl-term"') == 1
    assert ('<a class="tl-term" href="../../glossary/#switchback">switchback</a> run. '
            'Another switchback.') in out


def test_code_links_headings_and_controls_are_left_alone():
    html = ("<h2>Regime</h2><p><code>regime</code> <a href='x'>regime</a> "
            "<summary>regime</summary></p><p>The regime holds.</p>")
    out = g.linked(html, "topics/x/")
    assert out.count("tl-term") == 1
    assert 'The <a class="tl-term" href="../../glossary/#regime">regime</a> holds.' in out
    assert "<h2>Regime</h2>" in out and "<code>regime</code>" in out


def test_a_longer_term_wins_over_the_word_inside_it():
    out = g.linked("<p>the between-sitting spread of a sitting</p>", "")
    assert 'href="glossary/#between-sitting-spread">between-sitting spread</a>' in out
    assert 'href="glossary/#sitting">sitting</a>' in out   # its own first use, after


def test_the_glossary_page_links_nothing_and_text_is_unchanged():
    html = "<p>A sitting, a regime, TCG and a lab VM.</p>"
    assert g.linked(html, "glossary/") == html
    out = g.linked(html, "results/")
    assert re.sub(r"<[^>]+>", "", out) == re.sub(r"<[^>]+>", "", html)
    assert out.count("tl-term") == 4


def test_every_term_has_its_entry():
    text = (ROOT / "docs" / "glossary.md").read_text()
    anchors = {re.sub(r"[^a-z0-9]+", "-", h.lower()).strip("-")
               for h in re.findall(r"^## (.+)$", text, re.M)}
    assert {a for _, a in g.TERMS} <= anchors


def test_built_pages_link_the_glossary(built):
    page = (built / "topics" / "direct-io" / "index.html").read_text()
    assert 'class="tl-term" href="../../glossary/#' in page
    assert (built / "glossary" / "index.html").exists()
