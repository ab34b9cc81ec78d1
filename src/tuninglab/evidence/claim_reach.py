"""What one new result from this host brings to a claim's pooled interval (claim_status.py): the
pooled interval with it added, as the verdict will pool it (results/sitting_model.py), and the
fewest rounds that bring it within the need, or why no number of rounds from this sitting does."""

import dataclasses
import math
from dataclasses import dataclass

from tuninglab.evidence import claim_verdicts
from tuninglab.recipes import plan as planner
from tuninglab.recipes.model import MAX_REPEATS
from tuninglab.results import pooling, precision_need, sitting_model, stats
from tuninglab.results.precision_need import Need

# The pooled half-width a rerun aims at, as a share of the need: a little inside it (the new
AIM_INSIDE = 0.9  # result moves the pooled ratio, and the need with it: precision_need.need_at)
# Below this many calibrated machines a class's spread is mostly its prior's, and out of reach
FEW_CALIBRATIONS = 3  # names `invoke lab.noise` (one precise result: ±22% with none, ±4% with 6)
# Out of reach from one sitting, a run still adds it: to within this share of the narrowest
# pooled interval this sitting can give (the effect's own spread between machines leaves one
TOWARD = 0.1  # machine's share of the interval bounded, whatever its rounds).


@dataclass(frozen=True)
class Reach:
    """One new result that brings the pooled interval within the need."""
    rounds: int
    seconds: float
    result_pct: float      # that result's own 95% half-width: its stop rule's aim
    pooled_pct: float      # the pooled half-width it gives


def _plan_of(e, rounds: int, design: str):
    bigger = dataclasses.replace(e.measure, repeats=max(rounds, e.measure.repeats))
    return planner.build(dataclasses.replace(e, measure=bigger), 1, design)


def new_estimate(centre: float, sd: float, rounds: int, design: str,
                 sitting: str) -> pooling.Estimate:
    """A new result of `rounds` rounds as it pools: a switchback's rounds paired (rounds - 1
    df), a duet's repeats of two halves with their places cancelled (paired, halves - 2 df:
    pooling.placed_estimate), a restart's two samples (2 rounds - 2 df)."""
    df = rounds - 1 if design == "switchback" else 2 * rounds - 2
    return pooling.Estimate(centre, sd / math.sqrt(rounds), df, sitting, design != "restart")


def pooled_with(existing: list, centre: float, sd: float, rounds: int, design: str,
                calibration: tuple, sitting: str) -> pooling.Pooled:
    """The pooled interval with one new result of `rounds` rounds added."""
    new = new_estimate(centre, sd, rounds, design, sitting)
    return sitting_model.pool(existing + [new], list(calibration))


@dataclass(frozen=True)
class Pool:
    """An evidence set's pool as it would be with one new result from this host: the estimates
    pooled now, the new one's log ratio (today's pooled one), the host class's A/A calibrations
    (claim_verdicts.calibration) and this host's sitting."""
    existing: list
    centre: float = 0.0
    calibration: tuple = ()
    sitting: str = "this host"

    def half(self, sd: float, rounds: int, design: str) -> float:
        pooled = pooled_with(self.existing, self.centre, sd, rounds, design, self.calibration,
                             self.sitting)
        return claim_verdicts.pooled_ratio(pooled).half_width_pct

    def out_of_reach(self, best: float, rounds: int) -> str:
        """Why no result of this sitting brings the pooled interval within the need, when its
        most rounds leave it at ±best%."""
        cal = len({e.sitting for e in self.calibration})
        more = " (and `invoke lab.noise` on each: the class's calibrations narrow it)" \
            if cal < FEW_CALIBRATIONS else ""
        return (f"out of reach from this sitting: {rounds} rounds at this host's per-round "
                f"noise leave the pooled interval ±{best:.1f}% (what the host class's "
                f"{cal} A/A calibration sitting{'s' * (cal != 1)} leave of the between-"
                "sitting spread, and the other sittings' own noise): it needs results from "
                f"more sittings{more}")


def reach(pool: Pool, need: Need, plan, sd: float) -> Reach | str:
    """The fewest rounds of a new result that bring the pooled interval within AIM_INSIDE of
    the need (a bisection: more rounds never widen it), or why none does."""
    best = pool.half(sd, MAX_REPEATS, plan.design)
    if best > need.pct * AIM_INSIDE:
        return pool.out_of_reach(best, MAX_REPEATS)
    return _fewest(pool, plan, sd, need.pct * AIM_INSIDE)


def toward(pool: Pool, plan, sd: float) -> Reach:
    """Where no result of this sitting reaches the need (reach's why), what its sitting still
    brings: the fewest rounds that take the pooled interval within TOWARD of the narrowest
    this sitting can make it (more rounds buy almost nothing; more machines do)."""
    return _fewest(pool, plan, sd, pool.half(sd, MAX_REPEATS, plan.design) * (1 + TOWARD))


def _fewest(pool: Pool, plan, sd: float, target: float) -> Reach:
    """The fewest rounds (a bisection: more rounds never widen it) whose pooled interval is
    within the target, with the time they take and the new result's own half-width."""
    design = plan.design
    low, high = max(2, plan.experiment.measure.repeats), MAX_REPEATS
    while low < high:
        mid = (low + high) // 2
        low, high = (mid + 1, high) if pool.half(sd, mid, design) > target else (low, mid)
    new = new_estimate(0.0, sd, low, design, "")
    own = precision_need.pct_of_log(stats.t_quantile(0.95, new.df) * new.se)
    return Reach(low, _plan_of(plan.experiment, low, plan.design).estimate(),
                 min(max(round(own, 2), 0.01), precision_need.MAX_NEED_PCT),
                 pool.half(sd, low, design))
