"""A source claim's verdict: today's pooled interval judged against the size the source claimed,
not only against "no difference". One vocabulary, defined here once (VOCABULARY), for the
terminal, the topic pages, the claims page and the home page.

The inputs, all oriented as the claim reads (higher = more of what the source measured):
S, the source's ratio; today's 95% interval [L, U] and the 90% interval of the equivalence test;
X, the smallest effect worth knowing (the recipe's margin); and N, the source's own stated
run-to-run swing (0 when it states none).

A source effect within N or within X is a claim of "no difference": it is reproduced when today
is equivalent within ±X (the 90% interval inside it), not reproduced only when the 95% interval
lies wholly outside ±X (an interval that excludes 1 by less than X is not a difference worth
knowing), otherwise too noisy. A claimed effect is judged by where [L, U] lies against ±X,
against 1 and against S: first, a 90% interval inside ±X is "no effect worth knowing here",
whatever S; then "consistent with S" allows X on each side of S, less the part of that band
inside ±X (x1.035 with X 3% is judged against x1.03 to x1.066, never against 1.005, which is no
effect worth knowing). band() gives that band, so that every verdict can say what it met.

A claim whose source contradicts itself (the claims map's caveat) supports no ratio to judge
against: doubted() lowers an answer that judges the source's ratio to "source in doubt", which
keeps today's interval as a measurement and judges only whether it is an effect worth knowing.
Its words still say what was measured against the source's ratio, and the doubt beside it
(doubted_text, doubted_band): a measured "larger than claimed" is never hidden by the doubt,
nor a "too noisy" shown against a ratio without it.
"""

import math
from dataclasses import dataclass

REPRODUCED = "reproduced"
SMALLER = "smaller than claimed"
LARGER = "larger than claimed"
NOT_REPRODUCED = "not reproduced"
NO_EFFECT = "no effect worth knowing here"
REVERSED = "reversed"
TOO_NOISY = "too noisy to tell"
REGIME_NOT_REACHED = "regime not reached"
NOT_TESTABLE = "not testable here"
NOT_AN_EFFECT = "not an effect"
SOURCE_IN_DOUBT = "source in doubt"
NOT_MEASURED = "not measured yet"
ONLY_OLDER = "only older evidence"

# Each verdict and what it means, for the page that defines them (docs: the claims page).
VOCABULARY = {
    REPRODUCED: "today's 95% interval excludes 1 on the side the source claimed and holds the "
                "source's ratio (or comes within the smallest effect worth knowing of it); for a "
                "claim of no difference, today's settings are equivalent within that margin",
    SMALLER: "today's interval excludes 1 on the source's side, but the whole interval lies "
             "below the source's ratio: the effect is real and smaller than claimed",
    LARGER: "today's interval excludes 1 on the source's side and lies wholly above the "
            "source's ratio: the effect is real and larger than claimed",
    NOT_REPRODUCED: "today's interval rules the source's ratio out and holds 1; for a claim "
                    "of no difference, today's 95% interval lies wholly outside the smallest "
                    "effect worth knowing",
    REVERSED: "today's interval excludes 1 on the other side than the source's",
    NO_EFFECT: "today's 90% interval lies inside the smallest effect worth knowing (±X): "
               "whatever the source saw, the setting makes no difference worth knowing here",
    TOO_NOISY: "today's interval holds both 1 and the source's ratio: not enough evidence to "
               "tell, which is not the same as no difference",
    REGIME_NOT_REACHED: "today's runs were not in the situation the claim is about (the data "
                        "cached by the OS, the redo log not filling, a load still warming up): "
                        "their ratio answers another question",
    NOT_TESTABLE: "the hosts measured so far cannot answer it (the lab VM's emulated CPU for a "
                  "throughput claim, a kernel that no longer boots)",
    NOT_AN_EFFECT: "the source's number compares nothing (a listing, an iostat column, an "
                   "absolute figure, advice): there is no effect to reproduce",
    SOURCE_IN_DOUBT: "the source's own figures put its ratio in doubt (the claim's caveat says "
                     "how): today's interval stands as a measurement of the setting, judged "
                     "against no ratio of the source's; only an interval inside the smallest "
                     "effect worth knowing still answers it (no effect worth knowing here)",
    NOT_MEASURED: "no result of the experiment that answers it exists yet",
    ONLY_OLDER: "every result of that experiment ran under conditions the recipe now refuses "
                "(before a memory cap or a regime check it now has): kept, not judged",
}
# The verdicts that answer the claim (a reader can act on them), in the order pages count them.
ANSWERS = (REPRODUCED, SMALLER, LARGER, NOT_REPRODUCED, REVERSED, NO_EFFECT)


@dataclass(frozen=True)
class Interval:
    low: float        # 95%
    high: float
    tost_low: float   # 90%: the equivalence test's
    tost_high: float


def no_difference_claimed(source: float, margin: float, source_noise: float = 0.0) -> bool:
    """Whether the source's ratio is a claim of no difference: within its own stated noise or
    within the smallest effect worth knowing."""
    return abs(math.log(source)) <= math.log(1 + max(margin, source_noise))


def equivalent(iv: Interval, margin: float) -> bool:
    """Whether the 90% interval lies inside ±margin."""
    return 1 / (1 + margin) < iv.tost_low and iv.tost_high < 1 + margin


def outside(iv: Interval, margin: float) -> bool:
    """Whether the 95% interval lies wholly outside ±margin."""
    return iv.low > 1 + margin or iv.high < 1 / (1 + margin)


def band(source: float, margin: float, source_noise: float = 0.0) -> tuple[float, float]:
    """The ratios a verdict counts as the source's: ±margin of 1 for a claim of no
    difference; else ±margin around the source's ratio, less its part inside ±margin of 1."""
    if no_difference_claimed(source, margin, source_noise):
        return 1 / (1 + margin), 1 + margin
    low, high = source / (1 + margin), source * (1 + margin)
    return (max(low, 1 + margin), high) if source > 1 else (low, min(high, 1 / (1 + margin)))


def band_text(source: float, margin: float, source_noise: float = 0.0) -> str:
    """What a verdict was judged against, in words: "x1.035 ±3% (x1.030 to x1.066)", or "no
    difference (±3%)" for a claim of no difference."""
    if no_difference_claimed(source, margin, source_noise):
        return f"no difference (±{margin:.0%})"
    low, high = band(source, margin, source_noise)
    return f"x{source:.4g} ±{margin:.0%} (x{low:.3f} to x{high:.3f})"


def judge(source: float, iv: Interval, margin: float, source_noise: float = 0.0) -> str:
    """The claim's verdict (one of ANSWERS or TOO_NOISY) from the source's ratio and today's
    intervals."""
    if not source > 0:
        raise ValueError(f"the source's ratio must be > 0, got {source!r}")
    if no_difference_claimed(source, margin, source_noise):
        if equivalent(iv, margin):
            return REPRODUCED
        return NOT_REPRODUCED if outside(iv, margin) else TOO_NOISY
    if equivalent(iv, margin):
        return NO_EFFECT
    up = source > 1
    band_low, band_high = band(source, margin, source_noise)
    holds_source = iv.low <= band_high and band_low <= iv.high
    if (iv.low > 1) if up else (iv.high < 1):
        if holds_source:
            return REPRODUCED
        below = iv.high < band_low
        return SMALLER if below == up else LARGER
    if (iv.high < 1) if up else (iv.low > 1):
        return REVERSED
    if holds_source:
        return TOO_NOISY
    return NOT_REPRODUCED


# The answers that judge today's interval against the source's ratio: what a caveat takes away.
JUDGE_THE_SOURCE = (REPRODUCED, SMALLER, LARGER, NOT_REPRODUCED, REVERSED)


def doubted(kind: str, iv: Interval, margin: float) -> str:
    """A caveated claim's verdict from judge()'s: an answer that judges the source's ratio
    becomes SOURCE_IN_DOUBT, or NO_EFFECT when the 90% interval lies inside ±margin (a claim of
    no difference "reproduced"); the other verdicts judge nothing of the source and stay."""
    if kind not in JUDGE_THE_SOURCE:
        return kind
    return NO_EFFECT if equivalent(iv, margin) else SOURCE_IN_DOUBT


# What every caveated claim's verdict adds to what was measured.
IN_DOUBT = "the source's own figures are in doubt (its caveat says why)"


def doubted_text(measured: str, kind: str) -> str:
    """A caveated claim's words: what today measured against the source's ratio (judge()'s
    verdict; "no effect worth knowing here" where doubted() keeps that), then the doubt:
    "larger than claimed; the source's own figures are in doubt (its caveat says why)"."""
    return f"{kind if kind == NO_EFFECT else measured}; {IN_DOUBT}"


def doubted_band(band_words: str) -> str:
    """What a caveated claim's verdict was judged against (band_text's words), with the doubt."""
    return f"{band_words}, a ratio in doubt (see the source's caveat)"
