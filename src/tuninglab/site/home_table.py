"""The home page's table (```topics```): what a DBA should check first. A row per topic, in
check_order's order: the topic, its advice in a few words (and, for a setting that trades
durability or safety, what the other value risks), then a cell per server saying whether
today's evidence there holds the advice up, with the interval of the comparison it rests on,
each linking to the topic's page, which carries the evidence. The answers are the answer
index's (evidence/answers.py): nothing here judges. A bad topic page or a source result the
claims map leaves out is an error in the page, so the strict build fails on it."""

import html
import re
from collections import Counter

from tuninglab.errors import UserError
from tuninglab.evidence import answers, measured, servers, setting_words
from tuninglab.evidence.answers import Answer
from tuninglab.evidence.host_class import in_words
from tuninglab.evidence.topic_pages import topic_pages
from tuninglab.results.metrics import METRICS, axis_title, ratio_decimals
from tuninglab.site.failure import fence_failure
from tuninglab.site.verdict_tables import check_complete

e = html.escape

# A topic page's `check_first:` values: "default" marks a server default that is wrong for
# small servers, a setting to check before the ones that merely measured large.
CHECK_FIRST = ("default",)


def topics_fence(source, language, css_class, options, md, **kwargs) -> str:
    """The home page's table: every topic in the order to check them (check_order), a column
    per server (servers.py), each cell the advice's verdict on that server (answers.py)."""
    try:
        if source.strip():
            raise ValueError(f"the topics fence takes no options, got {source.strip()!r}")
        check_complete()
        pages = topic_pages()
        by_server = {server: {a.slug: a for a in answers.answers(server, pages)}
                     for server in servers.SHOWN}
        order = check_order(answers.ranked(servers.REFERENCE, pages))
        # Out of the search index: the topic pages, not this summary of them, answer a
        # search. The mark is on a <section>: the theme's search parser tells elements apart
        # by tag only, so the first inner </div> would end a <div>'s exclusion.
        return '<section data-search-exclude>' + table(order, by_server) + "</section>"
    except (ValueError, KeyError, UserError) as exc:
        return fence_failure(f"topics fence: {exc}", source)


def check_order(ranked: list[Answer]) -> list[Answer]:
    """The order a DBA should check the topics in: first the settings that lose data (the
    setting the advice compares trades durability or safety: `risk_kind`), then the server
    defaults that are wrong for small servers (the page's front matter says
    `check_first: "default"`), then every other topic by the effect measured. `ranked` comes
    in answers.ranked's order (largest effect first, unanswered last), which each group keeps.
    A `check_first:` other than "default" is a ValueError naming the page."""
    def group(a: Answer) -> int:
        said = a.meta.get("check_first")
        if said is not None and said not in CHECK_FIRST:
            raise ValueError(f"docs/topics/{a.slug}.md: check_first: expected "
                             f"{' or '.join(map(repr, CHECK_FIRST))}, got {said!r}")
        return 0 if a.risk_kind else 1 if said is not None else 2
    return sorted(ranked, key=group)   # sorted() keeps ranked's order within a group


def table(order: list[Answer], by_server: dict) -> str:
    """The table, a question over the server columns, and under it the machine most cells
    were measured on, in plain words."""
    usual = _usual_class(by_server)
    heads = "".join(f"<th>{e(servers.label(server))}</th>" for server in by_server)
    rows = []
    for a in order:
        row = [by_server[server][a.slug] for server in by_server]
        rows.append(f'<tr><td data-label="Topic">{_topic(a)}</td>{_cells(row, usual)}</tr>')
    return (f'<div class="tl-glance"><table><thead><tr><th rowspan="2">Topic: what to do</th>'
            f'<th colspan="{len(by_server)}">Does the advice hold? Measured ratio and its 95% '
            f'interval</th></tr><tr>{heads}</tr></thead><tbody>{"".join(rows)}</tbody>'
            f"</table>{_measured_on(usual, by_server)}</div>")


def _topic(a: Answer) -> str:
    """The topic's link and its advice in a few words; for a setting that trades durability
    or safety, "keep it" and what the other value risks, in the same row as any gain."""
    said = (f'<a href="topics/{a.slug}/"><strong>{_breakable(a.title)}</strong></a><br>'
            f"{e(a.glance)}")
    if a.rests_on is not None and a.rests_on.metric:   # a cost, not the throughput: say so
        said += f'<br><span class="tl-why">Judged on {e(METRICS[a.metric].label)}</span>'
    if a.risk_kind and a.rests_on is not None:
        said += (f'<br><span class="tl-risk">Keep it: <code>{_breakable(a.rests_on.point)}'
                 f"</code> risks {e(a.risk)}.</span>")
    return said


def _cells(row: list[Answer], usual: str) -> str:
    """A cell per server; one cell across them for advice that rests on no measurement."""
    first = row[0]
    if first.rests_on is None:
        return (f'<td colspan="{len(row)}" data-label="Every server" '
                f'title="{e(first.verdict.why)}">'
                f'<a href="topics/{first.slug}/"><span class="tl-v">rests on no measurement'
                f"</span></a></td>")
    return "".join(_cell(a, usual) for a in row)


def _cell(a: Answer, usual: str) -> str:
    """Whether the advice holds on this server and the interval it rests on ("holds · x1.22
    [1.10, 1.35]"), else why there is no answer; the comparison, its metric and what it
    pools in the hover. Marked with what it says (measured.py, answers.advice_mark)."""
    r, c = a.rests_on, a.comparison
    label = servers.label(a.server)
    link = f'<a href="topics/{a.slug}/">'
    if c is None:
        said = "not on this server" if servers.cannot_measure(r.recipe, r.variant, a.server) \
            else "not measured yet"
        return (f'<td data-label="{e(label)}" title="{e(a.verdict.why or said)}"'
                f'{measured.attr(r.recipe, r.variant, a.server, False)}>{link}'
                f'<span class="tl-v">{e(said)}</span></a></td>')
    interval = a.setting.text(ratio_decimals(a.setting.ratio, 2), mark="x",
                              with_verdict=False) if a.setting else ""
    where = _elsewhere(c.evidence.host_class, usual)
    slug = re.sub(r"[^a-z]+", "-", a.kind)
    shown = f" · {e(interval)}" if interval else ""
    if where:
        shown += f' <span class="tl-why">({e(where)})</span>'
    return (f'<td data-label="{e(label)}" title="{e(_hover(a, interval))}"'
            f"{measured.attr(r.recipe, r.variant, a.server, True)}{answers.advice_mark(a)}>"
            f'{link}<span class="tl-v tl-v-{slug}">{e(a.kind)}</span>{shown}</a></td>')


def _hover(a: Answer, interval: str) -> str:
    """"Does the advice hold on MariaDB 11.8? holds. innodb_flush_method O_DIRECT against
    fsync, throughput (transactions/s): x1.22 [1.10, 1.35], 1 result from 1 machine."""
    r = a.rests_on
    what = f"{setting_words.comparison(a.swept, r.point, r.baseline)}, {axis_title(a.metric)}"
    said = f"Does the advice hold on {servers.label(a.server)}? {a.kind}"
    said += f" ({a.verdict.why})" if a.verdict.why else ""
    said += f". {what}: {interval}, {a.counted}." if interval else f". {what}."
    return said + (f" At {r.point}: {a.risk}." if a.risk else "")


def _usual_class(by_server: dict) -> str:
    """The host class most cells' comparisons are measured on ("" if none)."""
    found = Counter(a.comparison.evidence.host_class.key for answers_ in by_server.values()
                    for a in answers_.values() if a.comparison is not None)
    return found.most_common(1)[0][0] if found else ""


def _elsewhere(host, usual: str) -> str:
    """Where a cell was measured, in plain words, when not on the usual machine."""
    if host.key == usual:
        return ""
    return "in the lab VM" if host.lab else \
        "on half the machine" if host.duet else "on another machine"


def _measured_on(usual: str, by_server: dict) -> str:
    """The usual machine in a DBA's words ("a 2-core VM with 24 GiB and a virtio disk"),
    read from its latest result."""
    found = next((a.comparison.evidence for answers_ in by_server.values()
                  for a in answers_.values() if a.comparison is not None
                  and a.comparison.evidence.host_class.key == usual
                  and a.comparison.evidence.results), None)
    if found is None:
        return ""
    return (f'<p class="tl-caption">Measured on {e(in_words(found.results[-1]))}, unless a '
            f'cell says otherwise. Each cell links to its topic\'s page and evidence.</p>')


def _breakable(text: str) -> str:
    """Escaped, with a line break allowed after each underscore and "=": a phone's narrow
    cell breaks "O_DIRECT_NO_FSYNC" between its words, never inside one."""
    return re.sub(r"([_=])", r"\1<wbr>", e(text))
