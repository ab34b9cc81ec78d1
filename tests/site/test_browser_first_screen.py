"""Each topic page's first screen, in a real browser (Debian's chromium through Playwright) on a
laptop's screen and a phone's: the advice, the command that reruns the first comparison and
today's ranked effects with their verdicts stand in it, and no row that answers nothing ("not testable here") does."""

import pytest

from helpers import TOPICS

pytestmark = pytest.mark.integration

FIRST_SCREEN = """() => {
    const h = window.innerHeight;
    const top = el => el ? el.getBoundingClientRect().top + window.scrollY : Infinity;
    const bottom = el => el ? el.getBoundingClientRect().bottom + window.scrollY : Infinity;
    const advice = [...document.querySelectorAll('article p')]
        .find(p => p.textContent.startsWith('Advice.'));
    const today = document.querySelector('.tl-today-effects .tabbed-block');
    // The first row's verdict (its throughput cell's first line), or the line saying why
    // there is none: a phone's card may run on below the fold, its answer may not.
    const row = today && today.querySelector('tbody tr');
    const cell = row ? row.querySelector('td:nth-child(2)') : today && today.querySelector('p');
    const line = 24;
    const untestable = [...document.querySelectorAll('article tr, article li')]
        // checkVisibility, not offsetParent: chromium lays out a closed details' rows (hidden
        // by content-visibility), so they have an offsetParent and a place on the page.
        .filter(r => r.checkVisibility() && r.textContent.includes('not testable here'))
        .map(top);
    // The command that reruns the first comparison (or measures the topic on this server).
    const rerun = today && today.querySelector('.tl-rerun code, p code');
    return {h, advice: bottom(advice), effect: cell ? top(cell) + line : Infinity,
            rerun: rerun ? bottom(rerun) : Infinity,
            verdict: !!(today && today.querySelector('.tl-v, p')),
            untestable: Math.min(Infinity, ...untestable)};
}"""


@pytest.mark.parametrize("topic", TOPICS)
def test_the_first_screen_holds_the_advice_and_todays_effects(browser, served_site, topic,
                                                             screen):
    screen_name = screen["width"]
    context = browser.new_context(viewport=screen)
    pg = context.new_page()
    try:
        pg.goto(f"{served_site[1]}/topics/{topic}/")
        seen = pg.evaluate(FIRST_SCREEN)
    finally:
        context.close()
    h = seen["h"]
    assert seen["advice"] <= h, (topic, screen_name, "advice below the first screen", seen)
    assert seen["effect"] <= h, (topic, screen_name, "today's first effect below it", seen)
    assert seen["verdict"], (topic, "today's block has no verdict nor a line saying why")
    assert seen["rerun"] <= h, (topic, screen_name, "no rerun command in the first screen", seen)
    assert seen["untestable"] >= h, (topic, screen_name, "'not testable here' in the first "
                                     "screen", seen)
