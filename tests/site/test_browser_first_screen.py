"""Each topic page's first screen, in a real browser (Debian's chromium through Playwright) on a
laptop's screen and a phone's: the answer in plain words and the first server's row of the
answer block (its default, what to set) stand in it, and no row that answers nothing ("not
testable here") does. tests/site/test_browser_answer_first.py holds the four questions of
issue 78 to every server's row."""

import pytest

from helpers import TOPICS, evaluated

pytestmark = pytest.mark.integration

FIRST_SCREEN = """() => {
    const h = window.innerHeight;
    const top = el => el ? el.getBoundingClientRect().top + window.scrollY : Infinity;
    const bottom = el => el ? el.getBoundingClientRect().bottom + window.scrollY : Infinity;
    const block = document.querySelector('article .tl-answer');
    const answer = block && block.querySelector('.tl-answer-text');
    // The first server's row: its default and what to set (a phone's card may run on below
    // the fold: its first line may not).
    const row = block && block.querySelector('tbody tr');
    const line = 24;
    const untestable = [...document.querySelectorAll('article tr, article li')]
        // checkVisibility, not offsetParent: chromium lays out a closed details' rows (hidden
        // by content-visibility), so they have an offsetParent and a place on the page.
        .filter(r => r.checkVisibility() && r.textContent.includes('not testable here'))
        .map(top);
    return {h, answer: bottom(answer), row: row ? top(row) + line : Infinity,
            untestable: Math.min(Infinity, ...untestable)};
}"""


@pytest.mark.parametrize("topic", TOPICS)
def test_the_first_screen_holds_the_answer_and_the_first_servers_row(browser, served_site,
                                                                     topic, screen):
    screen_name = screen["width"]
    seen = evaluated(browser, f"{served_site[1]}/topics/{topic}/", screen, FIRST_SCREEN)
    h = seen["h"]
    assert seen["answer"] <= h, (topic, screen_name, "the answer below the first screen", seen)
    assert seen["row"] <= h, (topic, screen_name, "the first server's row below it", seen)
    assert seen["untestable"] >= h, (topic, screen_name, "'not testable here' in the first "
                                     "screen", seen)
