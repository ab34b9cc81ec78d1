"""The precision a claim needs: the widest 95% interval, as ± % of the ratio (the convention of
stats.ratio_half_width_pct and the stop rule), at which verdicts.judge can no longer say "too
noisy to tell" for the two outcomes that matter: today's interval centred on the source's ratio S,
or centred on 1 (no effect).

An interval is taken as symmetric on the log scale, [r / e^a, r * e^a] (as every interval of
stats and pooling is), whose half-width in % is sinh(a) * 100. With X the smallest effect worth
knowing and the source's band [S / (1 + X), S * (1 + X)] (judge's):
- a claimed effect (|ln S| above ln(1 + max(X, N))): centred on S, the interval must exclude 1,
  a < |ln S|; centred on 1, it must rule the band out, a < |ln S| - ln(1 + X). The second is the
  tighter: an effect just above the margin needs an interval narrower than its distance from it.
- a claim of no difference (within X or the source's own noise N): centred on 1, the 90%
  interval of the equivalence test must lie within ±X: a * k < ln(1 + X), k the ratio of the
  90% and 95% quantiles. k is the normal one (0.84); a t quantile on few degrees of freedom
  gives a smaller k, so the need is on the safe side.
The need is a supremum (at exactly that width the interval touches the band): it is rounded down
to 0.01%, strictly inside it.

Today's pooled ratio c may lie between 1 and the source's: an interval centred there answers only
when it excludes 1 or the band (for a claim of no difference: excludes 1, or is equivalent), which
needs a < max(|ln c|, the distance from ln c to the band): need_at(), what a rerun aims at while
today's estimate stays where it is. At c = S or c = 1 it is at least need().
"""

import math
from dataclasses import dataclass

from scipy.stats import norm

from tuninglab.results import verdicts

# Narrower than this is out of reach of any run here (the project's best designs give ±3-4% in
# minutes; the sampling error halves only with four times the rounds): such a claim is reported
# as needing more than any budget allows, never as a target to run for.
MIN_NEED_PCT = 1.0
# Wider than this needs no stop rule at all (any interval a run gives is narrower); the stop
# rule's record takes a target under 100%.
MAX_NEED_PCT = 50.0
TOST_TO_CI = norm.ppf(0.95) / norm.ppf(0.975)   # k: 1.645 / 1.960


@dataclass(frozen=True)
class Need:
    pct: float        # the widest 95% half-width that answers, ± % of the ratio (capped)
    decides: str      # what an interval that narrow tells apart, in a few words

    @property
    def reachable(self) -> bool:
        """False: narrower than MIN_NEED_PCT, more than any budget here allows."""
        return self.pct >= MIN_NEED_PCT

    @property
    def text(self) -> str:
        return f"±{self.pct:g}%" if self.reachable else f"±{self.pct:g}% (out of reach)"


def pct_of_log(a: float) -> float:
    """The ± % half-width of an interval a wide on each side on the log scale."""
    return math.sinh(a) * 100


def log_of_pct(pct: float) -> float:
    """pct_of_log's inverse."""
    return math.asinh(pct / 100)


def _down(pct: float) -> float:
    return math.floor(pct * 100) / 100


def need(source: float, margin: float, source_noise: float = 0.0) -> Need:
    """The claim's need (module docstring) from the source's ratio, the smallest effect worth
    knowing (a fraction, the recipe's margin) and the source's stated noise (a fraction)."""
    if not source > 0:
        raise ValueError(f"the source's ratio must be > 0, got {source!r}")
    if not margin > 0:
        raise ValueError(f"the smallest effect worth knowing must be > 0, got {margin!r}")
    if verdicts.no_difference_claimed(source, margin, source_noise):
        a = math.log1p(margin) / TOST_TO_CI
        decides = f"equivalent within ±{margin:.0%} from a difference"
    else:
        a = abs(math.log(source)) - math.log1p(margin)
        decides = f"x{source:.2f} (within ±{margin:.0%}) from no effect"
    return Need(min(_down(pct_of_log(max(a, 0.0))), MAX_NEED_PCT), decides)


def need_at(source: float, margin: float, source_noise: float, centre: float) -> Need:
    """The width at which an interval centred on today's ratio `centre` (oriented as the claim
    reads) gets an answer (module docstring)."""
    if not centre > 0:
        raise ValueError(f"today's ratio must be > 0, got {centre!r}")
    need(source, margin, source_noise)  # the same checks
    c = math.log(centre)
    if verdicts.no_difference_claimed(source, margin, source_noise):
        a = max(abs(c), (math.log1p(margin) - abs(c)) / TOST_TO_CI)
        decides = f"today's x{centre:.2f}: a difference from equivalence within ±{margin:.0%}"
    else:
        low, high = math.log(source) - math.log1p(margin), math.log(source) + math.log1p(margin)
        a = max(abs(c), low - c, c - high)
        decides = f"today's x{centre:.2f}: an effect from x{source:.2f} (within ±{margin:.0%})"
    return Need(min(_down(pct_of_log(max(a, 0.0))), MAX_NEED_PCT), decides)
