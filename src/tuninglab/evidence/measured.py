"""Whether a recipe variant is measured on a server, the one answer every page states (issue
60): the home page's glance and tabs, a topic page's tabs, the claims page and the Check-your-
server examples each mark what they say with `attr()`, so that a test reads every built page
and fails on two that disagree, or on one that disagrees with the data
(tests/site/test_pages_agree.py). Measured means the variant has an evidence set on the server
(evidence/sets.py): some result there, whatever its verdict."""

import html

from tuninglab.evidence.sets import evidence_sets

ATTR = "data-measured"


def is_measured(recipe: str, variant: str, server: str) -> bool:
    return any(s.server == server for s in evidence_sets(recipe, variant))


def attr(recipe: str, variant: str, server: str, measured: bool) -> str:
    """The mark of what a page's element says: ` data-measured="server|recipe|variant|yes"`."""
    return attr_all([(recipe, variant, server, measured)])


def attr_all(marks) -> str:
    """One element's marks, each (recipe, variant, server, measured), in one attribute."""
    values = sorted({"|".join((server, recipe, variant, "yes" if said else "no"))
                     for recipe, variant, server, said in marks})
    return f' {ATTR}="{html.escape(";".join(values))}"' if values else ""


def parse(value: str) -> list[tuple[tuple[str, str, str], bool]]:
    """[((server, recipe, variant), measured)] of an attribute's value."""
    out = []
    for mark in html.unescape(value).split(";"):
        server, recipe, variant, said = mark.split("|")
        out.append(((server, recipe, variant), said == "yes"))
    return out
