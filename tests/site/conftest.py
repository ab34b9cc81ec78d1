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
