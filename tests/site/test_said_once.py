"""A page says a caption's method once (result_tables.said, mkdocs_hooks.said_once): the first
use stays, each repeat of the same words goes, and a caption left empty goes with it."""

from tuninglab.site import mkdocs_hooks, result_tables


def test_the_first_use_stays_and_repeats_go():
    method = result_tables.said("Design: restart; method: Welch.")
    other = result_tables.said("Design: switchback; method: paired.")
    html = (f"<p class='tl-caption'>Latest result: host A. {method}</p>"
            f"<p class='tl-caption'>Latest result: host B. {method}</p>"
            f"<p class='tl-caption'>{method}</p><p class='tl-caption'>{other}</p>")
    out = mkdocs_hooks.said_once(html)
    assert out.count("Design: restart") == 1 and out.count("Design: switchback") == 1
    assert "Latest result: host B. </p>" in out
    assert out.count("<p class='tl-caption'>") == 3   # the empty one is gone


def test_built_pages_say_each_method_once(built):
    page = (built / "topics" / "direct-io" / "index.html").read_text()
    assert page.count('class="tl-said"') >= 1
    said = [s for s in page.split('<span class="tl-said">')[1:]]
    texts = [s.split("</span>")[0] for s in said]
    assert len(texts) == len(set(texts))
