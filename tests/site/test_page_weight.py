"""plotly.js, the site's heaviest file, loads only on a page that has a chart, and never as a
script tag of the page, which would hold up its text: charts.js asks for it when it finds a
chart."""


import pytest

pytestmark = pytest.mark.integration


def test_no_page_holds_up_its_text_for_plotly(built):
    pages = list(built.rglob("*.html"))
    assert pages
    for page in pages:
        text = page.read_text(errors="replace")
        assert "plotly.min.js" not in text, page.relative_to(built)
        if "assets/js/charts.js" in text:
            assert 'charts.js" defer' in text, page.relative_to(built)


def _scripts_fetched(browser, screen: dict, url: str, wait_for: str | None = None) -> list[str]:
    page = browser.new_page(viewport=screen)
    fetched = []
    page.on("request", lambda r: fetched.append(r.url) if r.url.endswith(".js") else None)
    page.goto(url)
    if wait_for:
        page.wait_for_selector(wait_for, state="attached", timeout=15000)  # drawn, maybe folded
    page.wait_for_load_state("networkidle")
    page.close()
    return fetched


def test_plotly_is_fetched_only_where_a_chart_is_drawn(browser, served_site, screen):
    base = served_site[1]
    plain = _scripts_fetched(browser, screen, f"{base}/contributing/")
    assert any(u.endswith("charts.js") for u in plain)
    assert not any(u.endswith("plotly.min.js") for u in plain)
    charted = _scripts_fetched(browser, screen, f"{base}/topics/doublewrite/",
                               ".tl-chart[data-rendered='true'] .main-svg")
    assert sum(u.endswith("plotly.min.js") for u in charted) == 1


def test_the_page_budget_measures_every_topic_page(browser, served_site):
    """What `invoke bench --only site` prints against the page budget: each topic page's
    height in laptop screens, and the largest response a topic page fetches besides
    plotly.js (the search index, a host's views), both measured in the real browser."""
    from tuninglab.bench import site as bench_site
    heights, (name, size) = bench_site._page_budget(browser, served_site[1] + "/")
    assert set(heights) == set(bench_site.TOPICS)
    assert all(screens >= 1 for screens in heights.values())
    assert name != "-" and "plotly" not in name and size > 0
