"""The built guide's search in a real browser (Debian's chromium through Playwright): a term a
reader would type finds the topic page that answers it, from its prose or its tables' cells."""

import pytest

pytestmark = pytest.mark.integration

# What a reader types, and the page that must be among the answers.
SEARCHES = {"btrfs": "topics/filesystems/", "bfq": "topics/io-schedulers/",
            "doublewrite": "topics/doublewrite/", "O_DIRECT": "topics/direct-io/"}


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
