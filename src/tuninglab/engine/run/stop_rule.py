"""The sequential stop rule (--precision, --budget): after the planned repeats, one more round at
a time until every ratio's 95% interval is within ±precision % of the ratio, or the next round
would overrun the budget, or the repeats reach their maximum. It stops on the width of the
intervals, never on a verdict, so that adding rounds cannot go looking for an effect.

Without --precision (or the recipe's [measure] precision), the target is the claims' when the
command that runs the recipe aims at them (Options.aims: `invoke recipe` and `invoke
claims.rerun` give each claim the recipe's variant answers its own aim,
evidence/claim_status.py), and the rule stops once each of those comparisons (its point, in its
metric) is within its own aim; without any, the recipe's smallest effect worth knowing, on every
ratio. The engine never reads the claims itself: the command hands the aims in. Without
--budget, three times the planned measuring time. The budget counts from the result's start
(its fio baseline and, after an interruption, the time until the rerun included)."""

import dataclasses
import datetime as dt
from dataclasses import dataclass

from tuninglab.errors import UserError
from tuninglab.recipes import plan as planner
from tuninglab.recipes.model import MAX_REPEATS
from tuninglab.results import document, precision_need, stats
from tuninglab.results.result import Result
from tuninglab.units import human_seconds

# Without --budget: this many times the planned measuring time (Phoronix Test Suite adds up to
# 2-4 times the planned runs before it gives up on its target).
DEFAULT_BUDGET_FACTOR = 3


@dataclass(frozen=True)
class Aim:
    """One claim's comparison and the half-width this result should reach for it."""
    point: str       # the swept value compared with the baseline
    metric: str      # "" for the result's primary metric, else a cost (or another metric)
    pct: float       # the result's own 95% half-width to reach, ± % of the ratio
    claim: str       # the claim's id, for the progress line


def aims_of(plan, aims: tuple = ()) -> tuple:
    """The claims' aims for this plan, of the command's (Options.aims: (recipe label, (Aim,
    ...)) pairs, the label "name" or "name:variant"): none when --precision or the recipe sets a
    target."""
    if plan.experiment.measure.precision_pct is not None:
        return ()
    return next((tuple(mine) for label, mine in aims if label == plan.experiment.recipe.label),
                ())


def active(measure) -> bool:
    return measure.precision_pct is not None or measure.budget is not None


def target_pct(plan, aims: tuple = ()) -> float:
    """--precision (or the recipe's), else the tightest aim, else the smallest effect."""
    m = plan.experiment.measure
    if m.precision_pct is not None:
        return m.precision_pct
    aims = aims_of(plan, aims)
    if aims:
        return min(a.pct for a in aims)
    from tuninglab.engine.run.record import smallest_effect_pct  # the recipe's, or the default
    return smallest_effect_pct(m)


def budget_s(plan) -> float:
    m = plan.experiment.measure
    if m.budget is not None:
        return m.budget
    return DEFAULT_BUDGET_FACTOR * plan.estimate(template_cached=True, baseline_done=True)


def round_seconds(plan) -> float:
    """One more round: a run of each point, one after the other (a duet's two halves, each
    its two runs at once)."""
    return plan.run_seconds() * (2 if plan.duet else len(plan.points))


def check(plan) -> None:
    """A budget that cannot hold one round is refused before anything starts."""
    if not active(plan.experiment.measure):
        return
    one, budget = round_seconds(plan), budget_s(plan)
    if budget < one:
        raise UserError(f"--budget {human_seconds(budget)} is shorter than one round of "
                        f"{plan.experiment.recipe.label} (about {human_seconds(one)}: one run "
                        f"of each of its {len(plan.points)} points); expected at least that")


def rounds_done(doc: dict) -> int:
    """The rounds a result holds: a duet's repeats (two halves each, its runs numbered by
    half; a half begun counts its repeat), any other design's repeats."""
    last = max((r["repeat"] for p in doc["points"] for r in p["runs"]), default=0)
    return (last + 1) // 2 if document.duet(doc) else last


def with_rounds(plan, rounds: int):
    """The plan as if it had planned `rounds` repeats (the first rounds keep their order)."""
    e = plan.experiment
    bigger = dataclasses.replace(e, measure=dataclasses.replace(e.measure, repeats=rounds))
    return planner.build(bigger, plan.seed, plan.design)


def widest_pct(doc: dict) -> float | None:
    """The widest 95% interval of the points' ratios to the baseline, as ± % of the ratio;
    None when some ratio has no interval yet (one repeat, or no throughput)."""
    widths = []
    for computed in document.point_stats(doc):
        ratio = computed["stats"]["ratio"]
        if ratio is None:
            continue  # the baseline
        if ratio["ci_low"] is None or not ratio["ratio"]:
            return None
        widths.append(stats.ratio_half_width_pct(ratio))
    return max(widths) if widths else None


def aim_pct(doc: dict, plan, aim: Aim) -> float | None:
    """The result's own 95% half-width on the aim's comparison (as claim_status computes the
    aim: the log ratio's t interval, pooling.estimate); None while it has none (one repeat, a
    0)."""
    r = Result(doc)
    point = r.point(next(p.id for p in plan.points if p.value == aim.point))
    values, base, _ = r.compared_values(point, aim.metric or r.metric)
    if any(v is None for v in values + base):
        return None
    est = r.estimate(point, values, base, aim.metric)   # as the verdict pools it
    if est is None:
        return None
    return precision_need.pct_of_log(stats.t_quantile(0.95, est.df) * est.se)


def aims_text(doc: dict, plan, aims: tuple) -> tuple[bool, str]:
    """(every aim met, the claims' widths in a line)."""
    met, parts = True, []
    for aim in aims:
        try:
            width = aim_pct(doc, plan, aim)
        except KeyError:  # the runs do not measure that metric: no round will give it
            parts.append(f"{aim.claim} not measured")
            continue
        met = met and width is not None and width <= aim.pct
        shown = "no interval yet" if width is None else f"±{width:.1f}%"
        parts.append(f"{aim.claim} {shown} (aim ±{aim.pct:g}%)")
    return met, "claims: " + ", ".join(parts)


def spent_s(doc: dict, now: dt.datetime | None = None) -> float:
    started = document.parse_time(doc["started"])
    now = now or dt.datetime.now(dt.timezone.utc)
    return (now - started).total_seconds() if started else 0.0


def next_round(plan, doc: dict, now=None, aims: tuple = ()):
    """(the plan with one more round, or None to stop; why, in a line)."""
    rounds = rounds_done(doc)
    target, budget = target_pct(plan, aims), budget_s(plan)
    spent, mine = spent_s(doc, now), aims_of(plan, aims)
    if mine:
        met, width = aims_text(doc, plan, mine)
        within, short = "each within its aim", "each within its aim"
    else:
        widest = widest_pct(doc)
        met = widest is not None and widest <= target
        width = "no interval yet" if widest is None else f"widest interval ±{widest:.1f}%"
        within, short = f"within the ±{target:g}% asked for", f"within ±{target:g}%"
    if met:
        return None, f"stop rule: {width}, {within}"
    if spent + round_seconds(plan) > budget:
        return None, (f"stop rule: {width}, not {short}, but another round would "
                      f"overrun the budget ({human_seconds(spent)} of "
                      f"{human_seconds(budget)} spent)")
    if rounds >= MAX_REPEATS:
        return None, f"stop rule: {width}, but the repeats are at their maximum, {MAX_REPEATS}"
    return with_rounds(plan, rounds + 1), \
        f"stop rule: {width}, not {short}: round {rounds + 1}"


def new_runs(plan) -> list:
    """The last round's runs of a plan next_round gave (a duet's: its last two halves)."""
    last = plan.experiment.measure.repeats
    halves = (2 * last - 1, 2 * last) if plan.duet else (last,)
    return [r for r in plan.runs if r.repeat in halves]


def record(doc: dict, plan, why: str, aims: tuple = ()) -> None:
    """The rule, and why it stopped, in the result's plan (the schema holds 300 characters of
    it); the order and repeats as run. Aimed at claims, precision_pct is the tightest aim."""
    if len(why) > 300:
        why = why[:299] + "…"
    doc["plan"].update(precision_pct=target_pct(plan, aims), budget_s=budget_s(plan),
                       stopped=why, repeats=rounds_done(doc),
                       order=[r.key for r in plan.runs])


def as_run(plan, doc: dict):
    """The plan with as many rounds as the document holds (a resumed result may have more
    than were planned: the rule had added some)."""
    rounds = rounds_done(doc)
    return plan if rounds <= plan.experiment.measure.repeats else with_rounds(plan, rounds)


def describe(plan, aims: tuple = ()) -> str:
    """The dry run's line on the rule."""
    m, mine = plan.experiment.measure, aims_of(plan, aims)
    until = (f"every ratio's 95% interval is within ±{target_pct(plan):g}%" if not mine else
             "the claims' comparisons are within their aims (" +
             ", ".join(f"{a.claim} ±{a.pct:g}%" for a in mine) + ")")
    return (f"stop rule: after the {m.repeats} planned repeats, one more round (about "
            f"{human_seconds(round_seconds(plan))}) at a time until {until} "
            "or another round would overrun the budget of "
            f"{human_seconds(budget_s(plan))} from the start"
            + ("" if budget_s(plan) >= plan.estimate(template_cached=True, baseline_done=True)
               else "; the planned repeats alone take longer: they run all the same"))
