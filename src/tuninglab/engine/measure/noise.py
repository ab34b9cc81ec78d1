"""A host's noise figures as `invoke lab.noise` (tuninglab/calibrate.py) stored them in the work
directory (noise.json): every later result of this host carries them in its provenance
("noise"), and the dry run says from them what precision to expect."""

import json
import math
from pathlib import Path

from scipy.stats import t as student_t

FILE = "noise.json"


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


def expected_half_width_pct(figures: dict, plan) -> float | None:
    """About how wide (± %) this plan's ratios should come out here, from the figures: a
    switchback's round spread scaled to its block length (per-second noise averages out over
    longer blocks), a restart's run-to-run spread as it is (it comes per run)."""
    m = plan.experiment.measure
    n = m.repeats
    if n < 2:
        return None
    if plan.switchback:
        s = figures["switchback"]
        sd = s["round_log_ratio_sd_pct"] / 100 * math.sqrt(s["block_s"] / m.duration)
        se, df = sd / math.sqrt(n), n - 1
    else:
        sd = figures["restart"]["run_to_run_sd_pct"] / 100
        se, df = sd * math.sqrt(2 / n), 2 * n - 2
    return round((math.exp(student_t.ppf(0.975, df) * se) - 1) * 100, 1)
