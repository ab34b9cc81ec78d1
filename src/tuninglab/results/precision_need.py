"""The precision a claim needs: the widest 95% interval, as ± % of the ratio (the convention of
stats.ratio_half_width_pct and the stop rule), at which verdicts.judge can no longer say "too
noisy to tell" for the two outcomes that matter: today's interval centred on the source's ratio S,
or centred on 1 (no effect).

An interval is taken as symmetric on the log scale, [r / e^a, r * e^a] (as every interval of
stats and pooling is), whose half-width in % is sinh(a) * 100, its 90% interval k times as
wide (k the ratio of the 90% and 95% normal quantiles, 0.84; a t quantile on few degrees of
freedom gives a smaller k, so the need is on the safe side). With X the smallest effect worth
knowing, m = ln(1 + X), and the claim's band (verdicts.band: ±X around S, less its part inside
±X of 1):
- a claimed effect (|ln S| above ln(1 + max(X, N))): an interval centred on c answers when its
  90% interval lies inside ±X (a < (m - |ln c|) / k: no effect worth knowing), when it excludes
  1 (a < |ln c|), or when it rules the band out (a < the distance from ln c to the band). The
  need is the tighter of the widths that answer centred on S and centred on 1: an effect just
  above the margin needs no narrower an interval than one that tells it from no effect worth
  knowing.
- a claim of no difference (within X or the source's own noise N): centred on 1, the 90%
  interval must lie within ±X: a * k < m.
The need is a supremum (at exactly that width the interval touches a boundary): it is rounded
down to 0.01%, strictly inside it.

Today's pooled ratio c may lie between 1 and the source's: need_at() is the width that answers
centred there, what a rerun aims at while today's estimate stays where it is (for a claim of
no difference: equivalent, or wholly outside ±X, a < |ln c| - m). At c = S or c = 1 it is at
least need().
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


def _widest(c: float, low: float, high: float, m: float) -> float:
    """The widest log half-width at which an interval centred on c (log scale) gets an answer
    for a claimed effect whose band is [low, high] (log scale, verdicts.band): inside ±m (no
    effect worth knowing), clear of 0 (an effect, or reversed), or clear of the band."""
    return max((m - abs(c)) / TOST_TO_CI, abs(c), low - c, c - high)


def need(source: float, margin: float, source_noise: float = 0.0) -> Need:
    """The claim's need (module docstring) from the source's ratio, the smallest effect worth
    knowing (a fraction, the recipe's margin) and the source's stated noise (a fraction)."""
    if not source > 0:
        raise ValueError(f"the source's ratio must be > 0, got {source!r}")
    if not margin > 0:
        raise ValueError(f"the smallest effect worth knowing must be > 0, got {margin!r}")
    m = math.log1p(margin)
    if verdicts.no_difference_claimed(source, margin, source_noise):
        a = m / TOST_TO_CI
        decides = f"equivalent within ±{margin:.0%} from a difference"
    else:
        low, high = (math.log(b) for b in verdicts.band(source, margin, source_noise))
        a = min(_widest(math.log(source), low, high, m), _widest(0.0, low, high, m))
        decides = f"x{source:.2f} (within ±{margin:.0%}) from no effect"
    return Need(min(_down(pct_of_log(max(a, 0.0))), MAX_NEED_PCT), decides)


def need_at(source: float, margin: float, source_noise: float, centre: float) -> Need:
    """The width at which an interval centred on today's ratio `centre` (oriented as the claim
    reads) gets an answer (module docstring)."""
    if not centre > 0:
        raise ValueError(f"today's ratio must be > 0, got {centre!r}")
    need(source, margin, source_noise)  # the same checks
    c, m = math.log(centre), math.log1p(margin)
    if verdicts.no_difference_claimed(source, margin, source_noise):
        a = max(abs(c) - m, (m - abs(c)) / TOST_TO_CI)
        decides = f"today's x{centre:.2f}: a difference from equivalence within ±{margin:.0%}"
    else:
        low, high = (math.log(b) for b in verdicts.band(source, margin, source_noise))
        a = _widest(c, low, high, m)
        decides = f"today's x{centre:.2f}: an effect from x{source:.2f} (within ±{margin:.0%})"
    return Need(min(_down(pct_of_log(max(a, 0.0))), MAX_NEED_PCT), decides)
