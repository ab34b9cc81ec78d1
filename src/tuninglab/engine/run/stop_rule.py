"""The sequential stop rule (--precision, --budget): after the planned repeats, one more round at
a time until every ratio's 95% interval is within ±precision % of the ratio, or the next round
would overrun the budget, or the repeats reach their maximum. It stops on the width of the
intervals, never on a verdict, so that adding rounds cannot go looking for an effect.

Without --precision, the target is the recipe's smallest effect worth knowing; without
--budget, three times the planned measuring time. The budget counts from the result's start
(its fio baseline and, after an interruption, the time until the rerun included)."""

import dataclasses
import datetime as dt

from tuninglab.errors import UserError
from tuninglab.recipes import plan as planner
from tuninglab.recipes.model import MAX_REPEATS
from tuninglab.results import document, stats
from tuninglab.units import human_seconds

# Without --budget: this many times the planned measuring time (Phoronix Test Suite adds up to
# 2-4 times the planned runs before it gives up on its target).
DEFAULT_BUDGET_FACTOR = 3


def active(measure) -> bool:
    return measure.precision_pct is not None or measure.budget is not None


def target_pct(plan) -> float:
    m = plan.experiment.measure
    if m.precision_pct is not None:
        return m.precision_pct
    from tuninglab.engine.run.record import smallest_effect_pct  # the recipe's, or the default
    return smallest_effect_pct(m)


def budget_s(plan) -> float:
    m = plan.experiment.measure
    if m.budget is not None:
        return m.budget
    return DEFAULT_BUDGET_FACTOR * plan.estimate(template_cached=True, baseline_done=True)


def round_seconds(plan) -> float:
    return plan.run_seconds() * len(plan.points)


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
    return max((r["repeat"] for p in doc["points"] for r in p["runs"]), default=0)


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


def spent_s(doc: dict, now: dt.datetime | None = None) -> float:
    started = document.parse_time(doc["started"])
    now = now or dt.datetime.now(dt.timezone.utc)
    return (now - started).total_seconds() if started else 0.0


def next_round(plan, doc: dict, now=None):
    """(the plan with one more round, or None to stop; why, in a line)."""
    rounds = rounds_done(doc)
    target, budget = target_pct(plan), budget_s(plan)
    widest, spent = widest_pct(doc), spent_s(doc, now)
    width = "no interval yet" if widest is None else f"widest interval ±{widest:.1f}%"
    if widest is not None and widest <= target:
        return None, f"stop rule: {width}, within the ±{target:g}% asked for"
    if spent + round_seconds(plan) > budget:
        return None, (f"stop rule: {width}, not within ±{target:g}%, but another round would "
                      f"overrun the budget ({human_seconds(spent)} of "
                      f"{human_seconds(budget)} spent)")
    if rounds >= MAX_REPEATS:
        return None, f"stop rule: {width}, but the repeats are at their maximum, {MAX_REPEATS}"
    return with_rounds(plan, rounds + 1), \
        f"stop rule: {width}, not within ±{target:g}%: round {rounds + 1}"


def new_runs(plan) -> list:
    """The last round's runs of a plan next_round gave."""
    last = plan.experiment.measure.repeats
    return [r for r in plan.runs if r.repeat == last]


def record(doc: dict, plan, why: str) -> None:
    """The rule, and why it stopped, in the result's plan; the order and repeats as run."""
    doc["plan"].update(precision_pct=target_pct(plan), budget_s=budget_s(plan), stopped=why,
                       repeats=rounds_done(doc),
                       order=[r.key for r in plan.runs])


def as_run(plan, doc: dict):
    """The plan with as many rounds as the document holds (a resumed result may have more
    than were planned: the rule had added some)."""
    rounds = rounds_done(doc)
    return plan if rounds <= plan.experiment.measure.repeats else with_rounds(plan, rounds)


def describe(plan) -> str:
    """The dry run's line on the rule."""
    m = plan.experiment.measure
    return (f"stop rule: after the {m.repeats} planned repeats, one more round (about "
            f"{human_seconds(round_seconds(plan))}) at a time until every ratio's 95% interval "
            f"is within ±{target_pct(plan):g}% or another round would overrun the budget of "
            f"{human_seconds(budget_s(plan))} from the start"
            + ("" if budget_s(plan) >= plan.estimate(template_cached=True, baseline_done=True)
               else "; the planned repeats alone take longer: they run all the same"))
