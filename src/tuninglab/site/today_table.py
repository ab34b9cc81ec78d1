"""A topic page's first screen (```today```): what today's measurements say of each setting the
topic's recipes compare, one tab per server (evidence/effects.py decides each row: its
comparison, its verdict, the cost that moved most; this renders them). The first rows stand in
the first screen; the rest are folded under them."""

import html
from collections import Counter

from tuninglab.evidence import answers, claim_verdicts, measured, servers
from tuninglab.evidence.effects import Effect, effects, recipes_by_topic
from tuninglab.evidence.host_class import in_words
from tuninglab.results.metrics import METRICS, ratio_decimals
from tuninglab.site import rerun
from tuninglab.site.failure import fence_failure
from tuninglab.site.tabs import server_tabs

e = html.escape
SHOWN_FIRST = 4          # rows in the first screen; the rest are folded


# --- the page's block -------------------------------------------------------------------------

def today_fence(source, language, css_class, options, md, **kwargs) -> str:
    """```today``` with `topic = "<slug>"`: the topic's effects, a tab per server."""
    try:
        topic = _topic(source)
        found = {server: effects(topic, server) for server in servers.SHOWN}
        tables = [(server, _server_block(found[server], server, lambda: _rerun_elsewhere(found)))
                  for server in servers.SHOWN]
    except (ValueError, KeyError) as exc:
        return fence_failure(f"today fence: {exc}", source)
    return f'<div class="tl-today-effects">{server_tabs(tables, "tl-today-server")}{CAPTION}</div>'


def _topic(source: str) -> str:
    key, _, value = source.strip().partition("=")
    if key.strip() != "topic" or not value.strip().strip('"'):
        raise ValueError(f'expected topic = "<slug>", got {source.strip()!r}')
    topic = value.strip().strip('"')
    if topic not in recipes_by_topic():
        raise ValueError(f"no recipe has the topic {topic!r}")
    return topic


def _rerun_elsewhere(found: dict) -> str:
    """The rerun of the first comparison measured on a server that can run it, for a tab whose
    server cannot (an option it lacks): the command stays in the first screen."""
    for effects_ in found.values():
        x = next((x for x in effects_ if x.comparison is not None and x.command), None)
        if x:
            return rerun.rerun_html(x.command, x.recipe, x.variant)
    return ""


def _server_block(found: list[Effect], server: str, elsewhere=lambda: "") -> str:
    """One server's tab; elsewhere() gives the rerun on another server, asked for only by a tab
    whose server cannot run the topic."""
    measured = [x for x in found if x.comparison is not None]
    if not measured:
        return _not_measured(found, server, elsewhere)
    classes = Counter(_machine(x) for x in measured)
    usual = classes.most_common(1)[0][0]
    rows = [_row(x, usual, server) for x in measured]
    head = ('<thead><tr><th>Setting</th><th>Throughput, today</th>'
            '<th>The cost that moved most</th></tr></thead>')
    where = (f'<p class="tl-caption">Measured on {e(usual)}, unless a row names another '
             f"machine.</p>")
    top = measured[0]   # the comparison the table puts first: its rerun, in sight above it
    first = (rerun.rerun_html(top.command, top.recipe, top.variant)
             + f"<table>{head}<tbody>{''.join(rows[:SHOWN_FIRST])}</tbody></table>")
    if len(rows) <= SHOWN_FIRST:
        return first + where
    more = len(rows) - SHOWN_FIRST
    return (first + f'<details class="tl-more"><summary>{more} more comparison'
            f'{"s" * (more != 1)}</summary><table>{head}<tbody>'
            f"{''.join(rows[SHOWN_FIRST:])}</tbody></table></details>" + where)


def _not_measured(found: list[Effect], server: str, elsewhere=lambda: "") -> str:
    """Why a server has no row: the commands that would measure it, or why none can (and the
    rerun on a server that can)."""
    runs = sorted({x.command for x in found if x.command})
    if not runs:   # the lab VM's own server only, an option this server lacks
        why = found[0].cannot if found else ""
        return (f"<p>{e(why[:1].upper() + why[1:])}.</p>" if why else "") + elsewhere()
    commands = [c for c in runs if "--variant" not in c] or runs  # the main ones
    marks = measured.attr_all((x.recipe, x.variant, server, False)
                              for x in found if x.command)
    return (f"<p{marks}>Not measured on {e(servers.label(server))} yet: run "
            + "; ".join(f"<code>{e(c)}</code>" for c in commands) + " to measure it.</p>")


def _row(x: Effect, usual: str, server: str) -> str:
    variant = f'<br><span class="tl-why">{e(_experiment(x))}</span>' if x.variant else ""
    what = f"<code>{e(x.setting)}</code> {e(x.point)} against {e(x.baseline)}{variant}"
    kind, risk = x.risk   # a gain that costs durability or safety is never shown bare
    if risk:
        what += f'<br><span class="tl-risk">{e(kind)}: risks {e(risk)}</span>'
    mark = measured.attr(x.recipe, x.variant, server, True) + _answer_marks(x, server)
    return (f'<tr{mark}><td data-label="Setting">{what}</td>'
            f'<td data-label="Throughput, today">{_throughput(x, usual)}</td>'
            f'<td data-label="The cost that moved most">{_cost(x)}</td></tr>')


def _experiment(x: Effect) -> str:
    """Which of the recipe's experiments a row is, in the recipe's own words: its title after
    the topic ("ON vs OFF, TPC-C-like (large, disk-bound)")."""
    title = _recipes_by_name()[(x.recipe, x.variant)].title
    return title.split(": ", 1)[-1]


def _recipes_by_name() -> dict:
    return {(r.name, r.variant): r for found in recipes_by_topic().values() for r in found}


def _answer_marks(x: Effect, server: str) -> str:
    """What the row answers (answers.Mark): the setting's comparison in its throughput and in
    the cost that moved most, each with its words and interval."""
    c = x.comparison
    found = [(c.evidence.latest.metric, x.ratio)] if x.ratio is not None else []
    found += [x.cost] if x.cost else []
    return answers.marks(answers.Mark(server, x.recipe, x.variant, x.point, metric,
                                      c.evidence.host_class.key, answers.SETTING,
                                      ratio.verdict_kind, answers.interval_of(ratio))
                         for metric, ratio in found)


def _throughput(x: Effect, usual: str) -> str:
    c = x.comparison
    if x.ratio is None:
        why = claim_verdicts.LAB_THROUGHPUT \
            if c.kind == claim_verdicts.NOT_TESTABLE else (c.why or c.kind)
        return f'-<br><span class="tl-why">{e(why)}</span>'
    kind = x.ratio.verdict_kind
    name = _machine(x)
    counted = claim_verdicts.counted(c.pooled.k, c.pooled.sittings) + \
        ("" if name == usual else f", on {name}")
    return (f'{e(x.ratio.text(mark="x", with_verdict=False))} '
            f'<strong class="tl-v tl-v-{kind.replace(" ", "-")}">{e(x.ratio.verdict)}'
            f'</strong><br><span class="tl-why">{e(counted)}</span>')


def _machine(x: Effect) -> str:
    """The machine a row's results come from, in a DBA's words (host_class.in_words)."""
    latest = x.comparison.evidence.latest
    return in_words(latest) if latest is not None else x.comparison.evidence.host_class.name


def _cost(x: Effect) -> str:
    if not x.cost:
        return "-"
    metric, ratio = x.cost
    # A cost can fall to a fortieth (fsyncs): more decimals than "x0.00 [0.00, 0.00]".
    digits = ratio_decimals(ratio.ratio, 2)
    return (f"{e(METRICS[metric].label)}: {e(ratio.text(digits, mark='x', with_verdict=False))} "
            f"{e(ratio.verdict)}")


CAPTION = (
    '<p class="tl-caption">Each tab is one server. A row compares one setting with the recipe\'s '
    'baseline, pooled over every comparable result of one kind of machine, with its 95% '
    'interval; '
    'the largest answers come first. Beside it, the cost per transaction whose change is the '
    'largest and clear of 1: how the setting acts, and what carries over to other hardware. '
    'The sources\' claims and their verdicts follow; the charts and the method after them.</p>')
