"""The answer on the first screen (issue 78), in a real browser (Debian's chromium through
Playwright) on a laptop's screen and a phone's: on the pages of the four questions a new reader
asked first ("O_DIRECT?", doublewrite, innodb_io_capacity, the IO scheduler), the first screen
shows each server's default and a value or a command to set, and none of the lab's words."""

import pytest

from helpers import evaluated

pytestmark = pytest.mark.integration

QUESTIONS = ("direct-io", "doublewrite", "io-capacity", "io-schedulers")
# The lab's words a reader would have to look up: off every first screen.
JARGON = ("sitting", "host class", "duet", "regime", "older evidence", "source in doubt",
          "variant", "quick")

FIRST_SCREEN = """() => {
    const h = window.innerHeight;
    // Whether an element's content is in view: its text's box, not its cell's, which a
    // table row stretches to its tallest cell.
    const seen = el => {
        const range = document.createRange();
        range.selectNodeContents(el);
        const r = range.getBoundingClientRect();
        return el.checkVisibility() && r.height > 0 && r.top >= 0 && r.bottom <= h;
    };
    const codes = el => [...el.querySelectorAll('code')].map(c => c.textContent.trim());
    // The command that finds the value to set, where the page gives one (io_capacity's fio).
    const find = document.querySelector('.tl-answer-find code');
    const rows = [...document.querySelectorAll('.tl-answer tbody tr')].map(tr => {
        const d = tr.querySelector('[data-label="Default"]');
        const s = tr.querySelector('[data-label="Set"]');
        const names = codes(d).map(c => c.split(' = ')[0]);
        // A value or a command: a code span of the Set cell that is not the bare name of a
        // variable the row's default names, or the command that finds it, in view.
        const value = codes(s).some(c => !names.includes(c)) || (!!find && seen(find));
        return {server: tr.dataset.server, default: seen(d) && codes(d).length > 0,
                set: seen(s) && value};
    });
    // The words of the first screen: every text node in view, commands (code) aside, whose
    // flags are not prose.
    const words = [];
    const walk = document.createTreeWalker(document.querySelector('article'),
                                           NodeFilter.SHOW_TEXT);
    for (let n = walk.nextNode(); n; n = walk.nextNode()) {
        const parent = n.parentElement;
        if (!n.textContent.trim() || parent.closest('code, script, style')) continue;
        const range = document.createRange();
        range.selectNodeContents(n);
        const r = range.getBoundingClientRect();
        if (r.height > 0 && r.top < h && r.bottom > 0 && parent.checkVisibility())
            words.push(n.textContent);
    }
    return {rows, text: words.join(' ')};
}"""


@pytest.mark.parametrize("topic", QUESTIONS)
def test_the_first_screen_answers_per_server_in_plain_words(browser, served_site, topic,
                                                             screen):
    seen = evaluated(browser, f"{served_site[1]}/topics/{topic}/", screen, FIRST_SCREEN)
    where = (topic, screen["width"])
    assert [r["server"] for r in seen["rows"]] == ["mariadb 10.11", "mariadb 11.8",
                                                  "mysql 9.7"], where
    for row in seen["rows"]:
        assert row["default"], (*where, row["server"], "its default is below the first screen")
        assert row["set"], (*where, row["server"], "no value or command in the first screen")
    said = seen["text"].lower()
    assert [w for w in JARGON if w in said] == [], (*where, seen["text"][:2000])
