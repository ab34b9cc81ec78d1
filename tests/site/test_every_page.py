"""Every page of the built guide in Debian's chromium at a laptop's and a phone's size: it
draws every chart, logs no error, and is no wider than the screen."""

from pathlib import Path

import pytest

from helpers import unfold_evidence

pytestmark = pytest.mark.integration

SIZES = {"laptop": (1366, 900), "phone": (390, 844)}
# Charts whose bars do not stand on the x axis (plotly's title.automargin once drew bars for
# the plot before the margin grew): [chart, axis bottom, lowest bar bottom] in px.
FLOATING = """() => [...document.querySelectorAll('.tl-chart')].map((c, i) => {
    const plot = c.querySelector('.tl-plot .bglayer rect');
    const bars = [...c.querySelectorAll('.bars .point path')]
        .map(e => e.getBoundingClientRect()).filter(r => r.height > 0);
    if (!plot || !bars.length || c.closest('details:not([open])')) return null;
    const bottom = Math.round(plot.getBoundingClientRect().bottom);
    const lowest = Math.round(Math.max(...bars.map(r => r.bottom)));
    return Math.abs(bottom - lowest) > 2 ? [i, bottom, lowest] : null;
}).filter(Boolean)"""


def _pages(built: Path) -> list[str]:
    """Every page's path from the site root ("" for the home page)."""
    paths = (p.parent.relative_to(built) for p in built.rglob("index.html"))
    return sorted("" if rel == Path(".") else rel.as_posix() for rel in paths)


@pytest.mark.parametrize("size", SIZES)
def test_every_page_draws_its_charts_without_errors_within_the_screen(browser, built,
                                                                       served_site, size):
    width, height = SIZES[size]
    context = unfold_evidence(browser.new_context(viewport={"width": width, "height": height}))
    problems = []
    for path in _pages(built):
        page = context.new_page()
        page.on("console", lambda m, p=path: problems.append(f"{p}: {m.text}")
                if m.type == "error" else None)
        page.on("pageerror", lambda e, p=path: problems.append(f"{p}: {e}"))
        page.goto(f"{served_site[1]}/{path + '/' if path else ''}")
        page.wait_for_function("""() => [...document.querySelectorAll('.tl-chart')]
            .every(c => c.getAttribute('data-rendered') === 'true')""", timeout=30000)
        for chart, bottom, bars in page.evaluate(FLOATING):
            problems.append(f"{path}: chart {chart}'s bars end at {bars} px, its axis at {bottom}")
        wide = page.evaluate("document.documentElement.scrollWidth")
        if wide > width:
            problems.append(f"{path or 'home'}: {wide} px wide at {width} px")
        page.close()
    context.close()
    assert problems == []
