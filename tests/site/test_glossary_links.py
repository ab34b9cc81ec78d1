"""A page's first use of each of the lab's terms links to its definition on the Method page
(site/glossary_links.py); the Method page defines every term linked, and the built pages link
it."""

import re

from tuninglab.files import PROJECT_DIR as ROOT
from tuninglab.site import glossary_links as g


def test_the_first_use_is_linked_and_only_it():
    html = "<p>A switchback run. Another switchback.</p>"
    out = g.linked(html, "topics/direct-io/")
    assert out.count('class="tl-term"') == 1
    assert ('<a class="tl-term" href="../../method/#switchback">switchback</a> run. '
            'Another switchback.') in out


def test_code_links_headings_and_controls_are_left_alone():
    html = ("<h2>Regime</h2><p><code>regime</code> <a href='x'>regime</a> "
            "<summary>regime</summary></p><p>The regime holds.</p>")
    out = g.linked(html, "topics/x/")
    assert out.count("tl-term") == 1
    assert 'The <a class="tl-term" href="../../method/#regime">regime</a> holds.' in out
    assert "<h2>Regime</h2>" in out and "<code>regime</code>" in out


def test_a_longer_term_wins_over_the_word_inside_it():
    out = g.linked("<p>the between-sitting spread of a sitting</p>", "")
    assert 'href="method/#between-sitting-spread">between-sitting spread</a>' in out
    assert 'href="method/#sitting">sitting</a>' in out   # its own first use, after


def test_the_method_page_links_nothing_and_text_is_unchanged():
    html = "<p>A sitting, a regime, TCG and a lab VM.</p>"
    assert g.linked(html, "method/") == html
    out = g.linked(html, "results/")
    assert re.sub(r"<[^>]+>", "", out) == re.sub(r"<[^>]+>", "", html)
    assert out.count("tl-term") == 4


def test_the_terms_a_reader_had_to_look_up_are_linked_in_a_table():
    """The words issue 78's reader met before any answer, as the tables give them."""
    html = ("<table><tr><td>1 result, 1 sitting (1 quick)</td><td>source in doubt</td>"
            "<td>only older evidence</td><td>a duet's half</td><td>the tpcc variant</td>"
            "<td>host class</td><td>regime not reached</td></tr></table>")
    out = g.linked(html, "claims/")
    for anchor in ("sitting", "quick-profile", "source-in-doubt", "older-evidence", "duet",
                   "variant", "host-class", "regime"):
        assert f'href="../method/#{anchor}"' in out, anchor


def test_quick_is_linked_only_as_a_profile():
    assert "tl-term" not in g.linked("<p>what it loses is a quick recovery</p>", "x/")
    for text in ("the quick profile", "a quick run", "(3 quick)", "quick: about 4m"):
        assert "#quick-profile" in g.linked(f"<p>{text}</p>", "x/"), text


def test_a_term_broken_over_two_source_lines_is_linked():
    out = g.linked("<p>measured on one host\nclass and its older\nevidence</p>", "x/")
    assert 'href="../method/#host-class">host\nclass</a>' in out
    assert 'href="../method/#older-evidence">older\nevidence</a>' in out


def test_every_term_has_its_entry():
    text = (ROOT / "docs" / "method.md").read_text()
    anchors = {re.sub(r"[^a-z0-9]+", "-", h.lower()).strip("-")
               for h in re.findall(r"^#{2,3} (.+)$", text, re.M)}
    assert {a for _, a in g.TERMS} <= anchors


def test_built_pages_link_the_method_page(built):
    page = (built / "topics" / "direct-io" / "index.html").read_text()
    assert 'class="tl-term" href="../../method/#' in page
    method = (built / "method" / "index.html").read_text()
    assert {a for _, a in g.TERMS} <= set(re.findall(r'\bid="([^"]+)"', method))
    assert not (built / "glossary").exists()
