"""The home page's "what should I change first?" (```topics```): first a glance, topics x
servers, each cell the largest effect measured today on that server (the first row of the
topic page's today table), in its verdict's colour; then, a tab per server, per topic its
advice, the comparison it rests on, today's pooled ratio and whether the advice holds
(advice.py), ranked by the effect measured today. A bad topic page or a source result the
claims map leaves out is an error in the page, so the strict build fails on it."""

import html
import re
from collections import Counter

from tuninglab.errors import UserError
from tuninglab.evidence import advice, servers
from tuninglab.evidence.citations import times_text
from tuninglab.evidence.topic_pages import topic_pages
from tuninglab.results.metrics import METRICS
from tuninglab.site import today_table
from tuninglab.site.failure import fence_failure
from tuninglab.site.tabs import server_tabs
from tuninglab.site.verdict_tables import check_complete

e = html.escape


PARTS = ("glance", "advice")


def topics_fence(source, language, css_class, options, md, **kwargs) -> str:
    """The home page: the glance (topics x servers, the largest effect measured today), then
    per topic its advice, the comparison it rests on, today's pooled ratio and whether the
    advice holds, ranked by the effect measured today (advice.ranked), one tab per server
    (servers.py), the reference open. `part = "glance"` or `part = "advice"` gives one of the
    two, so that the page can put its explanation between them."""
    try:
        part = _part(source)
        check_complete()
        pages = topic_pages()
        ranked = {server: advice.ranked(pages, server) for server in servers.SHOWN}
        # Out of the search index: the topic pages, not this summary of them, answer a
        # search. The mark is on a <section>: the theme's search parser tells elements apart
        # by tag only, so the first inner </div> would end a <div>'s exclusion.
        out = []
        if part in ("", "glance"):
            out.append('<section data-search-exclude>' + glance(ranked) + "</section>")
        if part in ("", "advice"):
            tables = [(server, _server_table(r)) for server, r in ranked.items()]
            out.append('<div class="tl-topics"><section data-search-exclude>'
                       + server_tabs(tables, "tl-server") + HOME_CAPTION + "</section></div>")
    except (ValueError, KeyError, UserError) as exc:
        return fence_failure(f"topics fence: {exc}", source)
    return "".join(out)


def _part(source: str) -> str:
    """The part a fence asks for ("" for both)."""
    if not source.strip():
        return ""
    key, _, value = source.strip().partition("=")
    part = value.strip().strip('"')
    if key.strip() != "part" or part not in PARTS:
        raise ValueError(f'expected part = "glance" or part = "advice", got {source.strip()!r}')
    return part


def glance(ranked: dict) -> str:
    """Every topic and server on one screen: a row per topic, a cell per server with the
    largest effect measured today there, in its verdict's colour, each linking to the topic's
    page. Topics whose reference server found the largest answer come first."""
    metas = [meta for meta, _ in ranked[servers.REFERENCE]]
    tops = {meta["slug"]: {server: _top(meta["slug"], server) for server in ranked}
            for meta in metas}
    metas.sort(key=lambda meta: _order(tops[meta["slug"]][servers.REFERENCE]))
    heads = "".join(f"<th>{e(servers.label(server))}</th>" for server in ranked)
    rows = []
    for meta in metas:
        cells = "".join(_glance_cell(tops[meta["slug"]][server], meta) for server in ranked)
        rows.append(f'<tr><td><a href="topics/{meta["slug"]}/">{e(meta["title"])}</a></td>'
                    f"{cells}</tr>")
    return (f'<div class="tl-glance"><table><thead><tr><th>Topic</th>{heads}</tr></thead>'
            f'<tbody>{"".join(rows)}</tbody></table></div>')


def _top(topic: str, server: str):
    """The topic's largest effect measured on the server; else why there is none: the guide
    cannot measure it there (the reason), or not yet (None)."""
    found = today_table.effects(topic, server)
    measured = [x for x in found if x.comparison is not None]
    if measured:
        return measured[0]
    if found and not any(x.command for x in found):
        return found[0].cannot
    return None


def _order(x) -> tuple:
    return x.rank if isinstance(x, today_table.Effect) else (4, 0.0)


def _glance_cell(x, meta: dict) -> str:
    """The effect, "btrfs against ext4: x0.28 slower", in its verdict's colour; a lab VM's
    by the cost that carries over; else why there is none."""
    link = f'<a href="topics/{meta["slug"]}/">'
    if not isinstance(x, today_table.Effect):   # why there is none: not yet, or not there
        said = "not measured yet" if x is None else "not on this server"
        return f'<td title="{e(x or said)}">{link}<span class="tl-v">{said}</span></a></td>'
    what = f"{x.point} against {x.baseline}: "
    if x.ratio is not None and x.ratio.verdict_kind in today_table.ANSWERS:
        kind, text = x.ratio.verdict_kind, x.ratio.text(mark="x", with_verdict=False)
        said = x.ratio.verdict
    elif x.cost:
        metric, ratio = x.cost
        kind, said = ratio.verdict_kind, ratio.verdict
        name = METRICS[metric].short or METRICS[metric].axis or METRICS[metric].label
        text = f"{name} {ratio.text(mark='x', with_verdict=False)}"
    elif x.ratio is not None:   # too noisy to tell: the interval says how far from an answer
        kind, said = x.ratio.verdict_kind, x.ratio.verdict
        text = x.ratio.text(mark="x", with_verdict=False)
    else:   # regime not reached, a lab VM's throughput: why, on the topic's page
        kind = said = x.comparison.kind
        text = ""
    slug = re.sub(r"[^a-z]+", "-", kind)
    return (f'<td title="{e(what + said)}">{link}{e(what + text)} '
            f'<span class="tl-v tl-v-{slug}">{e(said)}</span></a></td>')


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
