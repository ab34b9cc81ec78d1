"""A topic page's evidence is folded under its answers (folds.py): each second-level section
in a closed details whose summary is its heading and says how many charts it holds; the text
before the first section and the page's footnotes stay open."""

from tuninglab.site import folds

PAGE = ('<h1>Doublewrite</h1><p>Advice.</p><div class="tl-today">effects</div>'
        '<h2 id="sources">What the sources say</h2><div class="tl-chart" id="a"></div>'
        '<h2 id="today">What was measured</h2><p>Method.</p><div class="tl-chart" id="b"></div>'
        '<h3 id="tpcc">TPC-C</h3><div class="tl-chart" id="c"></div>'
        '<div class="footnote"><ol><li id="fn:1">A note.</li></ol></div>')


def test_each_section_is_folded_with_its_heading_as_summary():
    out = folds.folded(PAGE)
    assert out.startswith('<h1>Doublewrite</h1><p>Advice.</p><div class="tl-today">effects</div>'
                          '<details class="tl-evidence"><summary><h2 id="sources">')
    assert out.count('<details class="tl-evidence">') == 2
    assert '<span class="tl-fold-hint">1 chart</span></summary>' in out
    assert '<span class="tl-fold-hint">2 charts</span></summary>' in out
    assert '<h3 id="tpcc">TPC-C</h3><div class="tl-chart" id="c"></div></details>' in out


def test_the_footnotes_stay_out_of_the_last_fold():
    out = folds.folded(PAGE)
    assert out.endswith('</details>\n<div class="footnote"><ol><li id="fn:1">A note.</li></ol>'
                        '</div>')


def test_a_section_without_charts_says_nothing_of_charts():
    out = folds.folded('<p>Advice.</p><h2 id="gone">Options that are gone</h2><p>atime</p>')
    assert '<summary><h2 id="gone">Options that are gone</h2></summary><p>atime</p>' in out


def test_a_page_without_sections_is_unchanged():
    assert folds.folded("<p>Only advice.</p>") == "<p>Only advice.</p>"


def test_built_topic_pages_fold_their_evidence(built):
    page = (built / "topics" / "doublewrite" / "index.html").read_text()
    first = page.index('<details class="tl-evidence">')
    assert "tl-today-effects" in page[:first] and "tl-claim-verdicts" in page[:first]
    assert page.count('class="tl-chart"') == page[first:].count('class="tl-chart"')
    home = (built / "index.html").read_text()
    assert 'class="tl-evidence"' not in home
