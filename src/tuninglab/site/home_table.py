"""The home page's "what should I change first?" (```topics```): first a glance, topics x
servers, each row a topic's advice in a few words and each cell whether today's evidence on
that server holds it up, on the comparison it rests on, with what a faster setting risks;
then, a tab per server, per topic its advice in full, the comparison it rests on, today's
pooled ratio and whether the advice holds (advice.py), ranked by the effect measured today.
Both read the same verdicts (answers.answer), so the glance and the tabs never disagree. A bad
topic page or a source result the claims map leaves out is an error in the page, so the
strict build fails on it."""

import html
import re
from collections import Counter

from tuninglab.errors import UserError
from tuninglab.evidence import answers, measured, risks, servers, setting_words
from tuninglab.evidence.citations import times_text
from tuninglab.evidence.topic_pages import topic_pages
from tuninglab.recipes.load import load
from tuninglab.results.metrics import HIGHER, LOWER, METRICS, ratio_decimals
from tuninglab.site.failure import fence_failure
from tuninglab.site.tabs import server_tabs
from tuninglab.site.verdict_tables import check_complete

e = html.escape


PARTS = ("glance", "advice")


def topics_fence(source, language, css_class, options, md, **kwargs) -> str:
    """The home page: the glance (topics x servers, whether the advice holds), then
    per topic its advice, the comparison it rests on, today's pooled ratio and whether the
    advice holds, ranked by the effect measured today (answers.ranked), one tab per server
    (servers.py), the reference open. `part = "glance"` or `part = "advice"` gives one of the
    two, so that the page can put its explanation between them."""
    try:
        part = _part(source)
        check_complete()
        pages = topic_pages()
        ranked = {server: [(a.meta, a.verdict) for a in answers.ranked(server, pages)]
                  for server in servers.SHOWN}
        # Out of the search index: the topic pages, not this summary of them, answer a
        # search. The mark is on a <section>: the theme's search parser tells elements apart
        # by tag only, so the first inner </div> would end a <div>'s exclusion.
        out = []
        if part in ("", "glance"):
            out.append('<section data-search-exclude>' + glance(ranked) + "</section>")
        if part in ("", "advice"):
            tables = [(server, _server_table(r, server)) for server, r in ranked.items()]
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
    """Every topic and server on one screen, as advice: a row per topic with its advice in a
    few words (the page's `glance:`), the comparison it rests on (the setting spelled out, the
    metric with its unit and which way is better) and what that setting gives up for its
    speed, in words (risks.py); then a cell per server with whether today's evidence there
    holds the advice up, the pooled ratio, and the risk's kind beside any answer. Each links to
    the topic's page. Topics with the largest answers on the reference server come first
    (answers.ranked). Under it, the host class most cells are measured on."""
    by_server = {server: {meta["slug"]: v for meta, v in r} for server, r in ranked.items()}
    heads = "".join(f"<th>{e(servers.label(server))}</th>" for server in ranked)
    common = Counter(_class(v) for r in ranked.values() for _, v in r if _class(v))
    usual = common.most_common(1)[0][0] if common else ""
    rows = []
    for meta, v in ranked[servers.REFERENCE]:
        compared, risked, kind = _rests_on(meta, v.rests_on)
        cells = "".join(_glance_cell(by_server[server][meta["slug"]], meta, server, usual,
                                     kind) for server in ranked)
        rows.append(f'<tr><td data-label="Topic"><a href="topics/{meta["slug"]}/">'
                    f'{_breakable(meta["title"])}</a><br>{e(answers.glance_advice(meta))}'
                    f"{compared}{risked}</td>{cells}</tr>")
    where = (f'<p class="tl-caption">Measured on {e(usual)} unless a cell names another '
             f'<a href="method/#host-class">host class</a>. A row names the comparison its '
             f"advice rests on and what its faster setting risks; a cell, whether the advice "
             f"holds on that server, with the ratio pooled over every comparable result and "
             f"its 95% interval.</p>" if usual else "")
    return (f'<div class="tl-glance"><table><thead><tr><th>Topic: what to do</th>{heads}</tr>'
            f'</thead><tbody>{"".join(rows)}</tbody></table>{where}</div>')


def _rests_on(meta: dict, r) -> tuple[str, str, str]:
    """(the comparison line, the risk line, the risk's kind) of a topic's advice, as HTML;
    empty for advice that rests on no comparison."""
    if r is None:
        return "", "", ""
    recipe = load(r.recipe, variant=r.variant)
    setting = recipe.sweep.setting
    what = setting_words.comparison(setting, r.point, r.baseline)
    if r.variant:
        what += f" ({r.variant})"
    metric = METRICS[r.metric or recipe.workload.metric]
    better = {HIGHER: " (higher is better)", LOWER: " (lower is better)"}.get(metric.direction, "")
    name = metric.axis or metric.short or f"{metric.label} ({metric.unit})"
    line = f'<br><span class="tl-why">On {_breakable(what)}: {e(name + better)}</span>'
    kind, risk = risks.risked(setting, r.point)   # a gain that costs durability is never bare
    said = f'<br><span class="tl-risk">At {e(r.point)}: {e(risk)}</span>' if risk else ""
    return line, said, kind


def _glance_cell(v, meta: dict, server: str, usual: str, risk_kind: str = "") -> str:
    """Whether the advice holds on this server, with the pooled ratio and, where the setting
    compared gives up durability or safety, its kind; else why there is no answer: not
    measured yet, or not on this server."""
    link = f'<a href="topics/{meta["slug"]}/">'
    label = e(servers.label(server))
    r = v.rests_on
    if r is None or v.comparison is None:
        cannot = r is not None and servers.cannot_measure(r.recipe, r.variant, server)
        said = "not on this server" if cannot else \
            "not measured yet" if r is not None else "rests on no measurement"
        mark = measured.attr(r.recipe, r.variant, server, False) if r else ""
        return (f'<td data-label="{label}" title="{e(v.why or said)}"{mark}>{link}'
                f'<span class="tl-v">{e(said)}</span></a></td>')
    ratio = f" {v.ratio.text(ratio_decimals(v.ratio.ratio, 2), mark='x', with_verdict=False)}" \
        if v.ratio else ""
    host = v.comparison.evidence.host_class
    elsewhere = "" if _class(v) == usual else "; in the lab VM" if host.lab else f"; on {host.short}"
    kind = f' <span class="tl-risk">({e(risk_kind)})</span>' if risk_kind else ""
    slug = re.sub(r"[^a-z]+", "-", v.kind)
    title = f"{v.kind}{ratio}" + (f" ({v.why})" if v.why else "")
    mark = measured.attr(r.recipe, r.variant, server, True)
    return (f'<td data-label="{label}" title="{e(title)}"{mark}>{link}'
            f'<span class="tl-v tl-v-{slug}">{e(v.kind)}</span>{e(ratio)}{e(elsewhere)}{kind}'
            "</a></td>")


def _class(v) -> str:
    """The host class an advice verdict rests on ("" if none)."""
    c = v.comparison
    return c.evidence.host_class.name if c else ""


def _breakable(text: str) -> str:
    """Escaped, with a line break allowed after each underscore and "=": a phone's narrow
    cell breaks "O_DIRECT_NO_FSYNC" between its words, never inside one."""
    return re.sub(r"([_=])", r"\1<wbr>", e(text))


def _server_table(ranked: list, server: str) -> str:
    """One server's table, with the host class most rows are measured on named under it."""
    common = Counter(_where(v) for _, v in ranked if _where(v)).most_common(1)
    usual = common[0][0] if common else ""
    rows = [_topic_row(meta, v, server, usual) for meta, v in ranked]
    said = (f'<p class="tl-caption">Unless a row names another, "Today" is measured on '
            f'{e(usual)}.</p>') if usual else ""
    return ('<table><thead><tr><th>Topic</th><th>Advice</th><th>Today</th>'
            '<th>Does it hold?</th></tr></thead><tbody>' + "".join(rows) + "</tbody></table>"
            + said)


def _mark(v, server: str) -> str:
    """What a row says is measured on the server (measured.py): its advice's comparison."""
    r = v.rests_on
    return measured.attr(r.recipe, r.variant, server, v.comparison is not None) if r else ""


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


def _topic_row(meta: dict, v, server: str, usual: str = "") -> str:
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
            f'{e(meta["advice"])}{rests}</td><td data-label="Today"{_mark(v, server)}>'
            f'{today}</td>'
            f'<td data-label="Does it hold?"><strong class="tl-v tl-v-{slug}">{e(v.kind)}'
            f'</strong>{why}</td></tr>')
