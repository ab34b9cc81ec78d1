"""Each source claim's verdict today, per host, computed at build time from the claims map
(claims_map) and the latest result of each host: never written by hand.

The source's ratio gives a direction (more or less than its baseline); today's comparison of the
claim's point with the recipe's baseline gives a ratio, its 95% interval and its own verdict
(results/stats.py). The claim's verdict, in one vocabulary:

- reproduced: today's interval excludes 1 on the source's side (or the source saw no effect and
  today's run is equivalent within the recipe's smallest effect worth knowing);
- reversed: today's interval excludes 1 on the other side;
- equivalent within ±X%: today the settings are alike, where the source saw an effect;
- too noisy to tell: today's interval is too wide to say (not "no difference");
- regime not reached: today's run was not in the situation the claim is about;
- not testable here: the host cannot answer it (for throughput, a lab VM under TCG);
- not measured yet: no result of the recipe's variant exists.
"""

import math
from dataclasses import dataclass

from tuninglab.results import stats
from tuninglab.results.result import Ratio, Result
from tuninglab.site import describe, hostviews, result_files
from tuninglab.site.claims_map import Claim

REPRODUCED = "reproduced"
REVERSED = "reversed"
EQUIVALENT = stats.EQUIVALENT
TOO_NOISY = stats.TOO_NOISY
REGIME_NOT_REACHED = stats.REGIME_NOT_REACHED
NOT_TESTABLE = "not testable here"
NOT_MEASURED = "not measured yet"
DIFFERS = "an effect the source did not see"
KINDS = (REPRODUCED, REVERSED, EQUIVALENT, TOO_NOISY, REGIME_NOT_REACHED, NOT_TESTABLE,
         NOT_MEASURED, DIFFERS)
_UP = {stats.FASTER, stats.MORE}
_DOWN = {stats.SLOWER, stats.LESS}


@dataclass(frozen=True)
class Verdict:
    kind: str             # one of KINDS
    text: str             # the kind, or its words with the margin ("equivalent within ±3%")
    ratio: Ratio | None   # today's comparison, oriented as the claim reads (None: none)
    doc: dict | None      # the result it comes from
    why: str = ""         # a reason, for not testable / not measured / regime not reached


def _today(claim: Claim, doc: dict) -> tuple[Ratio | None, str]:
    """(today's comparison as the claim reads it, or None with why)."""
    r = Result.of(doc)
    p = next((p for p in r.points if p.value == claim.point), None)
    if p is None:
        return None, f"the result has no point {claim.point!r}"
    metric = claim.metric or r.metric
    ratio = p.ratio if metric == r.metric else p.cost_ratio(metric)
    if ratio is None:
        return None, f"the result did not measure {metric}"
    if not p.regime_reached:
        ratio = ratio.judged(REGIME_NOT_REACHED)
    return (ratio.flipped() if claim.invert else ratio), ""


def _functional_why(doc: dict) -> str:
    """Why a lab VM result's throughput answers no claim, short: a topic table repeats it on
    every row (the page's "functional" note says it at length)."""
    reasons = " and ".join(describe.functional_reasons(doc, short=True))
    return f"lab VM, {reasons}: its throughput is not the hardware's"


def verdict_for(claim: Claim, doc: dict) -> Verdict:
    """The claim's verdict on one result."""
    if describe.functional_only(doc) and not claim.metric:
        return Verdict(NOT_TESTABLE, NOT_TESTABLE, None, doc, _functional_why(doc))
    ratio, why = _today(claim, doc)
    if ratio is None:
        return Verdict(NOT_MEASURED, NOT_MEASURED, None, doc, why)
    kind = ratio.verdict_kind
    if kind == REGIME_NOT_REACHED:
        return Verdict(REGIME_NOT_REACHED, REGIME_NOT_REACHED, ratio, doc,
                       "the page's regime table says which check it missed")
    source = math.log(claim.source_ratio) if claim.source_ratio > 0 else 0.0
    if kind == stats.EQUIVALENT:
        margin = Result.of(doc).smallest_effect
        if abs(source) <= math.log(1 + margin):
            return Verdict(REPRODUCED, REPRODUCED, ratio, doc)
        return Verdict(EQUIVALENT, stats.equivalent_text(margin), ratio, doc)
    if kind in _UP or kind in _DOWN:
        today = 1 if kind in _UP else -1
        if source == 0:
            return Verdict(DIFFERS, DIFFERS, ratio, doc)
        same = (source > 0) == (today > 0)
        return Verdict(REPRODUCED if same else REVERSED, REPRODUCED if same else REVERSED,
                       ratio, doc)
    said = ratio.verdict  # "too few repeats", "no throughput to compare": why
    return Verdict(TOO_NOISY, TOO_NOISY, ratio, doc, "" if said == TOO_NOISY else said)


def verdicts(claim: Claim) -> list[Verdict]:
    """The claim's verdict on each host's latest result of its recipe's variant, the host the
    pages show first leading; one "not measured yet" when there is none."""
    docs = result_files.results_for(claim.recipe, claim.variant)
    if not docs:
        what = claim.recipe + (f" --variant {claim.variant}" if claim.variant else "")
        return [Verdict(NOT_MEASURED, NOT_MEASURED, None, None,
                        f"run invoke recipe {what} to measure it")]
    hosts = result_files.latest_per_host(docs)
    first = hostviews.shown_by_default(docs)
    return [verdict_for(claim, d) for d in [first] + [d for d in hosts if d is not first]]
