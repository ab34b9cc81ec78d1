"""One comparison from several results, by a Bayesian random-effects model (issue 59): the
successor of pooling.pool's interval, and what every verdict and claims.status pool by.

Why another model: pooling.pool takes the between-sitting sd tau from the host class's A/A
calibrations as a moment estimate (mean of y^2 - se^2, truncated at 0) and a t quantile on
calibration sittings - 1 degrees of freedom. With few sittings that estimate carries about 0.08
effective degrees of freedom, so its t(1) = 12.7 quantile is arbitrary, and the interval is not
even monotone in a result's own error (one result with se 0, 0.5, 1, 2, 4% gave +-14.4, 8.1,
5.0, 5.9, 11.0%). Here everything uncertain is integrated instead of estimated and plugged in.

The model. Result i of sitting j has log ratio y_i = mu + u_j + e_i:
- mu, the effect: a flat prior;
- u_j ~ N(0, tau^2), the sitting's deviation, shared by the sitting's results (a sitting is
  the Estimates' label: one machine instance);
- e_i ~ N(0, sigma_i^2), plus x^2 for a switchback's result. sigma_i, the result's own error,
  is known only through its s_i^2 on df_i: with the scale-invariant prior 1/sigma it is
  integrated out exactly, and y_i given mu + u_j is then a scaled t (s_i, df_i): a result from
  3 repeats counts as what it is, whatever its accidental se. x is the switchback's per-run
  excess: its paired se sees round-to-round noise, not how far a whole run lands. Two
  switchback A/As on one machine an hour apart gave +5.2% (z = 3.9) and -1.7%, and the
  committed switchback A/As scatter 2.8 times as much (in variance) as their se says while the
  restarts' A/As scatter less than theirs: a per-run excess of about 3%, not a sitting effect
  (which the restarts would show too). x is a parameter, not a fixed 3%: a host class whose
  switchbacks run longer or on another disk has its own, and its A/As say so.
- tau ~ half-normal(TAU_SCALE = 10%), x ~ half-normal(EXCESS_SCALE = 5%). The scale of tau's
  prior is what a new class (2 A/A sittings) rests on: with 5% the interval under-covered a true
  spread of 10% (0.93 at 3 sittings, 0.85 at 1 in the audit's simulation); with 10% `invoke
  bench --only pooling` shows 0.92 or more at 10% and 0.94 or more up to 5%, the lowest (6
  sittings) 0.952 and 0.955 when rerun with 3000 trials. 15% moved those by no more than the
  simulation's own error and widened the interval of 1 sitting by a fifth.
The host class's A/A calibrations (calibrations.aa_estimates) are results of the same model
with mu = 0 known: the same tau, the same x, in the same likelihood, so a class with many
calibration sittings gets a narrow posterior of tau and x, a new class little more than the
priors. A calibration's sitting is its label (the record's host id: one machine's A/As share
its deviation, as a claim's results do), never shared with a claim's sitting of the same label:
an A/A compares other runs, and sharing u_j would let one machine's A/A shift the claim's
estimate by as much, an assumption nothing measured supports.

The setting's own spread. A setting's effect may itself differ from machine to machine (a
disk that flushes slower gains more from fewer flushes), by more than any A/A moves: a claim's
sitting j deviates by u_j + d_j, d_j ~ N(0, delta^2), delta ~ half-normal(DELTA_SCALE), learnt
from the claim's own sittings only (an A/A has no effect to differ). With the committed
calibrations fixed (8 AMD EPYC machines: tau about 0.9%), tau alone covered a true spread of 10%
0.65 to 0.74 of the time and one of 3% 0.89; `invoke bench --only pooling`'s fixed-calibration
block set DELTA_SCALE: at 5% a spread of 10% was covered 0.87 to 0.88 of the time, at 7% 0.91
to 0.93, at 8% 0.93 to 0.95 (0.97 or more up to 5%), at 10% 0.95 to 0.98. Its cost falls on
one machine, whose interval must then hold what a second machine might show: with results as
noisy as the committed ones, one machine's median half-width went from +-14.4% to +-22.7%,
three machines' from +-5.6% to +-10.0%, six's from +-3.7% to +-5.8%. The tau a class's A/As
give still holds the claim's sittings together where they agree (8 quiet sittings, three
precise results at 8, 10 and 13%: delta is what widens that interval, not tau).

The computation is deterministic, with nothing to tune per claim: tau and x on fixed nodes
(0 and a geometric ladder, each node carrying its prior's mass between its neighbours), a claim
sitting's sd c = sqrt(tau^2 + delta^2) on the same ladder (each (tau, c) pair carrying the mass
of delta that puts c in its cell), each sitting's true value v_j on a grid (each result's t
exact on it, a switchback's t convolved with N(0, x^2) as a mixture of normals over quantiles
of its sigma: results/likelihood_grid.py), its deviation integrated by a Gaussian kernel from
v_j's grid to mu's (the same grid), the posterior of mu summed over the nodes and its quantiles
read off its cumulative sum. A sitting's results are not averaged
first: the t of a result from few repeats down-weights itself. Pooling a claim takes a few
milliseconds (the class's calibration part is cached).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache
from typing import Sequence

import numpy as np
from scipy import special

from tuninglab.results import calibrations, likelihood_grid
from tuninglab.results.pooling import Estimate, Pooled

# The half-normal priors' scales (log scale): tau's set by coverage up to a true spread of 10%,
# x's above the ~3% the committed switchback A/As show, and delta's (the setting's own
# between-machine spread, which no A/A measures) set by coverage with the class's calibrations
# fixed: `invoke bench --only pooling`'s fixed-calibration block.
TAU_SCALE = 0.10
EXCESS_SCALE = 0.05
DELTA_SCALE = 0.08
# The nodes of tau and of x: 0, then low * ratio^k up to 4 prior scales (above that the prior
# holds 6e-5 of its mass). tau's reach down to what a precise result resolves; x adds to a
# switchback's own variance, which is never that small, so its ladder starts higher and is
# coarser (each x node is a column of every switchback sitting's convolution). A claim's
# sitting deviates by sqrt(tau^2 + delta^2): its nodes are tau's ladder, reaching 4 times the
# two scales combined.
TAU_LOW, TAU_RATIO = 0.002, 1.35
EXCESS_LOW, EXCESS_RATIO = 0.005, 1.5
# How far a sitting's deviation may reach under the priors: 5 sd of u + d at their top nodes.
PRIOR_REACH = 5 * 4 * math.hypot(TAU_SCALE, DELTA_SCALE)
CALIBRATION_PREFIX = "calibration:"   # keeps a calibration's sitting apart from a claim's


# --- input ----------------------------------------------------------------------------------

def _check(estimates: Sequence[Estimate], paired: Sequence[bool] | None, what: str) -> None:
    """pooling._check's rules for each estimate, named by its list, and the flags' length."""
    for i, e in enumerate(estimates):
        if not (math.isfinite(e.log_ratio) and math.isfinite(e.se) and e.se >= 0 and e.df > 0):
            raise ValueError(f"{what} {i} ({e}): expected a finite log ratio, a standard "
                             "error >= 0 and degrees of freedom > 0")
    if paired is not None and len(paired) != len(estimates):
        raise ValueError(f"{len(paired)} switchback flags for {len(estimates)} {what}s; "
                         "expected one flag per estimate")


def _sittings(estimates: Sequence[Estimate], paired: Sequence[bool] | None,
              prefix: str = "") -> dict[str, list[likelihood_grid.Result]]:
    """The estimates as the model's results, by sitting label (in order of appearance)."""
    flags = paired if paired is not None else [e.paired for e in estimates]
    out: dict[str, list[likelihood_grid.Result]] = {}
    for e, sb in zip(estimates, flags):
        out.setdefault(prefix + e.sitting, []).append(
            likelihood_grid.Result.of(e.log_ratio, e.se, e.df, bool(sb)))
    return out


# --- nodes and grids --------------------------------------------------------------------------

def _ladder(top: float, low: float, ratio: float) -> tuple[np.ndarray, np.ndarray]:
    """0, then low * ratio^k up to `top`, and the cuts between neighbouring nodes (the
    geometric midpoints; 0 below the first, infinity above the last)."""
    count = int(math.ceil(math.log(top / low) / math.log(ratio))) + 1
    values = np.concatenate(([0.0], low * ratio ** np.arange(count)))
    return values, np.concatenate(([0.0], values[1:] / math.sqrt(ratio), [np.inf]))


def _half_normal_cdf(x: np.ndarray, scale: float) -> np.ndarray:
    return special.erf(x / (math.sqrt(2) * scale))


@lru_cache(maxsize=8)
def _nodes(scale: float, low: float, ratio: float) -> tuple[np.ndarray, np.ndarray]:
    """The nodes of a half-normal(scale) parameter and the log of the prior mass each carries
    (from the geometric midpoint with the node below to that with the node above)."""
    values, cuts = _ladder(4 * scale, low, ratio)
    return values, np.log(np.diff(_half_normal_cdf(cuts, scale)))


def tau_nodes() -> tuple[np.ndarray, np.ndarray]:
    """tau's nodes and the log of their prior masses."""
    return _nodes(TAU_SCALE, TAU_LOW, TAU_RATIO)


def excess_nodes() -> tuple[np.ndarray, np.ndarray]:
    """x's nodes and the log of their prior masses."""
    return _nodes(EXCESS_SCALE, EXCESS_LOW, EXCESS_RATIO)


@lru_cache(maxsize=8)
def spread_nodes_of(delta_scale: float) -> tuple[np.ndarray, np.ndarray]:
    """The nodes of a claim's sitting sd c = sqrt(tau^2 + delta^2) and, for each tau node,
    the log of the prior mass of delta that puts c in each node's cell: (c values, (tau nodes,
    c nodes)); -inf where no delta does (c below that tau). tau's node values fall on c's
    ladder, so each (tau, c) pair's mass is exact for the nodes' values, as tau's own is."""
    taus, _ = tau_nodes()
    values, cuts = _ladder(4 * math.hypot(TAU_SCALE, delta_scale), TAU_LOW, TAU_RATIO)
    t2 = (taus**2)[:, None]
    reach = np.sqrt(np.maximum(cuts[None, :] ** 2 - t2, 0.0))   # delta at each cut, per tau
    mass = np.diff(_half_normal_cdf(reach, delta_scale) if delta_scale > 0
                   else (reach > 0).astype(float), axis=1)
    with np.errstate(divide="ignore"):
        return values, np.log(np.maximum(mass, 0.0))


@lru_cache(maxsize=64)
def _calibration_log_lik(calibration: tuple[Estimate, ...],
                         paired: tuple[bool, ...]) -> np.ndarray:
    """log p(the A/A calibrations | tau, x) on the nodes (taus, xs): each sitting's results
    given its true value v, v ~ N(0, tau^2) integrated on the sitting's own grid."""
    taus, _ = tau_nodes()
    excess, _ = excess_nodes()
    total = np.zeros((taus.size, excess.size))
    for results in _sittings(calibration, paired, CALIBRATION_PREFIX).values():
        points, weights = likelihood_grid.grid(0.0, results, PRIOR_REACH)
        kernels = likelihood_grid.kernels(points, weights, taus, np.array([0.0]))
        total = total + likelihood_grid.convolved(kernels, likelihood_grid.log_sitting(points, results, excess))[:, 0, :]
    return total


# --- the posterior ----------------------------------------------------------------------------

@dataclass(frozen=True, eq=False)
class Posterior:
    """The posterior of mu on its grid (density and cumulative distribution at the points), and
    of tau, x and a claim's sitting sd c = sqrt(tau^2 + delta^2) on their nodes (weights
    summing to 1)."""
    points: np.ndarray
    density: np.ndarray
    cdf: np.ndarray
    taus: np.ndarray
    tau_weights: np.ndarray
    excess: np.ndarray
    excess_weights: np.ndarray
    spreads: np.ndarray
    spread_weights: np.ndarray

    def quantile(self, p: float) -> float:
        """mu's p-quantile, the density taken log-linear between grid points (exact for an
        exponential tail, where a linear cumulative distribution would reach p too late)."""
        i = int(np.clip(np.searchsorted(self.cdf, p) - 1, 0, self.points.size - 2))
        a, gap = self.points[i], self.points[i + 1] - self.points[i]
        fa, fb = self.density[i], self.density[i + 1]
        left = p - self.cdf[i]
        if fa <= 0 or fb <= 0 or abs(math.log(fb / fa)) < 1e-9:
            return float(a + gap * left / max(self.cdf[i + 1] - self.cdf[i], 1e-300))
        rate = math.log(fb / fa) / gap
        return float(a + math.log1p(rate * left / fa) / rate)


def _segments(points: np.ndarray, density: np.ndarray) -> np.ndarray:
    """The mass between neighbouring grid points, the density log-linear between them."""
    gap, fa, fb = np.diff(points), density[:-1], density[1:]
    with np.errstate(divide="ignore", invalid="ignore"):
        ratio = np.log(fb / fa)
        exact = gap * (fb - fa) / ratio
    flat = ~np.isfinite(exact) | (np.abs(ratio) < 1e-9)
    return np.where(flat, gap * (fa + fb) / 2, exact)


def _logsumexp(a: np.ndarray, axis: int) -> np.ndarray:
    top = np.max(a, axis=axis, keepdims=True)
    top = np.where(np.isfinite(top), top, 0.0)
    with np.errstate(divide="ignore"):
        return np.squeeze(np.log(np.exp(a - top).sum(axis=axis, keepdims=True)) + top, axis)


def posterior(estimates: list[Estimate], calibration: list[Estimate],
              paired: Sequence[bool] | None = None,
              calibration_paired: Sequence[bool] | None = None,
              delta_scale: float | None = None) -> Posterior:
    """The joint posterior of mu, tau, delta and x given the claim's estimates and the host
    class's A/A calibrations, marginalised (the module's model). paired / calibration_paired:
    whether each estimate is a switchback's comparison (None: each estimate's own,
    Estimate.paired); delta_scale: delta's prior scale (None: DELTA_SCALE; 0: an effect the
    same on every machine, what the benchmark compares against)."""
    if not estimates:
        raise ValueError("nothing to pool: no estimate")
    _check(estimates, paired, "estimate")
    _check(calibration, calibration_paired, "calibration estimate")
    sittings = list(_sittings(estimates, paired).values())
    results = [r for group in sittings for r in group]
    taus, log_tau = tau_nodes()
    excess, log_x = excess_nodes()
    spreads_, log_pair = spread_nodes_of(DELTA_SCALE if delta_scale is None else delta_scale)
    cal = _calibration_log_lik(tuple(calibration), tuple(
        calibration_paired if calibration_paired is not None
        else [e.paired for e in calibration]))
    # The A/As see tau (and x), the claim's sittings c: tau summed out first, per (c, x).
    prior = log_tau[:, None, None] + log_pair[:, :, None] + log_x[None, None, :] \
        + cal[:, None, :]                                           # (taus, cs, xs)
    points, weights = likelihood_grid.grid(float(np.median([r.y for r in results])), results,
                                            PRIOR_REACH)
    kernels = likelihood_grid.kernels(points, weights, spreads_, points)
    claim = np.zeros((spreads_.size, points.size, 1))
    for group in sittings:                                          # (cs, points, xs or 1)
        claim = claim + likelihood_grid.convolved(kernels, likelihood_grid.log_sitting(points, group, excess))
    logs = _logsumexp(prior, 0)[:, None, :] + claim                 # (cs, points, xs)
    top = logs.max()
    joint = np.exp(logs - top)
    density = joint.sum(axis=(0, 2))
    cdf = np.concatenate(([0.0], np.cumsum(_segments(points, density))))
    by_node = (joint * weights[None, :, None]).sum(axis=1)          # (cs, xs)
    claim_mass = (np.exp(claim - claim.max()) * weights[None, :, None]).sum(axis=1)
    tau_part = (np.exp(prior - prior.max()) * np.broadcast_to(
        claim_mass, (spreads_.size, excess.size))[None, :, :]).sum(axis=(1, 2))
    return Posterior(points, density / cdf[-1], cdf / cdf[-1], taus, tau_part / tau_part.sum(),
                     excess, by_node.sum(axis=0) / by_node.sum(),
                     spreads_, by_node.sum(axis=1) / by_node.sum())


def spreads(calibration: list[Estimate]) -> tuple[float, float]:
    """The posterior medians of tau (the between-sitting sd) and x (a switchback's per-run
    excess) given the A/A calibrations alone (each estimate's Estimate.paired): what a host
    class's records say before any claim's results."""
    taus, log_tau = tau_nodes()
    excess, log_x = excess_nodes()
    logs = log_tau[:, None] + log_x[None, :] + _calibration_log_lik(
        tuple(calibration), tuple(e.paired for e in calibration))
    joint = np.exp(logs - logs.max())
    return node_median(taus, joint.sum(axis=1)), node_median(excess, joint.sum(axis=0))


def node_median(values: np.ndarray, weights: np.ndarray) -> float:
    """The median of a parameter's posterior on its nodes (the node where half is reached)."""
    return float(values[np.searchsorted(np.cumsum(weights) / weights.sum(), 0.5)])


def pool(estimates: list[Estimate], calibration: list[Estimate], confidence: float = 0.95,
         paired: Sequence[bool] | None = None,
         calibration_paired: Sequence[bool] | None = None,
         delta_scale: float | None = None) -> Pooled:
    """The pooled ratio of the estimates (mu's posterior median, back-transformed) and its
    equal-tailed intervals at `confidence` and at 2 * confidence - 1, from the module's model;
    calibration: the host class's A/A estimates (calibrations.aa_estimates of each record, or
    calibration_of). paired / calibration_paired flag each estimate that is a switchback's (its
    per-run excess); None: each estimate's own (Estimate.paired); delta_scale: as posterior
    takes it. between_sd is the posterior median of a claim's sitting sd,
    sqrt(tau^2 + delta^2)."""
    if not 0.5 < confidence < 1:
        raise ValueError(f"confidence must be between 0.5 and 1 (exclusive); got {confidence}")
    post = posterior(estimates, calibration, paired, calibration_paired, delta_scale)
    q = [post.quantile(p) for p in (0.5, (1 - confidence) / 2, (1 + confidence) / 2,
                                    1 - confidence, confidence)]
    k, n = len(estimates), len(_sittings(estimates, paired))
    cal_sittings = len({e.sitting for e in calibration})
    spread = node_median(post.spreads, post.spread_weights)
    words = (f"posterior median of a machine's own spread (half-normal priors: a comparison of "
             f"nothing's, scale {TAU_SCALE:.0%}, updated by {cal_sittings} A/A calibration "
             f"sitting{'s' * (cal_sittings != 1)} of the host class; the setting's effect's, "
             f"scale {DELTA_SCALE:.0%}) and these {n} sitting{'s' * (n != 1)}")
    return Pooled(*(math.exp(v) for v in q), k, n, spread, words,
                  method_text(k, n, cal_sittings, confidence))


def method_text(k: int, sittings: int, cal_sittings: int, confidence: float = 0.95) -> str:
    """The model's method in one sentence."""
    return (f"pooled over {k} result{'s' * (k != 1)} from {sittings} sitting"
            f"{'s' * (sittings != 1)} by a Bayesian random-effects model: each result's own "
            "error integrated from its standard error and degrees of freedom, a switchback's "
            "per-run excess, the between-sitting sd and how far the setting's effect itself "
            f"differs between machines given half-normal priors (scales {EXCESS_SCALE:.0%}, "
            f"{TAU_SCALE:.0%}, {DELTA_SCALE:.0%}) and the host class's {cal_sittings} A/A "
            f"calibration sitting{'s' * (cal_sittings != 1)} in the same likelihood; "
            f"{confidence:.0%} CI: the posterior's equal-tailed interval")


def calibration_of(records: list[dict]) -> tuple[list[Estimate], list[bool]]:
    """The records' A/A estimates (calibrations.aa_estimates: each labelled with its record's
    host id, a switchback's flagged as paired) and, for each, whether it is a switchback's."""
    estimates = [e for record in records for e in calibrations.aa_estimates(record)]
    return estimates, [e.paired for e in estimates]
