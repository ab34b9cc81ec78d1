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

What one tau for the A/As and the claim costs: a class with many calibration sittings that
agree holds tau near their spread even when a claim's own sittings disagree (8 quiet sittings,
three precise results at 8, 10 and 13%: +-1.8%; a precise sitting 30% from two others taken
mostly for its own error's tail, a lopsided interval). An effect that truly differs between
machines of a class is not an A/A's spread; pooling.pool widens by the set's own excess spread,
this model does not (yet).

The computation is deterministic, with nothing to tune per claim: tau and x on fixed nodes
(0 and a geometric ladder, each node carrying its prior's mass between its neighbours), each
sitting's true value v_j = mu + u_j on a grid (each result's t exact on it, a switchback's
t convolved with N(0, x^2) as a mixture of normals over quantiles of its sigma), u_j integrated
by a Gaussian kernel from v_j's grid to mu's (the same grid), the posterior of mu summed over
the nodes and its quantiles read off its cumulative sum. A sitting's results are not averaged
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

from tuninglab.results import calibrations
from tuninglab.results.pooling import Estimate, Pooled

# The half-normal priors' scales (log scale): tau's set by coverage up to a true spread of 10%,
# x's above the ~3% the committed switchback A/As show.
TAU_SCALE = 0.10
EXCESS_SCALE = 0.05
# The nodes of tau and of x: 0, then low * ratio^k up to 4 prior scales (above that the prior
# holds 6e-5 of its mass). tau's reach down to what a precise result resolves; x adds to a
# switchback's own variance, which is never that small, so its ladder starts higher and is
# coarser (each x node is a column of every switchback sitting's convolution).
TAU_LOW, TAU_RATIO = 0.002, 1.35
EXCESS_LOW, EXCESS_RATIO = 0.005, 1.5
# A standard error below this is taken as this: the grid resolves nothing finer, and no
# benchmark's comparison is that precise (0.01%).
SE_FLOOR = 1e-4
# Degrees of freedom above this are this (a t on 10^4 df is a normal to 4 digits).
DF_CAP = 1e4
# A switchback's t as a mixture of normals: its sigma^2 at quantiles p of its posterior
# (s^2 df / chi^2_df), p on a tanh-sinh rule (step SIGMA_STEP, SIGMA_HALF nodes each side of
# the median), whose nodes crowd towards p = 0 and 1: the t's density out to 12 se within 0.3%
# for df 1.2 to 10^4, where equal quantiles (16) fell 10% short at 4 se and 59% at 6.
SIGMA_STEP, SIGMA_HALF = 0.3, 10
# The grid: GLOBAL_POINTS around the results' median, spaced like sinh (CENTRE_SCALE apart at
# the centre, reaching past each result's 1 - TAIL quantile and then PRIOR_REACH), and
# LOCAL_POINTS around each result, from se/8 apart at its centre to 5 se away.
GLOBAL_POINTS = 81
CENTRE_SCALE = 0.005
TAIL = 1e-4
PRIOR_REACH = 5 * 4 * TAU_SCALE   # 5 sd of u at tau's top node
LOCAL_POINTS = 13
LOCAL_REACH = 3.0       # in the sinh's argument: sinh(3) = 10
LOCAL_SPLIT = 2.0
CALIBRATION_PREFIX = "calibration:"   # keeps a calibration's sitting apart from a claim's


@dataclass(frozen=True)
class _Result:
    """One estimate as the model reads it: log ratio, se (floored), df (capped), switchback."""
    y: float
    s: float
    df: float
    switchback: bool


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
              prefix: str = "") -> dict[str, list[_Result]]:
    """The estimates as the model's results, by sitting label (in order of appearance)."""
    flags = paired if paired is not None else [e.paired for e in estimates]
    out: dict[str, list[_Result]] = {}
    for e, sb in zip(estimates, flags):
        out.setdefault(prefix + e.sitting, []).append(
            _Result(e.log_ratio, max(e.se, SE_FLOOR), min(e.df, DF_CAP), bool(sb)))
    return out


# --- nodes and grids --------------------------------------------------------------------------

@lru_cache(maxsize=8)
def _nodes(scale: float, low: float, ratio: float) -> tuple[np.ndarray, np.ndarray]:
    """The nodes of a half-normal(scale) parameter and the log of the prior mass each carries
    (from the geometric midpoint with the node below to that with the node above)."""
    count = int(math.ceil(math.log(4 * scale / low) / math.log(ratio))) + 1
    values = np.concatenate(([0.0], low * ratio ** np.arange(count)))
    cuts = np.concatenate(([0.0], values[1:] / math.sqrt(ratio), [np.inf]))
    mass = np.diff(special.erf(cuts / (math.sqrt(2) * scale)))
    return values, np.log(mass)


def tau_nodes() -> tuple[np.ndarray, np.ndarray]:
    """tau's nodes and the log of their prior masses."""
    return _nodes(TAU_SCALE, TAU_LOW, TAU_RATIO)


def excess_nodes() -> tuple[np.ndarray, np.ndarray]:
    """x's nodes and the log of their prior masses."""
    return _nodes(EXCESS_SCALE, EXCESS_LOW, EXCESS_RATIO)


def _grid(centre: float, results: list[_Result]) -> tuple[np.ndarray, np.ndarray]:
    """Grid points for mu (and each sitting's v) and their trapezoid weights: sinh-spaced
    around the centre, reaching past every result's far tail, and fine around each result."""
    reach = max(abs(r.y - centre) + r.s * float(special.stdtrit(r.df, 1 - TAIL))
                for r in results) + PRIOR_REACH
    z = np.linspace(-1.0, 1.0, GLOBAL_POINTS) * math.asinh(reach / CENTRE_SCALE)
    local = np.sinh(np.linspace(-LOCAL_REACH, LOCAL_REACH, LOCAL_POINTS)) / LOCAL_SPLIT
    points = np.concatenate([centre + CENTRE_SCALE * np.sinh(z)]
                            + [r.y + r.s * local for r in results])
    points = np.unique(points)
    points = points[np.concatenate(([True], np.diff(points) > 1e-12 * (1 + abs(centre))))]
    gaps = np.diff(points)
    weights = np.concatenate(([gaps[0]], gaps[:-1] + gaps[1:], [gaps[-1]])) / 2
    return points, weights


# --- the likelihood ---------------------------------------------------------------------------

def _log_t(r: np.ndarray, s: float, df: float) -> np.ndarray:
    """The log density of residuals r under the scaled t (s, df): a result's error with its
    sigma integrated out."""
    c = special.gammaln((df + 1) / 2) - special.gammaln(df / 2) - 0.5 * math.log(df * math.pi)
    return c - math.log(s) - (df + 1) / 2 * np.log1p(r * r / (df * s * s))


@lru_cache(maxsize=1)
def _sigma_rule() -> tuple[np.ndarray, np.ndarray]:
    """The tanh-sinh rule's quantiles p (as 1 / (1 + e^-2u), so that neither end rounds to 0
    or 1) and their log weights (summing to 1)."""
    t = SIGMA_STEP * np.arange(-SIGMA_HALF, SIGMA_HALF + 1)
    u = math.pi / 2 * np.sinh(t)
    weights = np.cosh(t) / np.cosh(u) ** 2
    return 1 / (1 + np.exp(-2 * u)), np.log(weights / weights.sum())


def _sigma2_nodes(s: float, df: float) -> tuple[np.ndarray, np.ndarray]:
    """sigma^2 at the rule's quantiles of its posterior (s^2 df / chi^2_df) and their log
    weights: the t as a mixture of normals, which a known variance (x^2) then simply adds to."""
    p, log_w = _sigma_rule()
    g = special.gammaincinv(df / 2, p) * (2 / df)       # chi^2_df / df at those quantiles
    keep = g > 0                                         # p so small that chi^2 is 0: no mass
    return s * s / g[keep], log_w[keep]


def _log_result(v: np.ndarray, r: _Result, excess: np.ndarray) -> np.ndarray:
    """log p(y | the sitting's true value v) on the grid: a row for each x node for a
    switchback's result, one row otherwise."""
    resid = r.y - v
    if not r.switchback:
        return _log_t(resid, r.s, r.df)[None, :]
    sigma2, log_w = _sigma2_nodes(r.s, r.df)
    var = sigma2[None, None, :] + (excess**2)[:, None, None]
    logs = log_w - 0.5 * (np.log(2 * math.pi * var) + (resid * resid)[None, :, None] / var)
    top = logs.max(axis=2)
    return top + np.log(np.exp(logs - top[:, :, None]).sum(axis=2))


def _log_sitting(v: np.ndarray, results: list[_Result], excess: np.ndarray) -> np.ndarray:
    """log of the product of a sitting's results' densities at its true value v: (x nodes or
    1, grid points)."""
    total = np.zeros((1, v.size))
    for r in results:
        total = total + _log_result(v, r, excess)
    return total


def _kernels(points: np.ndarray, weights: np.ndarray, taus: np.ndarray,
             at: np.ndarray) -> np.ndarray:
    """The sitting's deviation u ~ N(0, tau^2) as weights from v's grid to each point of `at`,
    for each tau node: (taus, at, points), the normal density times the trapezoid weights. A row
    summing to more than 1 is scaled to 1: tau below the grid's spacing there, the normal is
    not resolved (tau 0: the value at the point itself). One summing to less is left: the
    normal reaches past the grid's end, where nothing is."""
    d = at[:, None] - points[None, :]
    out = np.empty((taus.size, at.size, points.size))
    for k, tau in enumerate(taus):
        if tau == 0:
            out[k] = (np.abs(d) == np.abs(d).min(axis=1, keepdims=True)).astype(float)
        else:
            out[k] = np.exp(-0.5 * (d / tau) ** 2) * (weights / (math.sqrt(2 * math.pi) * tau))
        out[k] /= np.maximum(out[k].sum(axis=1, keepdims=True), 1.0)
    return out


def _convolved(kernels: np.ndarray, logs: np.ndarray) -> np.ndarray:
    """log of the kernels applied to exp(logs) ((rows, points) -> (taus, at, rows)), scaled by
    each row's maximum so that nothing underflows that matters."""
    top = logs.max(axis=1, keepdims=True)
    with np.errstate(divide="ignore"):
        return np.log(kernels @ np.exp(logs - top).T) + top.T[None, :, :]


@lru_cache(maxsize=64)
def _calibration_log_lik(calibration: tuple[Estimate, ...],
                         paired: tuple[bool, ...]) -> np.ndarray:
    """log p(the A/A calibrations | tau, x) on the nodes (taus, xs): each sitting's results
    given its true value v, v ~ N(0, tau^2) integrated on the sitting's own grid."""
    taus, _ = tau_nodes()
    excess, _ = excess_nodes()
    total = np.zeros((taus.size, excess.size))
    for results in _sittings(calibration, paired, CALIBRATION_PREFIX).values():
        points, weights = _grid(0.0, results)
        kernels = _kernels(points, weights, taus, np.array([0.0]))
        total = total + _convolved(kernels, _log_sitting(points, results, excess))[:, 0, :]
    return total


# --- the posterior ----------------------------------------------------------------------------

@dataclass(frozen=True, eq=False)
class Posterior:
    """The posterior of mu on its grid (density and cumulative distribution at the points), and
    of tau and x on their nodes (weights summing to 1)."""
    points: np.ndarray
    density: np.ndarray
    cdf: np.ndarray
    taus: np.ndarray
    tau_weights: np.ndarray
    excess: np.ndarray
    excess_weights: np.ndarray

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


def posterior(estimates: list[Estimate], calibration: list[Estimate],
              paired: Sequence[bool] | None = None,
              calibration_paired: Sequence[bool] | None = None) -> Posterior:
    """The joint posterior of mu, tau and x given the claim's estimates and the host class's
    A/A calibrations, marginalised (the module's model). paired / calibration_paired: whether
    each estimate is a switchback's comparison (None: each estimate's own, Estimate.paired)."""
    if not estimates:
        raise ValueError("nothing to pool: no estimate")
    _check(estimates, paired, "estimate")
    _check(calibration, calibration_paired, "calibration estimate")
    sittings = list(_sittings(estimates, paired).values())
    results = [r for group in sittings for r in group]
    taus, log_tau = tau_nodes()
    excess, log_x = excess_nodes()
    cal = _calibration_log_lik(tuple(calibration), tuple(
        calibration_paired if calibration_paired is not None
        else [e.paired for e in calibration]))
    points, weights = _grid(float(np.median([r.y for r in results])), results)
    kernels = _kernels(points, weights, taus, points)
    logs = log_tau[:, None, None] + log_x[None, None, :] + cal[:, None, :]
    for group in sittings:                                        # (taus, points, xs or 1)
        logs = logs + _convolved(kernels, _log_sitting(points, group, excess))
    joint = np.exp(logs - logs.max())
    density = joint.sum(axis=(0, 2))
    cdf = np.concatenate(([0.0], np.cumsum(_segments(points, density))))
    by_node = (joint * weights[None, :, None]).sum(axis=1)
    return Posterior(points, density / cdf[-1], cdf / cdf[-1], taus,
                     by_node.sum(axis=1) / by_node.sum(), excess,
                     by_node.sum(axis=0) / by_node.sum())


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
         calibration_paired: Sequence[bool] | None = None) -> Pooled:
    """The pooled ratio of the estimates (mu's posterior median, back-transformed) and its
    equal-tailed intervals at `confidence` and at 2 * confidence - 1, from the module's model;
    calibration: the host class's A/A estimates (calibrations.aa_estimates of each record, or
    calibration_of). paired / calibration_paired flag each estimate that is a switchback's (its
    per-run excess); None: each estimate's own (Estimate.paired). between_sd is tau's posterior
    median."""
    if not 0.5 < confidence < 1:
        raise ValueError(f"confidence must be between 0.5 and 1 (exclusive); got {confidence}")
    post = posterior(estimates, calibration, paired, calibration_paired)
    q = [post.quantile(p) for p in (0.5, (1 - confidence) / 2, (1 + confidence) / 2,
                                    1 - confidence, confidence)]
    k, n = len(estimates), len(_sittings(estimates, paired))
    cal_sittings = len({e.sitting for e in calibration})
    tau = node_median(post.taus, post.tau_weights)
    words = (f"posterior median of a half-normal prior (scale {TAU_SCALE:.0%}) updated by "
             f"{cal_sittings} A/A calibration sitting{'s' * (cal_sittings != 1)} of the host "
             f"class and these {n} sitting{'s' * (n != 1)}")
    return Pooled(*(math.exp(v) for v in q), k, n, tau, words,
                  method_text(k, n, cal_sittings, confidence))


def method_text(k: int, sittings: int, cal_sittings: int, confidence: float = 0.95) -> str:
    """The model's method in one sentence."""
    return (f"pooled over {k} result{'s' * (k != 1)} from {sittings} sitting"
            f"{'s' * (sittings != 1)} by a Bayesian random-effects model: each result's own "
            "error integrated from its standard error and degrees of freedom, a switchback's "
            "per-run excess and the between-sitting sd given half-normal priors (scales "
            f"{EXCESS_SCALE:.0%}, {TAU_SCALE:.0%}) and the host class's {cal_sittings} A/A "
            f"calibration sitting{'s' * (cal_sittings != 1)} in the same likelihood; "
            f"{confidence:.0%} CI: the posterior's equal-tailed interval")


def calibration_of(records: list[dict]) -> tuple[list[Estimate], list[bool]]:
    """The records' A/A estimates (calibrations.aa_estimates: each labelled with its record's
    host id, a switchback's flagged as paired) and, for each, whether it is a switchback's."""
    estimates = [e for record in records for e in calibrations.aa_estimates(record)]
    return estimates, [e.paired for e in estimates]
