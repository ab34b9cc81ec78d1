"""One meaning per word (issue 78, item 2): every element of the built guide that states a
comparison's verdict on a server marks what it says (evidence/answers.Mark: the comparison, the
host class whose results it pools, the question it answers, its words and its interval), and
no two pages say different things of one comparison on one evidence: the same question reads
the same words everywhere, and every question on it one interval."""

import re
import shutil

import pytest

from tuninglab.evidence import answers

pytestmark = pytest.mark.integration

ELEMENT = re.compile(r'<(td|tr|p|li|span|div)\b[^>]*\b' + answers.ATTR + r'="([^"]*)"')


def statements(site) -> list[tuple[str, answers.Mark]]:
    """[(page, mark)] of every page of a built site."""
    found = []
    for path in sorted(site.rglob("*.html")):
        page = str(path.relative_to(site))
        for _, value in ELEMENT.findall(path.read_text()):
            found += [(page, m) for m in answers.parse_marks(value)]
    return found


def conflicts(found: list[tuple[str, answers.Mark]]) -> list[str]:
    """Each comparison two pages state differently: other words for one question, or another
    interval for any question."""
    out = []
    words: dict = {}
    intervals: dict = {}
    for page, m in found:
        words.setdefault(m.comparison + (m.question,), {}).setdefault(m.words, set()).add(page)
        if m.interval:
            intervals.setdefault(m.comparison, {}).setdefault(m.interval, set()).add(page)
    for key, said in sorted(words.items()):
        if len(said) > 1:
            out.append(f"{key}: the pages disagree: " + "; ".join(
                f"{w!r} on {', '.join(sorted(p))}" for w, p in sorted(said.items())))
    for key, said in sorted(intervals.items()):
        if len(said) > 1:
            out.append(f"{key}: two intervals: " + "; ".join(
                f"[{i}] on {', '.join(sorted(p))}" for i, p in sorted(said.items())))
    return out


def test_the_pages_mark_what_they_answer(built):
    found = statements(built)
    pages = {p for p, _ in found}
    questions = {m.question.split(":")[0] for _, m in found}
    assert {answers.SETTING, answers.ADVICE, answers.CLAIM} <= questions
    for page in ("claims/index.html", "topics/doublewrite/index.html",
                 "check-your-server/index.html"):
        assert page in pages, page


def test_every_page_says_the_same_of_each_comparison(built):
    assert conflicts(statements(built)) == []


def test_a_planted_conflict_is_found(built, tmp_path):
    """A copy of a topic page made to say other words of a comparison, and another interval
    of one, than the page as built says."""
    site = tmp_path / "site"
    page = built / "topics" / "doublewrite" / "index.html"
    (site / "built").mkdir(parents=True)
    shutil.copy(page, site / "built" / "index.html")
    text = page.read_text()
    words = re.sub(r'(data-answer="[^"]*\|setting\|)([^|"]*)\|', r"\1a planted word|", text,
                   count=1)
    interval = re.sub(r'(data-answer="[^"]*\|setting\|[^|"]*\|)([0-9.]+),', r"\g<1>0.5,",
                      text, count=1)
    assert words != text and interval != text, "no setting mark on the doublewrite page"
    (site / "words.html").write_text(words)
    (site / "interval.html").write_text(interval)
    found = conflicts(statements(site))
    assert any("the pages disagree" in line and "a planted word" in line for line in found)
    assert any("two intervals" in line and "[0.5," in line for line in found)
