"""The built guide in a real browser: Debian's chromium driven by Playwright."""

import json
import re
import shutil

import pytest

from helpers import IMG, LONG, QUOTES, SCRIPT, TOPICS, hostile, unfold_evidence
from tuninglab.evidence import result_files
from tuninglab.site import builder, hostviews

pytestmark = pytest.mark.integration


@pytest.fixture(scope="module")
def base_url(served_site):
    return served_site[1]


def watched_page(context, base_url):
    """A page that records console errors, script errors, requests to another origin and
    dialogs (alert, confirm, prompt: what injected script would open first)."""
    pg = context.new_page()
    pg.problems = []
    pg.on("console", lambda m: pg.problems.append(m.text) if m.type == "error" else None)
    pg.on("pageerror", lambda e: pg.problems.append(str(e)))
    pg.on("request", lambda r: None if r.url.startswith(base_url) or r.url.startswith("data:")
          else pg.problems.append(f"request to another origin: {r.url}"))
    pg.on("dialog", lambda d: (pg.problems.append(f"dialog: {d.message}"), d.dismiss()))
    return pg


@pytest.fixture
def page(browser, base_url):
    context = unfold_evidence(browser.new_context())
    yield watched_page(context, base_url)
    context.close()


def charts_drawn(pg) -> list[tuple[int, int, int]]:
    """(traces expected, traces drawn, svgs) for every chart on the page, once all are drawn."""
    pg.wait_for_function("""() => [...document.querySelectorAll('.tl-chart')]
        .every(c => c.getAttribute('data-rendered') === 'true')""", timeout=15000)
    return pg.evaluate("""() => [...document.querySelectorAll('.tl-chart')].map(c =>
        [Number(c.dataset.traces), c.querySelector('.tl-plot').data.length,
         c.querySelectorAll('.tl-plot .main-svg').length])""")


@pytest.mark.parametrize("topic", TOPICS)
def test_every_chart_on_a_topic_page_renders(page, base_url, built, topic):
    page.goto(f"{base_url}/topics/{topic}/")
    html = (built / "topics" / topic / "index.html").read_text()
    charts = charts_drawn(page)
    assert len(charts) == html.count('class="tl-chart"')
    for expected, drawn, svgs in charts:
        assert drawn == expected and svgs >= 1
    assert page.problems == []


def test_instant_navigation_renders_the_next_pages_charts(page, base_url, built):
    # Two pages that have charts (a page of a recipe without results yet has none).
    first, second = [t for t in TOPICS
                     if "tl-chart" in (built / "topics" / t / "index.html").read_text()][:2]
    page.goto(f"{base_url}/topics/{first}/")
    charts_drawn(page)
    page.evaluate("window.__sameDocument = true")
    page.click(f"nav a[href$='{second}/']")
    page.wait_for_url(re.compile(f"/topics/{re.escape(second)}/"))
    charts = charts_drawn(page)
    assert page.evaluate("window.__sameDocument === true"), "the click reloaded the page"
    assert charts and all(drawn == expected for expected, drawn, _ in charts)
    assert page.problems == []


def test_charts_offer_no_button_that_uploads_them_elsewhere(page, base_url):
    # plotly.js's default "Share chart..." sends the chart to Plotly's cloud.
    page.goto(f"{base_url}/topics/doublewrite/")
    charts_drawn(page)
    titles = page.evaluate("""() => [...new Set([...document.querySelectorAll('.modebar-btn')]
        .map(b => b.getAttribute('data-title')))]""")
    assert "Download as PNG, with its title" in titles  # the modebar, without the upload
    assert not [t for t in titles if "Share" in t or "Cloud" in t or "Studio" in t]


def test_normalise_toggle_swaps_in_the_values_per_device_and_back(page, base_url):
    page.goto(f"{base_url}/topics/doublewrite/")
    charts_drawn(page)
    charts = page.locator(".tl-chart:has(.tl-normalise)")
    assert charts.count() == 3  # throughput (tps twice, new-order TPM), not bytes per transaction
    chart = charts.first
    state = """c => { const p = c.querySelector('.tl-plot');
        return [p.data.map(t => t.y), p.data.map(t => t.error_y.array),
                p.layout.yaxis.title.text]; }"""
    expected = chart.evaluate("""c => { const n = JSON.parse(c.dataset.figure).normalise;
        return [n.raw, n.normalised].map(m => [m.traces.y, m.traces['error_y.array'],
                                               m.layout['yaxis.title.text']]); }""")
    assert chart.evaluate(state) == expected[0]
    button = chart.locator("button.tl-normalise")
    button.click()
    assert button.get_attribute("aria-pressed") == "true"
    assert chart.evaluate(state) == expected[1]
    assert "per 1000 fsync/s" in expected[1][2]
    # A theme change redraws the chart: the reader's choice stays.
    page.evaluate("document.body.setAttribute('data-md-color-scheme', 'slate')")
    page.wait_for_timeout(300)
    assert chart.evaluate(state) == expected[1]
    button.click()
    assert button.get_attribute("aria-pressed") == "false"
    assert chart.evaluate(state) == expected[0]
    assert page.problems == []


# A phone's screen (390 px wide), and the text of a drawn chart that must stay inside it.
PHONE = {"width": 390, "height": 844}
CHART_TEXT = ".ytitle, .xtitle, .gtitle, .xtick text, .ytick text, .legendtext"


# The pages whose charts had text run off a phone's screen: the TPC-C throughput's y axis
# title, O_DIRECT_NO_FSYNC and the mount options as tick labels, hosts in the legends.
@pytest.mark.parametrize("topic", ["direct-io", "mount-options"])
def test_on_a_phone_no_chart_text_is_clipped_and_no_toolbar_covers_a_chart(browser, base_url,
                                                                           topic):
    context = unfold_evidence(browser.new_context(viewport=PHONE))
    pg = watched_page(context, base_url)
    try:
        pg.goto(f"{base_url}/topics/{topic}/")
        assert charts_drawn(pg)
        outside = pg.evaluate("""sel => [...document.querySelectorAll('.tl-chart')].flatMap(c => {
            const box = c.querySelector('.main-svg').getBoundingClientRect();
            return [...c.querySelectorAll(sel)].filter(e => {
                const r = e.getBoundingClientRect();
                return r.width > 0 && (r.top < box.top - 1 || r.bottom > box.bottom + 1 ||
                                       r.left < box.left - 1 || r.right > box.right + 1);
            }).map(e => e.textContent); })""", CHART_TEXT)
        assert outside == []
        assert pg.evaluate("document.querySelectorAll('.tl-chart .ytitle').length") > 0
        assert pg.locator(".tl-chart .modebar-btn").count() == 0
        assert pg.problems == []
    finally:
        context.close()


@pytest.fixture(scope="module")
def hostile_site(tmp_path_factory, committed_data):
    """The site built from a copy of the committed results plus a result file whose every text
    is hostile (TUNINGLAB_DATA_DIR points the build at the copy; the real data/ is untouched)."""
    data = tmp_path_factory.mktemp("data")
    for directory in committed_data.iterdir():
        if directory.is_dir() and directory.name != "historical":
            shutil.copytree(directory, data / directory.name)
    doc = hostile()
    (data / "doublewrite" / "20261123T000000Z-bbbbbbbb-quick.json").write_text(json.dumps(doc))
    root = tmp_path_factory.mktemp("hostile") / "site"
    with builder.local_site(root) as url:
        with pytest.MonkeyPatch.context() as mp:  # only for the build, not the session
            mp.setenv("TUNINGLAB_DATA_DIR", str(data))
            builder.build(root, site_url=url)
        yield root, url.rstrip("/"), data


def main_hosts(site) -> int:
    """The hosts of doublewrite's main experiment in the hostile site's data: the project's
    own (one per host class and server: its VMs are one) and the hostile one."""
    data = site[2] / "doublewrite"
    docs = [json.loads(p.read_text()) for p in data.glob("*.json")]
    return len({result_files.host_key(doc) for doc in docs if not doc.get("variant")})


def test_a_hostile_result_file_shows_as_text_and_runs_nothing(browser, hostile_site):
    _, url, _ = hostile_site
    context = unfold_evidence(browser.new_context())
    pg = watched_page(context, url)
    injected = """() => document.querySelectorAll(
        'img[src="x"], [onerror], [onmouseover], b, .tl-chart script, table script').length"""
    try:
        for path in ("/", "/results/", "/topics/kernels/", "/topics/doublewrite/"):
            pg.goto(url + path)
            charts_drawn(pg)
            assert pg.evaluate(injected) == 0, path

        # The results chart: the hostile host is a series of its own beside the project's
        # hosts, named and hovered as text.
        chart = pg.locator(".tl-chart:has(.tl-normalise)").first
        legend = chart.locator(".legendtext").all_text_contents()
        assert len(legend) == main_hosts(hostile_site)
        [hostile_trace] = [i for i, name in enumerate(legend)
                           if name.startswith("contributed: " + IMG + QUOTES)]
        chart.evaluate("c => Plotly.Fx.hover(c.querySelector('.tl-plot'), "
                       f"[{{curveNumber: {hostile_trace}, pointNumber: 1}}])")
        hover = chart.locator(".hoverlayer").text_content()
        assert SCRIPT + QUOTES in hover and IMG in hover
        assert pg.evaluate(injected) == 0

        pg.goto(url + "/results/")
        table = pg.locator(".tl-results-index table").inner_text()
        for text in (SCRIPT, IMG, QUOTES.strip(), LONG[:100]):
            assert text in table
        assert pg.problems == []
    finally:
        context.close()


def test_picking_a_host_fetches_its_views_and_they_stay_text(browser, hostile_site):
    _, url, _ = hostile_site
    context = unfold_evidence(browser.new_context())
    pg = watched_page(context, url)
    fetched = []
    pg.on("request", lambda r: fetched.append(r.url) if "/assets/hosts/" in r.url else None)
    injected = "() => document.querySelectorAll('img[src=\"x\"], [onerror], b, script:not([src])" \
               ":not([type]):not([id])').length"
    try:
        pg.goto(url + "/topics/doublewrite/")
        charts_drawn(pg)
        before = pg.evaluate(injected)
        main = f'.tl-hostview[data-group="{hostviews.group_path("doublewrite", "")}"]'
        views = pg.locator(main)
        assert views.count() == 2  # the verdicts under the throughput chart, a series chart
        pg.wait_for_function("([sel, n]) => [...document.querySelectorAll(sel)]"
                             ".every(v => v.dataset.hosts === n)",
                             arg=[main, str(main_hosts(hostile_site))])
        group = hostviews.group_path("doublewrite", "")
        mine = lambda: [u.rsplit("/", 1)[1] for u in fetched if f"/{group}/" in u]  # noqa: E731
        assert mine() == ["index.json"]  # no host file yet
        # The project's run is shown first; the contributed host is the one to pick.
        assert SCRIPT not in views.first.inner_text()
        hostile_key = views.first.evaluate("v => [...v.querySelector('select').options]"
                                           ".find(o => o.textContent.includes('contributed'))"
                                           ".value")
        views.first.locator("select").select_option(hostile_key)
        pg.wait_for_function("([sel, key]) => [...document.querySelectorAll(sel + ' select')]"
                             ".every(s => s.value === key)", arg=[main, hostile_key])
        pg.wait_for_function("t => document.querySelector('.tl-hostview .tl-verdicts')"
                             ".textContent.includes(t)", arg=SCRIPT + QUOTES)
        charts_drawn(pg)
        legend = views.nth(1).locator(".legendtext").all_text_contents()
        # A series' legend names the setting (here hostile too) and its value.
        assert legend[0] == f"{SCRIPT} = {IMG}" and legend[1].startswith(f"{SCRIPT} = {SCRIPT}")
        assert IMG in views.first.inner_text()
        assert mine()[1:] == [f"{hostile_key}.json"]
        assert pg.evaluate(injected) == before
        assert pg.problems == []
    finally:
        context.close()
