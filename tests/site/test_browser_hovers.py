"""The built guide's secondary charts in a real browser (Debian's chromium through Playwright):
a bytes-written chart's hover speaks of bytes (less or more), never of the throughput's faster
or slower, and every host keeps one colour on every chart of a page (charts.js, tl_host)."""

import pytest

from helpers import unfold_evidence

pytestmark = pytest.mark.integration


@pytest.fixture
def page(browser, served_site):
    context = unfold_evidence(browser.new_context(viewport={"width": 1366, "height": 900}))
    pg = context.new_page()
    pg.problems = []
    pg.on("pageerror", lambda e: pg.problems.append(str(e)))
    pg.goto(f"{served_site[1]}/topics/direct-io/")
    pg.wait_for_function("""() => [...document.querySelectorAll('.tl-chart')]
        .every(c => c.getAttribute('data-rendered') === 'true')""", timeout=15000)
    yield pg
    context.close()


def test_the_bytes_charts_hover_speaks_of_bytes(page):
    chart = page.locator(".tl-chart").filter(
        has=page.locator(".ytitle", has_text="bytes written")).first
    chart.scroll_into_view_if_needed()
    bars = chart.locator("g.trace.bars .point path")
    assert bars.count() >= 2
    said = []
    for i in range(bars.count()):
        page.mouse.move(0, 0)  # leave the chart, so no earlier bar's hover is read again
        page.wait_for_selector(".hoverlayer .hovertext", state="detached", timeout=5000)
        box = bars.nth(i).bounding_box()  # plotly's drag layer takes the pointer: move it
        page.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
        page.wait_for_selector(".hoverlayer .hovertext", timeout=5000)
        said.append(page.locator(".hoverlayer .hovertext").first.text_content())
    # Each result (one a server) has its own baseline bar, which has no ratio to speak of.
    compared = [text for text in said if "ratio of geometric means" in text]
    assert compared, "\n".join(said)
    assert all(text.replace("device baseline", "").count("baseline") == 1
               for text in said if text not in compared)
    for text in compared:
        assert "bytes written per transaction (median of the runs)" in text
        assert "faster" not in text and "slower" not in text
        assert any(word in text for word in ("less", "more", "equivalent", "too noisy"))
    assert page.problems == []


def test_a_host_keeps_one_colour_on_every_chart_of_a_page(page):
    colours = page.evaluate("""() => {
        const seen = {};
        document.querySelectorAll('.tl-chart .tl-plot').forEach(p => p.data.forEach(t => {
            if (!t.tl_host) return;
            (seen[t.tl_host] = seen[t.tl_host] || new Set()).add(t.marker.color);
        }));
        return Object.fromEntries(Object.entries(seen).map(([h, s]) => [h, [...s]]));
    }""")
    assert colours, "no host's series on the direct-io page"
    assert all(len(set(c)) == 1 for c in colours.values()), colours
    drawn = set(c[0] for c in colours.values())
    assert len(drawn) == len(colours)  # as many colours as hosts
    # A theme change recolours every chart from the same index: still one colour a host.
    page.evaluate("document.body.setAttribute('data-md-color-scheme', 'slate')")
    page.wait_for_timeout(300)
    dark = page.evaluate("""() => [...document.querySelectorAll('.tl-chart .tl-plot')]
        .flatMap(p => p.data.filter(t => t.tl_host).map(t => [t.tl_host, t.marker.color]))""")
    by_host = {}
    for host, colour in dark:
        by_host.setdefault(host, set()).add(colour)
    assert all(len(c) == 1 for c in by_host.values())
    assert page.problems == []
