"""Site benchmarks, printed as ratios to their targets: build time, JavaScript a reader
downloads, and time to the first chart in headless chromium on localhost."""

import tempfile
import time
from pathlib import Path

from tuninglab.errors import UserError
from tuninglab.site import builder

FIRST, SECOND = "topics/doublewrite/", "topics/direct-io/"


def run(say=print) -> None:
    root = Path(tempfile.mkdtemp(prefix="bench-site-")) / "site"
    with builder.local_site(root) as url:
        started = time.monotonic()
        builder.build(root, site_url=url)
        build = time.monotonic() - started
        say(f"site build: {build:.1f}s, {build / 30:.2f} of the 30 s target")
        _browser(url, say)


def _browser(url: str, say) -> None:
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        raise UserError("the site benchmark needs playwright: run ./setup.sh") from None
    if not Path(builder.CHROMIUM).exists():
        raise UserError("the site benchmark needs Debian's chromium: apt-get install chromium")
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=builder.CHROMIUM, args=builder.CHROMIUM_ARGS)
        page = browser.new_page()
        js = {"bytes": 0}
        page.on("response", lambda r: _count_js(r, js))
        started = time.monotonic()
        page.goto(url + FIRST)
        page.wait_for_selector(".tl-chart[data-rendered] .main-svg", timeout=30000)
        first_chart = time.monotonic() - started
        page.wait_for_load_state("networkidle")
        first_js, js["bytes"] = js["bytes"], 0
        page.click(f"nav a[href$='{SECOND}']")
        page.wait_for_selector(".tl-chart[data-rendered] .main-svg", timeout=30000)
        page.wait_for_load_state("networkidle")
        browser.close()
    say(f"first visit to a topic page: {first_js / 1024:.0f} KiB of JavaScript")
    say(f"second page adds: {js['bytes'] / 1024:.1f} KiB of JavaScript, "
        f"{js['bytes'] / 102400:.2f} of the 100 KB target")
    say(f"navigation to first chart drawn: {first_chart:.2f}s, {first_chart / 1.5:.2f} of the "
        "1.5 s target")


def _count_js(response, js) -> None:
    if response.request.resource_type == "script" or response.url.endswith(".js"):
        try:
            js["bytes"] += len(response.body())
        except Exception:  # a response without a body (redirect, aborted) carries no bytes
            pass
