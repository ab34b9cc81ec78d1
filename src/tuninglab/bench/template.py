"""The plan's template datadir, built (or found) before a benchmark starts its clock."""

from pathlib import Path

from tuninglab import files
from tuninglab.engine.host import workdir
from tuninglab.engine.server import datadir


def ensure(plan, binary, say) -> Path:
    """Build (or find) the plan's template first, so benchmarks time only what they measure."""
    with workdir.held(files.default_workdir()) as wd:
        return datadir.ensure(wd, binary, plan.experiment.dataset,
                               plan.experiment.workload.threads, say)
