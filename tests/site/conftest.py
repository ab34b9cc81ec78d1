"""The site tests' browser: Debian's chromium through Playwright, one per session (each test
opens its own pages or contexts)."""

from pathlib import Path

import pytest

from tuninglab.site import builder


@pytest.fixture(scope="session")
def browser():
    if not Path(builder.CHROMIUM).exists():
        pytest.skip("needs Debian's chromium (apt-get install chromium)")
    sync_api = pytest.importorskip("playwright.sync_api", reason="needs playwright (pip)")
    with sync_api.sync_playwright() as p:
        b = p.chromium.launch(executable_path=builder.CHROMIUM, args=builder.CHROMIUM_ARGS)
        yield b
        b.close()


# A laptop's screen and a phone's, for the tests that open pages at both.
SCREENS = {"1366": {"width": 1366, "height": 900}, "390": {"width": 390, "height": 844}}


@pytest.fixture(params=SCREENS)
def screen(request) -> dict:
    return SCREENS[request.param]
