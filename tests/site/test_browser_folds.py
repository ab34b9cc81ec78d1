"""A topic page's folded evidence in a real browser (Debian's chromium through Playwright): the
sections' headings show and their bodies are folded; a fold opens on a click, and its charts are
then fitted to the column; a link to a subsection inside a fold (the table of contents') opens
the fold around it."""

import pytest

pytestmark = pytest.mark.integration

PAGE = "topics/filesystems/"
SUBSECTION = "ext3-against-ext2-and-ext4"   # an h3 inside the today section's fold


@pytest.fixture
def page(browser, served_site, screen):
    context = browser.new_context(viewport=screen)
    pg = context.new_page()
    pg.problems = []
    pg.on("pageerror", lambda e: pg.problems.append(str(e)))
    yield pg
    context.close()


def test_a_fold_opens_on_a_click_and_fits_its_charts(page, served_site):
    page.goto(f"{served_site[1]}/{PAGE}")
    folds = page.locator("details.tl-evidence")
    assert folds.count() >= 2
    assert all(not folds.nth(i).evaluate("d => d.open") for i in range(folds.count()))
    assert page.locator("article h2#what-was-measured-with-todays-software").is_visible()
    fold = page.locator("h2#what-was-measured-with-todays-software + details.tl-evidence")
    chart = fold.locator(".tl-plot").first
    assert not chart.is_visible()
    fold.locator("summary").click()
    assert chart.is_visible()
    page.wait_for_function("""() => [...document.querySelectorAll(
        'details.tl-evidence[open] .tl-plot')].every(p => p._fullLayout
        && Math.abs(p._fullLayout.width - p.clientWidth) <= 1)""", timeout=10000)
    assert page.evaluate("document.documentElement.scrollWidth") <= page.viewport_size["width"]
    assert page.problems == []


def test_a_link_to_a_subsection_opens_the_fold_around_it(page, served_site):
    page.goto(f"{served_site[1]}/{PAGE}#{SUBSECTION}")
    heading = page.locator(f"h3#{SUBSECTION}")
    heading.wait_for(state="visible", timeout=5000)
    assert heading.evaluate("h => h.closest('details').open")
