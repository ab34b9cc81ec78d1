"""A topic page's evidence is folded under its answers (folds.py): each second-level section's
body in a closed details under its heading, whose summary says how many charts it holds; the
text before the first section, the headings and the page's footnotes stay open."""

from tuninglab.site import folds

PAGE = ('<h1>Doublewrite</h1><p>Advice.</p><div class="tl-today">effects</div>'
        '<h2 id="sources">What the sources say</h2><div class="tl-chart" id="a"></div>'
        '<h2 id="today">What was measured</h2><p>Method.</p><div class="tl-chart" id="b"></div>'
        '<h3 id="tpcc">TPC-C</h3><div class="tl-chart" id="c"></div>'
        '<div class="footnote"><ol><li id="fn:1">A note.</li></ol></div>')


def test_each_sections_body_is_folded_under_its_heading():
    out = folds.folded(PAGE)
    assert out.startswith('<h1>Doublewrite</h1><p>Advice.</p><div class="tl-today">effects</div>'
                          '<h2 id="sources">What the sources say</h2>\n'
                          '<details class="tl-evidence"><summary>this section (1 chart)</summary>'
                          '<div class="tl-chart" id="a"></div></details>')
    assert out.count('<details class="tl-evidence">') == 2
    assert '<summary>this section (2 charts)</summary><p>Method.</p>' in out
    assert '<h3 id="tpcc">TPC-C</h3><div class="tl-chart" id="c"></div></details>' in out


def test_the_footnotes_stay_out_of_the_last_fold():
    out = folds.folded(PAGE)
    assert out.endswith('</details>\n<div class="footnote"><ol><li id="fn:1">A note.</li></ol>'
                        '</div>')


def test_a_section_without_charts_says_nothing_of_charts():
    out = folds.folded('<p>Advice.</p><h2 id="gone">Options that are gone</h2><p>atime</p>')
    assert '<h2 id="gone">Options that are gone</h2>\n<details class="tl-evidence">' \
        '<summary>this section</summary><p>atime</p></details>' in out


def test_a_page_without_sections_is_unchanged():
    assert folds.folded("<p>Only advice.</p>") == "<p>Only advice.</p>"


def test_built_topic_pages_fold_their_evidence(built):
    page = (built / "topics" / "doublewrite" / "index.html").read_text()
    first = page.index('<details class="tl-evidence">')
    assert "tl-today-effects" in page[:first] and "tl-claim-verdicts" in page[:first]
    assert page.count('<details class="tl-evidence">') == page.count("<h2 ")
    assert page.count('class="tl-chart"') == page[first:].count('class="tl-chart"')
    home = (built / "index.html").read_text()
    assert 'class="tl-evidence"' not in home
