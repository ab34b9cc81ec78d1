"""A topic page's first screen (```today```): what today's measurements say of each setting the
topic's recipes compare, one tab per server. Each row is a point of a recipe (or a variant)
against its baseline, pooled over every comparable result of the server's first evidence set
(claim_verdicts.compare_set: one host class, its between-sitting spread), with its 95% interval
and verdict, and beside it the cost per transaction that moved most, clear of 1: the mechanism,
and what carries over to other hardware.

Rows are ranked by the size of what was found: throughput answers first (faster, slower or
equivalent), largest effect first; then comparisons whose throughput answers nothing but whose
cost moved (a lab VM's throughput is its emulator's: never a verdict here, its costs are); then
those too noisy to tell; then the ones with no comparison. The first rows stand in the first
screen; the rest are folded under them."""

import html
import math
from collections import Counter
from dataclasses import dataclass
from functools import lru_cache

from tuninglab.evidence import claim_verdicts, measured, servers
from tuninglab.evidence.claim_verdicts import Comparison
from tuninglab.evidence.sets import evidence_sets
from tuninglab.recipes.load import command as load_command, list_names, load_all
from tuninglab.results import stats
from tuninglab.results.metrics import COST, METRICS, is_amount, ratio_decimals
from tuninglab.results.ratio import Ratio
from tuninglab.site import rerun
from tuninglab.site.failure import fence_failure
from tuninglab.site.tabs import server_tabs

e = html.escape
SHOWN_FIRST = 4          # rows in the first screen; the rest are folded
ANSWERS = (stats.FASTER, stats.SLOWER, stats.EQUIVALENT)
CPU_COSTS = ("server_cpu_us_per_trx", "host_cpu_us_per_trx")
# Under an emulated CPU the IO requests a transaction makes at the disks carry over too (the
# RAID page's mechanism: parity reads and writes, a chunk split across members).
IO_REQUESTS = ("writes_per_trx", "reads_per_trx")


@dataclass(frozen=True)
class Effect:
    variant: str                 # "" for the recipe's main experiment
    command: str | None          # what measures it on this server; None: nothing can
    cannot: str | None           # why nothing can (servers.cannot_measure), else None
    setting: str
    point: str
    baseline: str
    comparison: Comparison | None    # None: the server has no evidence set for it
    ratio: Ratio | None              # the pooled throughput comparison, judged
    cost: tuple | None = None        # (metric key, Ratio): the cost that moved most
    recipe: str = ""                 # the recipe it compares in

    @property
    def rank(self) -> tuple:
        kind = self.ratio.verdict_kind if self.ratio else ""
        size = lambda r: -abs(math.log(r.ratio)) if r and r.ratio else 0.0  # noqa: E731
        if kind in ANSWERS:
            return 0, size(self.ratio)
        if self.cost:
            return 1, size(self.cost[1])
        return (2 if self.ratio else 3), size(self.ratio)


@lru_cache(maxsize=1)
def _recipes_by_topic() -> dict:
    """{topic: [each recipe and variant of it, in name order]}."""
    out: dict = {}
    for name in list_names():
        for r in load_all(name):
            out.setdefault(r.topic, []).append(r)
    return out


def effects(topic: str, server: str) -> list[Effect]:
    """Every point of the topic's recipes against its baseline on one server, ranked."""
    found = []
    for r in _recipes_by_topic().get(topic, []):
        sets = [s for s in evidence_sets(r.name, r.variant) if s.server == server]
        cannot = servers.cannot_measure(r.name, r.variant, server)
        command = None if cannot else servers.command(load_command(r.name, r.variant), server)
        for point in r.sweep.values:
            if point != r.sweep.baseline:
                found.append(_effect(r, point, sets[0] if sets else None, command, cannot))
    return sorted(found, key=lambda x: x.rank)


def _effect(r, point: str, s, command: str | None, cannot: str | None) -> Effect:
    setting = r.sweep.setting
    if s is None:
        return Effect(r.variant, command, cannot, setting, point, r.sweep.baseline, None, None,
                      recipe=r.name)
    c = claim_verdicts.compare_set(s, point)
    # An emulated CPU's time is the emulator's too: under it, only IO and flushes carry over.
    emulated = c.kind == claim_verdicts.NOT_TESTABLE
    costs = [m for m in COST if m not in CPU_COSTS] + list(IO_REQUESTS) if emulated else COST
    return Effect(r.variant, command, cannot, setting, point, r.sweep.baseline, c,
                  _judged(c, s, ""), _moved_cost(s, point, costs), r.name)


def _judged(c: Comparison, s, metric: str) -> Ratio | None:
    """The pooled comparison with its verdict (faster, slower, equivalent within the recipe's
    smallest effect, too noisy; for a cost, more or less)."""
    p = c.pooled
    if p is None:
        return None
    r = s.latest
    margin, key = r.smallest_effect, metric or r.metric
    # An amount (a cost, a runtime) is more or less; a rate, faster or slower.
    judged = stats.judged(p.ratio, (p.ci_low, p.ci_high), (p.tost_low, p.tost_high), margin,
                          cost=is_amount(key))
    return Ratio.of(judged.to_dict(), margin)


def _moved_cost(s, point: str, costs: list) -> tuple | None:
    """(metric, Ratio) of the cost per transaction whose pooled ratio lies furthest from 1 with
    its interval clear of it; None when none moved."""
    moved = []
    for metric in costs:
        ratio = _judged(claim_verdicts.compare_set(s, point, metric), s, metric)
        if ratio and ratio.verdict_kind in (stats.MORE, stats.LESS):
            moved.append((abs(math.log(ratio.ratio)), metric, ratio))
    return max(moved, key=lambda m: m[0])[1:] if moved else None


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
    if topic not in _recipes_by_topic():
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
    classes = Counter(x.comparison.evidence.host_class.name for x in measured)
    usual = classes.most_common(1)[0][0]
    rows = [_row(x, usual, server) for x in measured]
    head = ('<thead><tr><th>Setting</th><th>Throughput, today</th>'
            '<th>The cost that moved most</th></tr></thead>')
    where = (f'<p class="tl-caption">Measured on {e(usual)}, unless a row names another '
             f"host class.</p>")
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
    variant = f'<br><span class="tl-why">variant {e(x.variant)}</span>' if x.variant else ""
    what = f"<code>{e(x.setting)}</code> {e(x.point)} against {e(x.baseline)}{variant}"
    mark = measured.attr(x.recipe, x.variant, server, True)
    return (f'<tr{mark}><td data-label="Setting">{what}</td>'
            f'<td data-label="Throughput, today">{_throughput(x, usual)}</td>'
            f'<td data-label="The cost that moved most">{_cost(x)}</td></tr>')


def _throughput(x: Effect, usual: str) -> str:
    c = x.comparison
    if x.ratio is None:
        why = claim_verdicts.LAB_THROUGHPUT \
            if c.kind == claim_verdicts.NOT_TESTABLE else (c.why or c.kind)
        return f'-<br><span class="tl-why">{e(why)}</span>'
    kind = x.ratio.verdict_kind
    name = c.evidence.host_class.name
    counted = f"{c.pooled.k} result{'s' * (c.pooled.k != 1)}" + \
        ("" if name == usual else f", on {name}")
    return (f'{e(x.ratio.text(mark="x", with_verdict=False))} '
            f'<strong class="tl-v tl-v-{kind.replace(" ", "-")}">{e(x.ratio.verdict)}'
            f'</strong><br><span class="tl-why">{e(counted)}</span>')


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
    'baseline, pooled over every comparable result of one host class, with its 95% interval; '
    'the largest answers come first. Beside it, the cost per transaction whose change is the '
    'largest and clear of 1: how the setting acts, and what carries over to other hardware. '
    'The sources\' claims and their verdicts follow; the charts and the method after them.</p>')
