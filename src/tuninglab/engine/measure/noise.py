"""A host's noise figures as `invoke lab.noise` (tuninglab/calibrate.py) stored them in the work
directory (noise.json): every later result of this host carries them in its provenance
("noise"), and the dry run says from them what precision to expect."""

import json
import math
from pathlib import Path

from scipy.stats import t as student_t

from tuninglab.recipes.duets import duet_obstacle
from tuninglab.recipes.plan import RUN_OVERHEAD_S
from tuninglab.results.duet import DEFAULT_BATCHES

FILE = "noise.json"
DUET_BATCHES = DEFAULT_BATCHES   # a duet half's batches (results/duet.py)


def load(wd: Path, host_id: str) -> dict | None:
    """This host's figures from the work directory, or None (none measured, another host's,
    or a file that is not ours)."""
    try:
        figures = json.loads((Path(wd) / FILE).read_text())
    except (OSError, ValueError):
        return None
    if not isinstance(figures, dict) or figures.get("host_id") != host_id:
        return None
    return figures


def round_sd(figures: dict, plan) -> float:
    """The sd of one round's log ratio this plan should see here, from the figures: a
    switchback's round spread scaled to its block length (per-second noise averages out over
    longer blocks), a duet's half spread to its half's, a restart's run-to-run spread twice
    over (a ratio of two runs). KeyError: the figures have none of the plan's design."""
    if plan.switchback:
        s = figures["switchback"]
        return (s["round_log_ratio_sd_pct"] / 100
                * math.sqrt(s["block_s"] / plan.experiment.measure.duration))
    if plan.duet:
        d = figures["duet"]
        return (d["half_log_ratio_sd_pct"] / 100
                * math.sqrt(d["half_s"] / plan.experiment.measure.duration))
    return figures["restart"]["run_to_run_sd_pct"] / 100 * math.sqrt(2)


def expected_half_width_pct(figures: dict, plan) -> float | None:
    """About how wide (± %) this plan's ratios should come out here, from the figures
    (round_sd over the square root of its rounds; a duet's, duet_half_width_pct); None where
    the plan gives no interval. KeyError: the figures have none of the plan's design."""
    n = plan.experiment.measure.repeats
    if plan.duet:
        return duet_half_width_pct(figures["duet"], plan.experiment.measure.duration, 2 * n)
    if n < 2:
        return None
    se = round_sd(figures, plan) / math.sqrt(n)
    df = n - 1 if plan.switchback else 2 * n - 2
    return round((math.exp(student_t.ppf(0.975, df) * se) - 1) * 100, 1)


def duet_half_width_pct(d: dict, duration: float, halves: int,
                        batches: int = DUET_BATCHES) -> float | None:
    """A duet's own interval (results/duet.py), ± %, from a duet A/A's figures d: the spread
    of a half's log ratio about its place's mean (measured on halves of d["half_s"]; scaled up
    for shorter halves, whose seconds average less, and not down for longer ones: the place's
    worth moves from half to half however long they are), over the square root of the halves,
    at halves - 2 degrees of freedom; or the batches' spread, scaled to this duet's batches,
    where that is larger. None below two repeats (4 halves: one gives no interval) or from an
    A/A of one repeat (no spread of halves measured)."""
    if halves < 4 or d.get("half_log_ratio_sd_pct") is None:
        return None
    sd = d["half_log_ratio_sd_pct"] / 100 * math.sqrt(max(1.0, d["half_s"] / duration))
    df = halves - 2
    batch_sd = d["batch_log_ratio_sd_pct"] / 100
    batch = batch_sd * math.sqrt(d["batch_s"] / max(duration / batches, 1) / batches)
    if batch > sd:
        sd, df = batch, halves * (batches - 1)
    return round((math.exp(student_t.ppf(0.975, df) * sd / math.sqrt(halves)) - 1) * 100, 1)


def duet_in_the_same_time(figures: dict, plan) -> tuple[float, int, float] | None:
    """What a duet of this plan's experiment would give here in about the time the plan takes
    (issue 62: the design with the smaller interval for the minutes): its ± %, its halves and
    their measured seconds; None when the figures hold no duet, the plan is one, or the
    experiment cannot run as one (recipes/duets.py). Its halves are the recipe's runs, or the
    calibration's halves where those are longer (a switchback's blocks are seconds long)."""
    if plan.duet or "duet" not in figures or duet_obstacle(plan.experiment):
        return None
    d, m = figures["duet"], plan.experiment.measure
    seconds = max(m.duration, d["half_s"])
    halves = int(plan.estimate(template_cached=True) // (m.warmup + seconds + RUN_OVERHEAD_S))
    halves -= halves % 2   # whole repeats: one half in each placement
    width = duet_half_width_pct(d, seconds, halves)
    return None if width is None else (width, halves, seconds)
