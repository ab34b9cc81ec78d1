"""The home page's "what should I change first?" (```topics```): per topic, its advice, the
comparison it rests on, today's pooled ratio and whether the advice holds (advice.py), ranked by
the effect measured today. A bad topic page or a source result the claims map leaves out is an
error in the page, so the strict build fails on it."""

import html
import re
from collections import Counter

from tuninglab.errors import UserError
from tuninglab.site import advice, servers
from tuninglab.site.fence import _error
from tuninglab.site.tabs import server_tabs
from tuninglab.site.verdict_tables import _check_complete, times_text, topic_pages

e = html.escape


def topics_fence(source, language, css_class, options, md, **kwargs) -> str:
    """The home page: per topic, its advice, the comparison it rests on, today's pooled ratio
    and whether the advice holds; ranked by the effect measured today (advice.ranked). One tab
    per server (servers.py), the reference open: the reader switches server in one click."""
    try:
        _check_complete()
        pages = topic_pages()
        ranked = {server: advice.ranked(pages, server) for server in servers.SHOWN}
        tables = [(server, _server_table(r)) for server, r in ranked.items()]
    except (ValueError, KeyError, UserError) as exc:
        return _error(f"topics fence: {exc}", source)
    # Out of the search index: the topic pages, not this summary of them, answer a search.
    # The mark is on a <section>: the theme's search parser tells elements apart by tag only,
    # so the first inner </div> would end a <div>'s exclusion.
    return ('<section data-search-exclude>' + glance(ranked) + "</section>"
            '<div class="tl-topics"><section data-search-exclude>'
            + server_tabs(tables, "tl-server") + HOME_CAPTION + "</section></div>")


def glance(ranked: dict) -> str:
    """Every topic and server on one screen: a row per topic (in the reference server's
    order), a cell per server with today's ratio and whether the advice holds, in its colour,
    each linking to the topic's page."""
    by_topic = {server: {meta["slug"]: v for meta, v in r} for server, r in ranked.items()}
    heads = "".join(f"<th>{e(servers.label(server))}</th>" for server in ranked)
    rows = []
    for meta, _ in ranked[servers.REFERENCE]:
        cells = "".join(_glance_cell(by_topic[server][meta["slug"]], meta, server)
                        for server in ranked)
        rows.append(f'<tr><td><a href="topics/{meta["slug"]}/">{e(meta["title"])}</a></td>'
                    f"{cells}</tr>")
    return (f'<div class="tl-glance"><table><thead><tr><th>Topic</th>{heads}</tr></thead>'
            f'<tbody>{"".join(rows)}</tbody></table></div>')


def _glance_cell(v, meta: dict, server: str) -> str:
    slug = re.sub(r"[^a-z]+", "-", v.kind)
    ratio = f"x{v.ratio.ratio:.2f} " if v.ratio is not None else ""
    said = v.why or (times_text(v.ratio) if v.ratio is not None else v.kind)
    return (f'<td title="{e(said)}"><a href="topics/{meta["slug"]}/">{e(ratio)}'
            f'<span class="tl-v tl-v-{slug}">{e(v.kind)}</span></a></td>')


def _server_table(ranked: list) -> str:
    """One server's table, with the host class most rows are measured on named under it."""
    common = Counter(_where(v) for _, v in ranked if _where(v)).most_common(1)
    usual = common[0][0] if common else ""
    rows = [_topic_row(meta, v, usual) for meta, v in ranked]
    said = (f'<p class="tl-caption">Unless a row names another, "Today" is measured on '
            f'{e(usual)}.</p>') if usual else ""
    return ('<table><thead><tr><th>Topic</th><th>Advice</th><th>Today</th>'
            '<th>Does it hold?</th></tr></thead><tbody>' + "".join(rows) + "</tbody></table>"
            + said)


def _where(v) -> str:
    """The host class and server of the comparison an advice verdict rests on ("" if none)."""
    c = v.comparison
    return f"{c.evidence.host_class.name}, {c.evidence.server}" if c else ""


HOME_CAPTION = (
    '<p class="tl-caption">Each tab is one server. Topics are ordered by the effect measured '
    'today on it, largest first. "Today" is the ratio the advice rests on, pooled over every '
    'comparable result of the host class shown first (that server), with its 95% interval. "Holds": that interval lies '
    'inside the range the advice names; "does not hold": wholly outside it; "cannot tell '
    'here": anything else, with the reason. A lab VM\'s throughput is never a verdict.</p>')


def _topic_row(meta: dict, v, usual: str = "") -> str:
    link = f'<a href="topics/{meta["slug"]}/">{e(meta["title"])}</a>'
    rests = (f'<br><span class="tl-why">Rests on: {e(v.range_text)}</span>'
             if v.rests_on else "")
    today = "-"
    if v.ratio is not None:
        counted = f"{v.pooled.k} result{'s' * (v.pooled.k != 1)}, {v.pooled.sittings} " \
            f"sitting{'s' * (v.pooled.sittings != 1)}"
        where = "" if _where(v) == usual else f"; on {_where(v)}"
        today = (f"{e(times_text(v.ratio))}<br><span class=\"tl-why\">{e(counted)}"
                 f"{e(where)}</span>")
    slug = re.sub(r"[^a-z]+", "-", v.kind)
    why = f'<br><span class="tl-why">{e(v.why)}</span>' if v.why else ""
    return (f'<tr><td data-label="Topic">{link}</td><td data-label="Advice">'
            f'{e(meta["advice"])}{rests}</td><td data-label="Today">{today}</td>'
            f'<td data-label="Does it hold?"><strong class="tl-v tl-v-{slug}">{e(v.kind)}'
            f'</strong>{why}</td></tr>')
