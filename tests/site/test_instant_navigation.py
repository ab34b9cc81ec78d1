"""Instant navigation (Material's, clicks load the next page without a reload) works wherever
the built site is served, not only at the site_url it was built for: the same build served on
another port, as `python3 -m http.server` or a preview would serve it."""

import re

import pytest

from helpers import TOPICS
from tuninglab.site import builder

pytestmark = pytest.mark.integration


@pytest.fixture(scope="module")
def elsewhere(built):
    """The built site served at a second address: a port it was not built for."""
    with builder.local_site(built) as url:
        yield url.rstrip("/")


def test_a_click_loads_the_next_page_without_a_reload_on_another_port(browser, built, screen,
                                                                       base_url_of, elsewhere):
    assert elsewhere != base_url_of  # the site was built for the other address
    page = browser.new_page(viewport=screen)
    errors = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    first, second = TOPICS[:2]
    page.goto(f"{elsewhere}/topics/{first}/")
    page.wait_for_load_state("load")
    page.evaluate("window.__sameDocument = true")
    if screen["width"] < 1220:  # the theme's breakpoint: the navigation is in a drawer
        page.click("label.md-header__button[for='__drawer']")
    page.click(f"nav a[href$='{second}/']")
    page.wait_for_url(re.compile(f"/topics/{re.escape(second)}/"))
    page.wait_for_function(f"document.title.length > 0 && location.pathname.endsWith('{second}/')")
    assert page.evaluate("window.__sameDocument === true"), "the click reloaded the page"
    assert page.url.startswith(elsewhere)
    assert errors == []
    page.close()


@pytest.fixture(scope="module")
def base_url_of(served_site):
    return served_site[1]
