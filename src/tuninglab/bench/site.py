"""Site benchmarks, printed as ratios to their targets: build time, JavaScript a reader
downloads (gzip-compressed, as a web server such as GitHub Pages sends it; the local server
sends it plain, so it is compressed here to count it) on a page with charts and on one without,
time to the first chart in headless chromium on localhost, cold; and each topic page's height
in screens on a laptop (the evidence folded, as a reader first sees it) against the page budget
of 5 screens, and the largest response a topic page fetches besides plotly.js against 500 KB."""

import gzip
import tempfile
import time
from pathlib import Path

from tuninglab.errors import UserError
from tuninglab.files import PROJECT_DIR
from tuninglab.site import builder

FIRST, SECOND = "topics/doublewrite/", "topics/direct-io/"
PLAIN = "contributing/"  # a page without a chart
JS_TARGET = 1 << 20  # bytes of JavaScript, compressed, on a first visit
LAPTOP = {"width": 1366, "height": 900}
SCREENS_TARGET = 5       # a topic page's height, in screens of LAPTOP, before folded evidence
RESPONSE_TARGET = 500 * 1024   # the largest response of a topic page, plotly.js aside
# A chart plotly has drawn; on a topic page the charts are drawn in their folded sections
# (folds.py), so drawn is attached, not visible: opening a section shows its charts at once.
CHART_DRAWN = ".tl-chart[data-rendered] .main-svg"
TOPICS = sorted(p.stem for p in (PROJECT_DIR / "docs" / "topics").glob("*.md"))


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
        page.wait_for_selector(CHART_DRAWN, state="attached", timeout=30000)
        page.wait_for_load_state("networkidle")
        second = {"bytes": 0, "gzip": 0}
        page.on("response", lambda r: _count_js(r, second))
        page.click(f"nav a[href$='{SECOND}']")
        page.wait_for_selector(CHART_DRAWN, state="attached", timeout=30000)
        page.wait_for_load_state("networkidle")
        heights, largest = _page_budget(browser, url)
        browser.close()
    for what, js in (("a page without charts", plain), ("a topic page with charts", first_js)):
        say(f"first visit to {what}: {js['gzip'] / 1024:.0f} KiB of JavaScript compressed "
            f"({js['bytes'] / 1024:.0f} KiB plain), {js['gzip'] / JS_TARGET:.2f} of the 1 MB "
            "target")
    say(f"second page adds: {second['bytes'] / 1024:.1f} KiB of JavaScript, "
        f"{second['bytes'] / 102400:.2f} of the 100 KB target")
    say(f"navigation to first chart drawn (cold): {first_chart:.2f}s, {first_chart / 1.5:.2f} "
        "of the 1.5 s target")
    for topic, screens in sorted(heights.items(), key=lambda kv: -kv[1]):
        say(f"topic page {topic}: {screens:.1f} screens at 1366x900, "
            f"{screens / SCREENS_TARGET:.2f} of the {SCREENS_TARGET}-screen budget")
    name, size = largest
    say(f"largest response of a topic page besides plotly.js: {name} {size / 1024:.0f} KiB, "
        f"{size / RESPONSE_TARGET:.2f} of the 500 KB target")


def _page_budget(browser, url: str) -> tuple[dict, tuple]:
    """{topic: its page's height in laptop screens, folded evidence closed} and the (name,
    bytes) of the largest response any topic page fetched, plotly.js aside."""
    context = browser.new_context(viewport=LAPTOP)
    page = context.new_page()
    largest = ["-", 0]

    def seen(response):
        try:
            size = len(response.body())
        except Exception:  # a redirect or an aborted request carries no body
            return
        if "plotly" not in response.url and size > largest[1]:
            largest[:] = [response.url.removeprefix(url), size]
    page.on("response", seen)
    heights = {}
    for topic in TOPICS:
        page.goto(f"{url}topics/{topic}/")
        page.wait_for_load_state("networkidle")
        heights[topic] = page.evaluate("document.documentElement.scrollHeight / innerHeight")
    context.close()
    return heights, tuple(largest)


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
        page.wait_for_selector(CHART_DRAWN, state="attached", timeout=30000)
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
