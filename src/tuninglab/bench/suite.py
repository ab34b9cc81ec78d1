"""`invoke bench`: every benchmark, or the one --only names, each printing its targets as ratios."""

from tuninglab.bench import (duet, engine, noise_control, precision, sandbox, scale, site,
                             sitting_coverage, tpcc, vm)
from tuninglab.errors import UserError

# (--only name, heading, benchmark), in the order `invoke bench` runs them.
BENCHMARKS = (
    ("sandbox", "sandbox", sandbox.run),
    ("vm", "lab VM", vm.run),
    ("site", "site", site.run),
    ("scale", "site with 1,000 contributed results", scale.run),
    ("tpcc", "TPC-C-like workload", tpcc.run),
    ("engine", "engine", engine.run),
    ("precision", "precision: switchback and restart designs", precision.run),
    ("duet", "precision: duet runs, both settings at once on twin servers", duet.run),
    ("noise", "noise control: pinning, dropping the page cache", noise_control.run),
    ("pooling", "pooled estimates: A/A coverage of the 95% interval", sitting_coverage.run),
)

# Run with another as well (precision measures the duets beside the other designs): by name only.
PART_OF_ANOTHER = ("duet",)


def run(only=None, say=print):
    """Speed targets as ratios. Run it on a quiet machine: other work measures itself."""
    names = [name for name, _, _ in BENCHMARKS]
    if only not in (None, *names):
        raise UserError(f"--only: expected {', '.join(names[:-1])} or {names[-1]}, got {only!r}")
    for name, heading, benchmark in BENCHMARKS:
        if only is None and name in PART_OF_ANOTHER:
            continue
        if only in (None, name):
            say(f"== {heading}")
            benchmark(say)
