"""What today's measurements say of each setting a topic's recipes compare, on one server: each
point of a recipe (or a variant) against its baseline, pooled over the server's headline
evidence set (answers.headline: one host class, its between-sitting spread), judged in the
words of a setting's comparison (faster, slower, equivalent within the recipe's smallest
effect, too noisy to tell; a cost: more or less), with the cost per transaction that moved
most, clear of 1: the mechanism, and what carries over to other hardware.

Effects are ranked by the size of what was found: throughput answers first, largest effect
first; then comparisons whose throughput answers nothing but whose cost moved (a lab VM's
throughput is its emulator's: never a verdict, its costs are); then those too noisy to tell;
then the ones with no comparison. The topic pages' first table shows them (site/today_table.py)
and the answer index (answers.py) reads the one its advice rests on, so a comparison reads the
same words on every page."""

import math
from dataclasses import dataclass
from functools import lru_cache

from tuninglab.evidence import claim_verdicts, servers
from tuninglab.evidence.claim_verdicts import Comparison
from tuninglab.evidence.risks import risked
from tuninglab.recipes.load import command as load_command, list_names, load, load_all
from tuninglab.results import stats
from tuninglab.results.metrics import COST, is_amount
from tuninglab.results.ratio import Ratio

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

    @property
    def risk(self) -> tuple[str, str]:
        """(its kind in two words, what the point risks): never shown apart from its gain."""
        return risked(self.setting, self.point)


@lru_cache(maxsize=1)
def recipes_by_topic() -> dict:
    """{topic: [each recipe and variant of it, in name order]}."""
    out: dict = {}
    for name in list_names():
        for r in load_all(name):
            out.setdefault(r.topic, []).append(r)
    return out


def effects(topic: str, server: str) -> list[Effect]:
    """Every point of the topic's recipes against its baseline on one server, ranked."""
    found = []
    for r in recipes_by_topic().get(topic, []):
        cannot = servers.cannot_measure(r.name, r.variant, server)
        command = None if cannot else servers.command(load_command(r.name, r.variant), server)
        for point in r.sweep.values:
            if point != r.sweep.baseline:
                found.append(_effect(r, point, command, cannot, server))
    return sorted(found, key=lambda x: x.rank)


def headline(recipe: str, variant: str, point: str, metric: str,
             server: str) -> Comparison | None:
    """The comparison a server's answer rests on, the one rule every page and command uses:
    the server's first evidence set in evidence_sets' order, that is the project's own
    machines before contributed ones, a whole machine before the lab VM and before a duet's
    half machine, a lab VM at the hardware's speed before one that is not, then the class with
    the most current results.
    None when the server has no evidence set for it."""
    return next((c for c in claim_verdicts.comparisons(recipe, variant, point, metric)
                 if c.evidence.server == server), None)


def _effect(r, point: str, command: str | None, cannot: str | None, server: str) -> Effect:
    setting = r.sweep.setting
    c = headline(r.name, r.variant, point, "", server)
    if c is None:
        return Effect(r.variant, command, cannot, setting, point, r.sweep.baseline, None, None,
                      recipe=r.name)
    # An emulated CPU's time is the emulator's too: under it, only IO and flushes carry over.
    emulated = c.kind == claim_verdicts.NOT_TESTABLE
    costs = [m for m in COST if m not in CPU_COSTS] + list(IO_REQUESTS) if emulated else COST
    return Effect(r.variant, command, cannot, setting, point, r.sweep.baseline, c,
                  judged(c, ""), _moved_cost(r, point, costs, server), r.name)


def judged(c: Comparison, metric: str) -> Ratio | None:
    """The pooled comparison with its verdict (faster, slower, equivalent within the recipe's
    smallest effect, too noisy; for a cost, more or less): the words of a setting's
    comparison, wherever it is shown."""
    p = c.pooled
    if p is None:
        return None
    r = c.evidence.latest
    if r is not None:
        margin, key = r.smallest_effect, metric or r.metric
    else:   # a set made by hand (a test's): the recipe's own margin and metric
        recipe = load(c.evidence.recipe, variant=c.evidence.variant)
        pct = recipe.measure.smallest_effect_pct
        margin = stats.DEFAULT_SMALLEST_EFFECT if pct is None else pct / 100
        key = metric or recipe.workload.metric
    # An amount (a cost, a runtime) is more or less; a rate, faster or slower.
    verdict = stats.judged(p.ratio, (p.ci_low, p.ci_high), (p.tost_low, p.tost_high), margin,
                           cost=is_amount(key))
    return Ratio.of(verdict.to_dict(), margin)


def _moved_cost(r, point: str, costs: list, server: str) -> tuple | None:
    """(metric, Ratio) of the cost per transaction whose pooled ratio lies furthest from 1 with
    its interval clear of it; None when none moved."""
    moved = []
    for metric in costs:
        c = headline(r.name, r.variant, point, metric, server)
        ratio = judged(c, metric) if c is not None else None
        if ratio and ratio.verdict_kind in (stats.MORE, stats.LESS):
            moved.append((abs(math.log(ratio.ratio)), metric, ratio))
    return max(moved, key=lambda m: m[0])[1:] if moved else None
