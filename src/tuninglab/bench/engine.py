"""The engine benchmark: planned time per profile, then doublewrite --quick for real (harness
overhead, the baseline's interval)."""

import json
import tempfile
import time
from pathlib import Path

from tuninglab.bench import template
from tuninglab.engine.run import preflight, runner
from tuninglab.recipes import plan as planner
from tuninglab.recipes.load import list_names, load_all
from tuninglab.results.result import Result
from tuninglab.units import human_seconds


def run(say=print):
    """Planned time per profile, then doublewrite --quick for real (harness overhead, the
    baseline's interval)."""
    say("planned time per profile, as a share of its budget (quick 5 min, full 30 min):")
    for name in list_names():
        estimates = planner.profile_estimates(load_all(name))
        for profile, budget in (("quick", 300), ("full", 1800)):
            estimate = estimates[profile]
            say(f"  {name:26} {profile:5} {human_seconds(estimate):>7}  {estimate / budget:.2f}")
    opts = runner.Options(profile="quick", data_dir=Path(tempfile.mkdtemp(prefix="bench-data-")))
    plan, binary, _ = preflight.prepare_named("doublewrite", opts)
    m = plan.experiment.measure
    say("\ndoublewrite --quick for real (the template is built first and not counted):")
    template.ensure(plan, binary, say)
    started = time.monotonic()
    path = runner.run("doublewrite", opts, say)
    wall = time.monotonic() - started
    doc = json.loads(Path(path).read_text())
    workload = len(plan.runs) * (m.warmup + m.duration)
    base = Result(doc).baseline_point.summary("tps")
    say(f"wall time {wall:.1f}s, of which warm-up + measured {workload:.0f}s")
    say(f"harness overhead: {(wall - workload) / wall:.3f} of wall time (target <= 0.10)")
    say(f"quick profile time: {wall / 300:.2f} of the 5-minute budget (target <= 1.00)")
    say(f"baseline 95% CI half-width: {base.half_width_pct():.2f}% of the median (target <= 3%)")
    say(f"(result kept out of data/: {path})")
