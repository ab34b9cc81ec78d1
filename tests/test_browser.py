"""The built guide in a real browser: Debian's chromium driven by Playwright."""

import re
from pathlib import Path

import pytest

from tuninglab import site

from test_site import TOPICS

pytestmark = pytest.mark.integration


@pytest.fixture(scope="module")
def base_url(served_site):
    return served_site[1]


@pytest.fixture(scope="module")
def browser():
    if not Path(site.CHROMIUM).exists():
        pytest.skip("needs Debian's chromium (apt-get install chromium)")
    sync_api = pytest.importorskip("playwright.sync_api", reason="needs playwright (pip)")
    with sync_api.sync_playwright() as p:
        b = p.chromium.launch(executable_path=site.CHROMIUM, args=site.CHROMIUM_ARGS)
        yield b
        b.close()


@pytest.fixture
def page(browser, base_url):
    context = browser.new_context()
    pg = context.new_page()
    pg.problems = []
    pg.on("console", lambda m: pg.problems.append(m.text) if m.type == "error" else None)
    pg.on("pageerror", lambda e: pg.problems.append(str(e)))
    pg.on("request", lambda r: None if r.url.startswith(base_url) or r.url.startswith("data:")
          else pg.problems.append(f"request to another origin: {r.url}"))
    yield pg
    context.close()


def charts_drawn(pg) -> list[tuple[int, int, int]]:
    """(traces expected, traces drawn, svgs) for every chart on the page, once all are drawn."""
    pg.wait_for_function("""() => [...document.querySelectorAll('.tl-chart')]
        .every(c => c.getAttribute('data-rendered') === 'true')""", timeout=15000)
    return pg.evaluate("""() => [...document.querySelectorAll('.tl-chart')].map(c =>
        [Number(c.dataset.traces), c.querySelector('.tl-plot').data.length,
         c.querySelectorAll('.tl-plot .main-svg').length])""")


@pytest.mark.parametrize("topic", TOPICS)
def test_every_chart_on_a_topic_page_renders(page, base_url, built, topic):
    page.goto(f"{base_url}/topics/{topic}/")
    html = (built / "topics" / topic / "index.html").read_text()
    charts = charts_drawn(page)
    assert len(charts) == html.count('class="tl-chart"')
    for expected, drawn, svgs in charts:
        assert drawn == expected and svgs >= 1
    assert page.problems == []


def test_instant_navigation_renders_the_next_pages_charts(page, base_url, built):
    # Two pages that have charts (a page of a recipe without results yet has none).
    first, second = [t for t in TOPICS
                     if "tl-chart" in (built / "topics" / t / "index.html").read_text()][:2]
    page.goto(f"{base_url}/topics/{first}/")
    charts_drawn(page)
    page.evaluate("window.__sameDocument = true")
    page.click(f"nav a[href$='{second}/']")
    page.wait_for_url(re.compile(f"/topics/{re.escape(second)}/"))
    charts = charts_drawn(page)
    assert page.evaluate("window.__sameDocument === true"), "the click reloaded the page"
    assert charts and all(drawn == expected for expected, drawn, _ in charts)
    assert page.problems == []
