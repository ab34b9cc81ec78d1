"""A topic page's evidence folded under its answers. What a topic page says before its first
second-level heading (the advice, today's effects per server, the sources' claims with their
verdicts, how it works) is what a reader decides on; each section from there (what the sources
measured, what was measured today, its charts and method) keeps its heading in view and folds
its body into a closed <details> under it, whose summary says how many charts it holds (and
"Show" or "Hide", from the style sheet, so that the search index holds neither). The
headings stay outside the folds so that the table of contents still leads to each section (a
browser opens the fold around a subsection it is sent to) and the search index still files each
section's text under its heading (a heading inside a summary would hand the text back to the
page's top). A chart drawn folded is fitted when its section opens (folded-charts.js)."""

import re

_H2 = re.compile(r"<h2\b[^>]*>.*?</h2>", re.S)
# The footnotes Python-Markdown puts at the end of the page belong to the whole page (the
# advice and the verdicts cite them), so they stay out of the last fold.
_FOOTNOTES = re.compile(r'<div class="footnote">')
_CHART = 'class="tl-chart"'


def folded(html: str) -> str:
    """The page's HTML with each second-level section in a closed details, the text before the
    first one and the footnotes left open."""
    heads = list(_H2.finditer(html))
    if not heads:
        return html
    notes = _FOOTNOTES.search(html, heads[-1].end())
    end = notes.start() if notes else len(html)
    parts = [html[:heads[0].start()]]
    for head, after in zip(heads, heads[1:] + [None]):
        body = html[head.end():after.start() if after else end]
        parts.append(_fold(head.group(0), body))
    parts.append(html[end:])
    return "".join(parts)


def _fold(heading: str, body: str) -> str:
    charts = body.count(_CHART)
    what = f" ({charts} chart{'s' if charts != 1 else ''})" if charts else ""
    return (f'{heading}\n<details class="tl-evidence"><summary>this section{what}</summary>'
            f"{body}</details>\n")
