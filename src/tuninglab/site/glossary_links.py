"""Each page's first use of a term of the lab's own ("regime", "sitting", "host class", "duet",
"source in doubt") links to its definition on the Method page (docs/method.md): a reader meets
it in a caption or a table and is one click from what it means. Only running text is touched
(table cells included, where most of these words stand): never inside a link, code, a heading,
a script, a control (summary, label, button) or the Method page itself; and only the first use
on a page, so a page does not turn blue."""

import posixpath
import re

METHOD = "method/"

# A term's spellings (a regular expression, matched case-insensitively at word boundaries, each
# space in it any run of whitespace: a paragraph's source lines may break between "host" and
# "class") and its entry's anchor (the heading's id, as the toc extension makes it).
TERMS = (
    (r"switchbacks?", "switchback"),
    (r"restart design", "restart-design"),
    (r"duets?", "duet"),
    # A profile's name, not the everyday word ("a quick recovery"): "the quick profile", "a
    # quick run", and the counts and times the pages give ("(1 quick)", "quick: 4m measured").
    (r"quick (?:profiles?|runs?|results?)|(?<=\d\s)quick(?=\))|quick(?=: )", "quick-profile"),
    (r"variants?", "variant"),
    (r"regimes?", "regime"),
    (r"pooled ratios?|pooled", "pooled-ratio"),
    (r"evidence sets?", "evidence-set"),
    (r"host class(?:es)?", "host-class"),
    (r"between-sitting spread", "between-sitting-spread"),
    (r"sittings?", "sitting"),
    (r"older evidence", "older-evidence"),
    (r"smallest effect", "smallest-effect"),
    (r"equivalent(?= within)", "equivalent"),   # the verdict, not the everyday word
    (r"too noisy to tell", "too-noisy-to-tell"),
    (r"sources? in doubt", "source-in-doubt"),
    (r"costs? per transaction", "cost-per-transaction"),
    (r"memory model", "memory-model"),
    (r"lab VM", "lab-vm"),
    (r"TCG", "tcg-and-kvm"),
    (r"stop rule", "stop-rule"),
)
_PATTERNS = [(re.compile(r"\b(?:" + p.replace(" ", r"\s+") + r")\b", re.IGNORECASE), a)
             for p, a in TERMS]

# Elements whose text is never linked; only these are tracked, so other markup needs no care.
_SKIP = {"a", "code", "pre", "kbd", "script", "style", "textarea", "svg", "summary", "label",
         "button", "h1", "h2", "h3", "h4", "h5", "h6", "title"}
_TAG = re.compile(r"(<[^>]*>)")
_NAME = re.compile(r"<\s*(/?)\s*([a-zA-Z][a-zA-Z0-9]*)")


def linked(html: str, page_url: str) -> str:
    """The page's HTML with the first use of each term linked to its definition."""
    if page_url.rstrip("/") == METHOD.rstrip("/"):
        return html
    base = posixpath.relpath(METHOD, page_url or ".") if page_url else METHOD.rstrip("/")
    left = list(_PATTERNS)
    open_skips: list[str] = []
    out = []
    for part in _TAG.split(html):
        if part.startswith("<"):
            _track(part, open_skips)
        elif part and left and not open_skips:
            part = _link_first(part, left, base)
        out.append(part)
    return "".join(out)


def _track(tag: str, open_skips: list[str]) -> None:
    found = _NAME.match(tag)
    if not found or found.group(2).lower() not in _SKIP or tag.endswith("/>"):
        return
    name = found.group(2).lower()
    if not found.group(1):
        open_skips.append(name)
    elif name in open_skips:   # close the innermost of that name (and any left open in it)
        del open_skips[len(open_skips) - 1 - open_skips[::-1].index(name):]


def _link_first(text: str, left: list, base: str) -> str:
    """The text with each term still unlinked on the page linked at its first use here,
    removing those from `left`; where two would overlap, the one that starts first (at the
    same start, the longer) is linked and the other is looked for after it."""
    out, pos = [], 0
    while True:
        found = [(m.start(), -m.end(), m, term) for term in left
                 for m in [term[0].search(text, pos)] if m]
        if not found:
            break
        _, _, m, term = min(found, key=lambda f: f[:2])
        out.append(text[pos:m.start()])
        out.append(f'<a class="tl-term" href="{base}/#{term[1]}">{m.group(0)}</a>')
        pos = m.end()
        left.remove(term)
    out.append(text[pos:])
    return "".join(out)
