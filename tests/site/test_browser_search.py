"""The built guide's search in a real browser (Debian's chromium through Playwright): a term a
reader would type finds the topic page that answers it, from its prose or its tables' cells."""

import pytest

pytestmark = pytest.mark.integration

# What a reader types, and the page that must be among the answers.
SEARCHES = {"btrfs": "topics/filesystems/", "bfq": "topics/io-schedulers/",
            "doublewrite": "topics/doublewrite/", "O_DIRECT": "topics/direct-io/",
            # a setting by part of its name (issue 60)
            "io_capacity": "topics/io-capacity/", "trx_commit": "topics/flush-log-at-trx-commit/",
            "flush_method": "topics/direct-io/", "innodb_io_capacity": "topics/io-capacity/"}


@pytest.fixture(scope="module")
def search_page(browser, served_site):
    context = browser.new_context(viewport={"width": 1366, "height": 900})
    pg = context.new_page()
    pg.problems = []
    pg.on("pageerror", lambda e: pg.problems.append(str(e)))
    pg.goto(f"{served_site[1]}/")
    yield pg
    context.close()


@pytest.mark.parametrize("term", SEARCHES)
def test_a_term_finds_its_topic_page(search_page, term):
    pg = search_page
    box = pg.locator("input.md-search__input")
    box.click()   # a laptop's header shows the search box itself
    box.fill("")
    box.press_sequentially(term, delay=30)   # the theme searches on key presses
    # The search worker answers once its index is loaded: wait for the first result.
    pg.wait_for_selector(".md-search-result__item", timeout=15000)
    found = pg.eval_on_selector_all(".md-search-result__item a",
                                    "links => links.map(a => a.getAttribute('href'))")
    assert any(SEARCHES[term] in href for href in found), (term, found)
    box.fill("")
    pg.keyboard.press("Escape")
    assert pg.problems == []


def test_the_search_index_is_fetched_only_when_a_reader_searches(browser, served_site):
    """Every page's largest download after plotly.js waits for the first search
    (search-on-demand.js): none on load, one once the box is used, and the search answers."""
    context = browser.new_context(viewport={"width": 1366, "height": 900})
    pg = context.new_page()
    fetched = []
    pg.on("request", lambda r: fetched.append(r.url) if "search_index" in r.url else None)
    try:
        pg.goto(f"{served_site[1]}/topics/doublewrite/")
        pg.wait_for_load_state("networkidle")
        assert fetched == []
        box = pg.locator("input.md-search__input")
        box.click()
        box.press_sequentially("bfq", delay=30)
        pg.wait_for_selector(".md-search-result__item", timeout=15000)
        assert len(fetched) == 1 and fetched[0].endswith("search/search_index.json")
    finally:
        context.close()
