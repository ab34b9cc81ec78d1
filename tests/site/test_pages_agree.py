"""Every page of the built guide says the same of what is measured on each server (issue 60,
item 2): the home page's glance and tabs, each topic page's tabs, the claims page and the
Check-your-server examples mark what they say (evidence/measured.py), and a topic's recipe
variant is measured on a server on all of them or on none, as the data says."""

import re
import shutil

import pytest

from tuninglab.evidence import measured

pytestmark = pytest.mark.integration

ELEMENT = re.compile(r'<(td|tr|p)\b[^>]*\bdata-measured="([^"]*)"[^>]*>(.*?)</\1>', re.S)
# A pooled ratio with its interval, as every table prints one: "x1.18 [1.10, 1.27]".
RATIO = re.compile(r"x\d+\.\d+ \[\d")


def marks(site) -> dict:
    """{(server, recipe, variant): [(page, measured, the element's text)]} of every page."""
    found: dict = {}
    for path in sorted(site.rglob("*.html")):
        page = str(path.relative_to(site))
        for _, value, inner in ELEMENT.findall(path.read_text()):
            for key, said in measured.parse(value):
                found.setdefault(key, []).append((page, said, inner))
    return found


def contradictions(found: dict) -> list[str]:
    """Each key two pages disagree on, or a page and the data, or whose text says a ratio
    where its mark says nothing is measured."""
    out = []
    for key, said in sorted(found.items()):
        truth = measured.is_measured(key[1], key[2], key[0])
        for page, yes, inner in said:
            if yes != truth:
                out.append(f"{page}: {key} {'measured' if yes else 'not measured'}, but the "
                           f"data says {'it is' if truth else 'it is not'}")
            if not yes and RATIO.search(re.sub(r"<[^>]+>", "", inner)):
                out.append(f"{page}: {key} marked not measured beside a ratio")
        if len({yes for _, yes, _ in said}) > 1:
            pages = sorted({f"{p} ({'yes' if y else 'no'})" for p, y, _ in said})
            out.append(f"{key}: the pages disagree: {', '.join(pages)}")
    return out


def test_every_page_says_what_it_counts_as_measured(built):
    pages = {p for said in marks(built).values() for p, _, _ in said}
    for page in ("index.html", "claims/index.html", "check-your-server/index.html",
                 "topics/doublewrite/index.html"):
        assert page in pages, page
    assert sum(p.startswith("topics/") for p in pages) == len(list(
        (built / "topics").glob("*/index.html")))


def test_every_page_agrees_on_what_is_measured_on_each_server(built):
    assert contradictions(marks(built)) == []


def test_a_planted_contradiction_is_found(built, tmp_path):
    """One page made to say "not measured" where the others (and the data) say measured."""
    site = tmp_path / "site"
    for page in ("index.html", "check-your-server/index.html"):
        (site / page).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(built / page, site / page)
    check = site / "check-your-server" / "index.html"
    text = check.read_text()
    planted = re.sub(r'(data-measured="[^"|]*\|doublewrite\|\|)yes"', r'\1no"', text, count=1)
    assert planted != text, "no measured doublewrite row on Check your server"
    check.write_text(planted)
    found = contradictions(marks(site))
    assert any("check-your-server" in line and "doublewrite" in line for line in found)
    assert any("the pages disagree" in line for line in found)
