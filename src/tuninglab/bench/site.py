"""Site benchmarks, printed as ratios to their targets: build time, JavaScript a reader
downloads (gzip-compressed, as a web server such as GitHub Pages sends it; the local server
sends it plain, so it is compressed here to count it) on a page with charts and on one without,
and time to the first chart in headless chromium on localhost, cold."""

import gzip
import tempfile
import time
from pathlib import Path

from tuninglab.errors import UserError
from tuninglab.site import builder

FIRST, SECOND = "topics/doublewrite/", "topics/direct-io/"
PLAIN = "contributing/"  # a page without a chart
JS_TARGET = 1 << 20  # bytes of JavaScript, compressed, on a first visit


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
        plain = _first_visit(browser, url + PLAIN)[0]
        first_js, first_chart = _first_visit(browser, url + FIRST, chart=True)
        page = browser.new_page()
        page.goto(url + FIRST)
        page.wait_for_selector(".tl-chart[data-rendered] .main-svg", timeout=30000)
        page.wait_for_load_state("networkidle")
        second = {"bytes": 0, "gzip": 0}
        page.on("response", lambda r: _count_js(r, second))
        page.click(f"nav a[href$='{SECOND}']")
        page.wait_for_selector(".tl-chart[data-rendered] .main-svg", timeout=30000)
        page.wait_for_load_state("networkidle")
        browser.close()
    for what, js in (("a page without charts", plain), ("a topic page with charts", first_js)):
        say(f"first visit to {what}: {js['gzip'] / 1024:.0f} KiB of JavaScript compressed "
            f"({js['bytes'] / 1024:.0f} KiB plain), {js['gzip'] / JS_TARGET:.2f} of the 1 MB "
            "target")
    say(f"second page adds: {second['bytes'] / 1024:.1f} KiB of JavaScript, "
        f"{second['bytes'] / 102400:.2f} of the 100 KB target")
    say(f"navigation to first chart drawn (cold): {first_chart:.2f}s, {first_chart / 1.5:.2f} "
        "of the 1.5 s target")


def _first_visit(browser, url: str, chart: bool = False) -> tuple[dict, float]:
    """The JavaScript a new visitor's browser fetches for url (an empty cache), and the time
    from navigation to its first chart drawn (0 without chart=True)."""
    context = browser.new_context()
    page = context.new_page()
    js = {"bytes": 0, "gzip": 0}
    page.on("response", lambda r: _count_js(r, js))
    started = time.monotonic()
    page.goto(url)
    if chart:
        page.wait_for_selector(".tl-chart[data-rendered] .main-svg", timeout=30000)
    drawn = time.monotonic() - started if chart else 0.0
    page.wait_for_load_state("networkidle")
    context.close()
    return js, drawn


def _count_js(response, js) -> None:
    if response.request.resource_type == "script" or response.url.endswith(".js"):
        try:
            body = response.body()
            js["bytes"] += len(body)
            js["gzip"] += len(gzip.compress(body))
        except Exception:  # a response without a body (redirect, aborted) carries no bytes
            pass
