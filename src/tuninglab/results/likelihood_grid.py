"""A result's likelihood on a grid of true values, the numerical part of the sitting model
(results/sitting_model.py): the grid itself (fine where results are, sinh-spaced out to where
the priors reach), each result's density at every grid point (its error a scaled t; a
switchback's a mixture of normals to which its per-run excess adds), and a sitting's deviation
as a Gaussian kernel from one grid to another. The model decides what to integrate; this
module how, deterministically."""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache

import numpy as np
from scipy import special

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
# the centre, reaching past each result's 1 - TAIL quantile and then the prior's reach), and
# LOCAL_POINTS around each result, from se/8 apart at its centre to 5 se away.
GLOBAL_POINTS = 81
CENTRE_SCALE = 0.005
TAIL = 1e-4
LOCAL_POINTS = 13
LOCAL_REACH = 3.0       # in the sinh's argument: sinh(3) = 10
LOCAL_SPLIT = 2.0


@dataclass(frozen=True)
class Result:
    """One estimate as the model reads it: log ratio, se (floored), df (capped), switchback."""
    y: float
    s: float
    df: float
    switchback: bool

    @classmethod
    def of(cls, y: float, se: float, df: float, switchback: bool) -> "Result":
        """An estimate's numbers, its se floored (SE_FLOOR) and its df capped (DF_CAP)."""
        return cls(y, max(se, SE_FLOOR), min(df, DF_CAP), switchback)


def grid(centre: float, results: list[Result],
         prior_reach: float) -> tuple[np.ndarray, np.ndarray]:
    """Grid points for mu (and each sitting's v) and their trapezoid weights: sinh-spaced
    around the centre, reaching past every result's far tail and then prior_reach (how far a
    sitting's deviation may go under the priors), and fine around each result."""
    reach = max(abs(r.y - centre) + r.s * float(special.stdtrit(r.df, 1 - TAIL))
                for r in results) + prior_reach
    z = np.linspace(-1.0, 1.0, GLOBAL_POINTS) * math.asinh(reach / CENTRE_SCALE)
    local = np.sinh(np.linspace(-LOCAL_REACH, LOCAL_REACH, LOCAL_POINTS)) / LOCAL_SPLIT
    points = np.concatenate([centre + CENTRE_SCALE * np.sinh(z)]
                            + [r.y + r.s * local for r in results])
    points = np.unique(points)
    points = points[np.concatenate(([True], np.diff(points) > 1e-12 * (1 + abs(centre))))]
    gaps = np.diff(points)
    weights = np.concatenate(([gaps[0]], gaps[:-1] + gaps[1:], [gaps[-1]])) / 2
    return points, weights


def log_t(r: np.ndarray, s: float, df: float) -> np.ndarray:
    """The log density of residuals r under the scaled t (s, df): a result's error with its
    sigma integrated out."""
    c = special.gammaln((df + 1) / 2) - special.gammaln(df / 2) - 0.5 * math.log(df * math.pi)
    return c - math.log(s) - (df + 1) / 2 * np.log1p(r * r / (df * s * s))


@lru_cache(maxsize=1)
def sigma_rule() -> tuple[np.ndarray, np.ndarray]:
    """The tanh-sinh rule's quantiles p (as 1 / (1 + e^-2u), so that neither end rounds to 0
    or 1) and their log weights (summing to 1)."""
    t = SIGMA_STEP * np.arange(-SIGMA_HALF, SIGMA_HALF + 1)
    u = math.pi / 2 * np.sinh(t)
    weights = np.cosh(t) / np.cosh(u) ** 2
    return 1 / (1 + np.exp(-2 * u)), np.log(weights / weights.sum())


def sigma2_nodes(s: float, df: float) -> tuple[np.ndarray, np.ndarray]:
    """sigma^2 at the rule's quantiles of its posterior (s^2 df / chi^2_df) and their log
    weights: the t as a mixture of normals, which a known variance (x^2) then simply adds to."""
    p, log_w = sigma_rule()
    g = special.gammaincinv(df / 2, p) * (2 / df)       # chi^2_df / df at those quantiles
    keep = g > 0                                         # p so small that chi^2 is 0: no mass
    return s * s / g[keep], log_w[keep]


def log_result(v: np.ndarray, r: Result, excess: np.ndarray) -> np.ndarray:
    """log p(y | the sitting's true value v) on the grid: a row for each x node for a
    switchback's result, one row otherwise."""
    resid = r.y - v
    if not r.switchback:
        return log_t(resid, r.s, r.df)[None, :]
    sigma2, log_w = sigma2_nodes(r.s, r.df)
    var = sigma2[None, None, :] + (excess**2)[:, None, None]
    logs = log_w - 0.5 * (np.log(2 * math.pi * var) + (resid * resid)[None, :, None] / var)
    top = logs.max(axis=2)
    return top + np.log(np.exp(logs - top[:, :, None]).sum(axis=2))


def log_sitting(v: np.ndarray, results: list[Result], excess: np.ndarray) -> np.ndarray:
    """log of the product of a sitting's results' densities at its true value v: (x nodes or
    1, grid points)."""
    total = np.zeros((1, v.size))
    for r in results:
        total = total + log_result(v, r, excess)
    return total


def kernels(points: np.ndarray, weights: np.ndarray, taus: np.ndarray,
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


def convolved(kernels: np.ndarray, logs: np.ndarray) -> np.ndarray:
    """log of the kernels applied to exp(logs) ((rows, points) -> (taus, at, rows)), scaled by
    each row's maximum so that nothing underflows that matters."""
    top = logs.max(axis=1, keepdims=True)
    with np.errstate(divide="ignore"):
        return np.log(kernels @ np.exp(logs - top).T) + top.T[None, :, :]
