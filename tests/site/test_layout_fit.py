"""The guide as its readers see it (issue 20), in Debian's chromium at a laptop's width (1366 px)
and a phone's (390 px): every page fits the screen and every table its column, a result's
verdicts read on a phone without scrolling sideways, the normalise toggle is legible in both
palettes, and the RAID page says once what a functional result is, shows one experiment at a
time and folds its IO charts."""


import pytest

from helpers import TOPICS, unfold_evidence

pytestmark = pytest.mark.integration

WIDE = {"width": 1366, "height": 900}
PHONE = {"width": 390, "height": 844}
AA = 4.5  # WCAG AA: the least contrast of normal text against its background


@pytest.fixture(scope="module")
def base_url(served_site):
    return served_site[1]


@pytest.fixture
def open_page(browser, base_url):
    """open_page(path, viewport, scheme): a page once its charts are drawn; its script errors
    and console errors are in .problems. Every context opened is closed after the test."""
    contexts = []

    def open_(path: str, viewport: dict, scheme: str = "light"):
        context = unfold_evidence(browser.new_context(viewport=viewport, color_scheme=scheme))
        contexts.append(context)
        pg = context.new_page()
        pg.problems = []
        pg.on("console", lambda m: pg.problems.append(m.text) if m.type == "error" else None)
        pg.on("pageerror", lambda e: pg.problems.append(str(e)))
        pg.goto(base_url + path)
        pg.wait_for_function("""() => [...document.querySelectorAll('.tl-chart')]
            .every(c => c.getAttribute('data-rendered') === 'true')""", timeout=20000)
        return pg

    yield open_
    for context in contexts:
        context.close()


# Every cell of a result's tables (verdicts, costs, regime checks, trends, the TPC-C-like mix)
# that is not inside the screen's width, or whose text is cut: none may be.
CELLS_OFF_SCREEN = """() => {
    const width = document.documentElement.clientWidth;
    return [...document.querySelectorAll('.tl-verdicts td')].filter(td => {
        const r = td.getBoundingClientRect();
        return r.left < -1 || r.right > width + 1 || td.scrollWidth > td.clientWidth + 1;
    }).map(td => `${td.dataset.label}: ${td.textContent.slice(0, 80)}`);
}"""

# The verdict cells shown (the RAID page shows one experiment's tab at a time).
VERDICT_CELLS = """() => [...document.querySelectorAll('.tl-verdicts td[data-label="verdict"]')]
    .filter(td => !td.closest('.tabbed-block') || td.offsetParent).map(td => {
                 const r = td.getBoundingClientRect();
                 return [r.left, r.right, r.width, td.textContent]; })"""


@pytest.mark.parametrize("topic", TOPICS)
def test_on_a_phone_no_topic_page_is_wider_than_the_screen(open_page, base_url, built, topic):
    pg = open_page(f"/topics/{topic}/", PHONE)
    assert pg.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
    assert pg.evaluate(CELLS_OFF_SCREEN) == []
    verdicts = pg.evaluate(VERDICT_CELLS)
    tabs = pg.locator(TABS)
    for t in range(1, tabs.count()):
        tabs.nth(t).click()
        verdicts += pg.evaluate(VERDICT_CELLS)
    html = (built / "topics" / topic / "index.html").read_text()
    assert len(verdicts) == html.count('data-label="verdict"')
    for left, right, width, text in verdicts:  # shown whole, as text on the screen
        assert width > 0 and left >= 0 and right <= PHONE["width"], text
    # A functional result's notice, on any page, links to the one explanation.
    links = pg.evaluate("[...document.querySelectorAll('.tl-functional a')].map(a => a.href)")
    assert set(links) <= {f"{base_url}{RAID}#functional"}
    assert pg.problems == []


# A table wider than the article's column, scrolling inside itself, or making the theme's
# wrapper scroll: what a reader would have to scroll sideways to read.
TABLES_TOO_WIDE = """() => {
    const column = document.querySelector('article').getBoundingClientRect();
    return [...document.querySelectorAll('article table')].filter(t => {
        const r = t.getBoundingClientRect();
        const wrap = t.closest('.md-typeset__scrollwrap');
        return r.width > 0 && (r.left < column.left - 1 || r.right > column.right + 1
            || t.scrollWidth > t.clientWidth + 1
            || (wrap && wrap.scrollWidth > wrap.clientWidth + 1));
    }).map(t => `${(t.closest('[class*="tl-"]') || {className: 'markdown'}).className}: `
                + `${Math.round(t.scrollWidth)} px: ${t.textContent.slice(0, 60)}`);
}"""


@pytest.mark.parametrize("path", [f"/topics/{t}/" for t in TOPICS] + ["/", "/claims/",
                                                                      "/results/"])
def test_on_a_laptop_every_table_fits_its_column(open_page, path):
    pg = open_page(path, WIDE)
    assert pg.evaluate("document.documentElement.scrollWidth") <= WIDE["width"]
    assert pg.evaluate(TABLES_TOO_WIDE) == []
    assert pg.problems == []


# The contrast ratio (WCAG 2) of an element's text against what is behind it: its own
# background over its ancestors' down to the first opaque one, once the theme's colour
# transitions have run.
CONTRAST = """async e => {
    await Promise.all(e.getAnimations().map(a => a.finished));
    const rgba = s => { const v = s.match(/[\\d.]+/g).map(Number);
                        return v.length === 3 ? [...v, 1] : v; };
    const over = (top, under) => [0, 1, 2].map(i => top[i] * top[3] + under[i] * (1 - top[3]))
                                          .concat([1]);
    const layers = [];
    for (let n = e; n; n = n.parentElement) {
        const c = rgba(getComputedStyle(n).backgroundColor);
        if (c[3] > 0) layers.push(c);
        if (c[3] === 1) break;
    }
    const back = layers.reverse().reduce((under, c) => over(c, under), [255, 255, 255, 1]);
    const text = over(rgba(getComputedStyle(e).color), back);
    const lum = c => [0.2126, 0.7152, 0.0722].reduce((sum, k, i) => {
        const v = c[i] / 255;
        return sum + k * (v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4); }, 0);
    const [hi, lo] = [lum(text), lum(back)].sort((a, b) => b - a);
    return (hi + 0.05) / (lo + 0.05);
}"""


@pytest.mark.parametrize("viewport", [WIDE, PHONE], ids=["1366", "390"])
@pytest.mark.parametrize("scheme, palette", [("light", "default"), ("dark", "slate")])
def test_the_normalise_toggle_is_legible_in_both_palettes(open_page, viewport, scheme,
                                                          palette):
    pg = open_page("/topics/doublewrite/", viewport, scheme)
    assert pg.evaluate("document.body.dataset.mdColorScheme") == palette
    button = pg.locator("button.tl-normalise").first
    button.scroll_into_view_if_needed()
    seen = {"idle": button.evaluate(CONTRAST)}
    button.hover()
    seen["hovered"] = button.evaluate(CONTRAST)
    button.click()
    pg.mouse.move(0, 0)
    assert button.get_attribute("aria-pressed") == "true"
    seen["pressed, focused"] = button.evaluate(CONTRAST)
    button.evaluate("b => b.blur()")
    seen["pressed"] = button.evaluate(CONTRAST)
    assert all(ratio >= AA for ratio in seen.values()), seen
    assert pg.problems == []


RAID = "/topics/raid/"
EXPLANATION = "Throughput here is therefore not RAID performance"  # raid.md's warning
PER_RESULT = "Compare the IO per transaction at the devices"  # each notice's title

NOTICES = """() => [...document.querySelectorAll('.tl-functional')].map(p => {
    const link = p.querySelector('a');
    return {lines: p.getBoundingClientRect().height / parseFloat(getComputedStyle(p).lineHeight),
            title: p.title, href: link && link.href, text: p.textContent};
})"""


@pytest.mark.parametrize("viewport", [WIDE, PHONE], ids=["1366", "390"])
def test_the_raid_page_explains_functional_results_once(open_page, base_url, viewport):
    pg = open_page(RAID, viewport)
    shown = pg.evaluate("document.body.innerText")
    assert shown.count(EXPLANATION) == 1 and PER_RESULT not in shown
    notices = pg.evaluate(NOTICES)
    assert notices, "the RAID page's results ran in the lab VM: each says so"
    for notice in notices:  # a line (two on a phone) linking to the explanation
        assert notice["lines"] < (1.5 if viewport is WIDE else 2.5), notice
        assert notice["href"] == f"{base_url}{RAID}#functional"
        assert PER_RESULT in notice["title"] and "functional" in notice["text"].lower()
    assert pg.evaluate("document.getElementById('functional').closest('.admonition') "
                       "!== null")
    pg.wait_for_function("document.body.dataset.tlDrawn === 'true'")
    pg.evaluate("document.querySelector('article').dataset.seen = 'before the click'")
    steps = pg.evaluate("history.length")
    pg.locator(".tl-functional a").first.click()
    # Instant navigation brings the page in again, and its charts, drawn after the jump, grow
    # above the warning: charts.js brings the warning back once they are drawn.
    pg.wait_for_function("location.hash === '#functional' && document.body.dataset.tlDrawn "
                         "=== 'true' && !document.querySelector('article').dataset.seen")
    assert pg.evaluate("history.length") == steps + 1, "one step back returns to the result"
    title = pg.evaluate("""() => { const box = document.getElementById('functional')
        .closest('.admonition').querySelector('.admonition-title').getBoundingClientRect();
        const header = document.querySelector('.md-header').getBoundingClientRect();
        return [box.top, header.bottom, innerHeight]; }""")
    assert title[1] <= title[0] < title[2], "the warning's title is in view, under the header"
    assert pg.problems == []


SHOWN = """() => [...document.querySelectorAll('article .tl-chart')]
    .filter(c => c.querySelector('.tl-plot').offsetParent).map(c => {
    const plot = c.querySelector('.tl-plot');
    const svg = plot.querySelector('.main-svg').getBoundingClientRect();
    const axis = plot.querySelector('.bglayer rect').getBoundingClientRect().bottom;
    const bars = [...plot.querySelectorAll('.bars .point path')]
        .map(e => e.getBoundingClientRect().bottom);
    return {folded: !!c.closest('details:not(.tl-evidence)'), drawn: c.dataset.rendered, box: plot.clientWidth,
            svg: [svg.left, svg.right, svg.width], off: bars.length ?
            Math.abs(Math.max(...bars) - axis) : 0};
})"""
# A fold within a page's evidence (the RAID page's IO charts), not the evidence's own sections
# (folds.py), which these tests open.
FOLD = "details:not(.tl-evidence)"
# A page's tabs of experiments, not its first screen's tabs of servers.
TABS = "article .tabbed-set:not(.tl-server-tabs) > .tabbed-labels > label"


@pytest.mark.parametrize("viewport", [WIDE, PHONE], ids=["1366", "390"])
def test_the_raid_page_shows_one_experiment_at_a_time_and_folds_its_io_charts(open_page,
                                                                              viewport):
    pg = open_page(RAID, viewport)
    # The results charts (the ones with the toggle) show; the IO and series charts fold.
    assert pg.evaluate("""() => [...document.querySelectorAll(
        '.tl-hostview[data-view="io"], .tl-hostview[data-view^="series"]')]
        .every(v => v.closest('details:not([open])'))""")
    assert pg.evaluate("""() => [...document.querySelectorAll('.tl-chart:has(.tl-normalise)')]
        .every(c => !c.closest('details:not(.tl-evidence)'))""")
    tabs = pg.locator(TABS)
    assert tabs.count() == 5, "chunk size, level, degraded, disks, RAID10 orders"
    opened = 0
    for t in range(tabs.count()):
        tabs.nth(t).click()
        summaries = pg.locator(f"article {FOLD}:has(.tl-chart):visible > summary")
        for i in range(summaries.count()):
            summaries.nth(i).click()
        opened += summaries.count()
        pg.wait_for_timeout(500)
        shown = pg.evaluate(SHOWN)
        assert any(c["folded"] for c in shown) and any(not c["folded"] for c in shown)
        for chart in shown:  # fitted to the column, on the screen, bars on their axis
            left, right, width = chart["svg"]
            assert chart["drawn"] == "true" and chart["off"] <= 2, chart
            assert abs(width - chart["box"]) <= 2 and left >= 0 and right <= viewport["width"]
    assert opened == pg.locator(f"article {FOLD}:has(.tl-chart)").count() > 0
    assert pg.problems == []


def test_a_folded_chart_drawn_at_another_width_fits_its_column_when_opened(open_page):
    # What a browser that lays nothing out in a closed <details> does: plotly draws at its
    # default 700 px. folded-charts.js fits the chart when the details opens.
    pg = open_page(RAID, PHONE)
    details = pg.locator(f"article {FOLD}:has(.tl-chart)").first
    details.evaluate("""d => Plotly.relayout(d.querySelector('.tl-plot'), {width: 700})""")
    assert not details.evaluate("d => d.open")
    details.locator("summary").click()
    pg.wait_for_function("""() => { const plot = document.querySelector(
        'article details:not(.tl-evidence) .tl-plot'); return Math.abs(plot._fullLayout.width
        - plot.clientWidth) <= 1; }""", timeout=5000)
    assert pg.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
    assert pg.problems == []


def test_a_chart_in_a_hidden_tab_is_fitted_to_its_column_when_the_tab_is_shown(open_page):
    # A hidden tab hands plotly no width: it draws at its default 700 px, which
    # folded-charts.js fits to the column when the tab shows.
    pg = open_page(RAID, PHONE)
    hidden = pg.locator("article .tabbed-set:not(.tl-server-tabs) .tabbed-block").nth(1)
    assert not hidden.is_visible()
    assert hidden.evaluate("b => b.querySelector('.tl-plot')._fullLayout.width") == 700
    pg.locator(TABS).nth(1).click()
    hidden.evaluate("""b => new Promise((done, fail) => { const plot =
        b.querySelector('.tl-plot'); const t0 = Date.now(); (function check() {
        if (Math.abs(plot._fullLayout.width - plot.clientWidth) <= 1) return done();
        if (Date.now() - t0 > 5000) return fail(new Error('not fitted'));
        setTimeout(check, 50); })(); })""")
    assert pg.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
    assert pg.problems == []


# Each server tab's label and the glance's words on a phone: a label whose right edge is past
# its row of tabs (cut under the theme's scroll arrow), or a glance cell's word broken inside
# itself (a line that starts with a letter that continues the previous line's word).
TABS_AND_WORDS = """() => {
    const cut = [...document.querySelectorAll('.tabbed-labels')].flatMap(row => {
        const edge = row.getBoundingClientRect().right;
        return [...row.querySelectorAll('label')]
            .filter(l => l.getBoundingClientRect().right > edge + 1).map(l => l.textContent);
    });
    const broken = [];
    document.querySelectorAll('.tl-glance td').forEach(td => {
        const walker = document.createTreeWalker(td, NodeFilter.SHOW_TEXT);
        for (let n = walker.nextNode(); n; n = walker.nextNode()) {
            // A line may break after a hyphen ("crash-" / "safe"), as in print: the parts
            // are words of their own here.
            const words = n.textContent.split(/[\\s\\-]+/).filter(w => w.length > 1);
            let at = 0;
            for (const w of words) {
                const start = n.textContent.indexOf(w, at);
                at = start + w.length;
                const r = document.createRange();
                r.setStart(n, start); r.setEnd(n, at);
                // A word on two lines has two rects; one broken after "_" or "=" (<wbr>) is
                // two text nodes, so it is never counted here.
                if (r.getClientRects().length > 1) broken.push(w);
            }
        }
    });
    return {cut, broken};
}"""


@pytest.mark.parametrize("path", ["/", "/topics/doublewrite/"])
def test_on_a_phone_no_tab_is_cut_and_no_glance_word_breaks_inside(open_page, path):
    pg = open_page(path, PHONE)
    seen = pg.evaluate(TABS_AND_WORDS)
    assert seen["cut"] == [], (path, seen)
    assert seen["broken"] == [], (path, seen)
