"""`invoke bench`: every benchmark, or the one --only names, each printing its targets as ratios."""

from tuninglab.bench import engine, sandbox, scale, site, tpcc, vm
from tuninglab.errors import UserError


def run(only=None, say=print):
    """Speed targets as ratios. Run it on a quiet machine: other work measures itself."""
    if only not in (None, "site", "scale", "engine", "sandbox", "vm", "tpcc"):
        raise UserError("--only: expected site, scale, engine, sandbox, vm or tpcc, "
                        f"got {only!r}")
    if only in (None, "sandbox"):
        say("== sandbox")
        sandbox.run(say)
    if only in (None, "vm"):
        say("== lab VM")
        vm.run(say)
    if only in (None, "site"):
        say("== site")
        site.run(say)
    if only in (None, "scale"):
        say("== site with 1,000 contributed results")
        scale.run(say)
    if only in (None, "tpcc"):
        say("== TPC-C-like workload")
        tpcc.run(say)
    if only in (None, "engine"):
        say("== engine")
        engine.run(say)
