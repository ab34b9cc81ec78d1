"""What a duet (engine/run/duet.py: two points at once on twin servers, each on half the
machine) can measure, as the planner and data.check ask it."""

# Sweeps whose question is the machine itself: on half of it (a duet's server has half the
# CPUs) they would answer another one.
WHOLE_MACHINE = ("server.cpus", "workload.threads")


def duet_obstacle(experiment) -> str | None:
    """Why this experiment cannot run its points at once on twin servers, or None. Each
    server of a duet has half the CPUs (one of two here) and shares the device: a sweep
    about the CPUs or the load's concurrency asks about the whole machine, and a load
    measured over a whole run (a scan, the TPC-C-like count) has no seconds to pair; a recipe
    says where its claim needs the whole machine too ([measure] whole_machine)."""
    r, sweep = experiment.recipe, experiment.sweep
    if experiment.measure.whole_machine:
        return f"the recipe's claim needs the whole machine: {experiment.measure.whole_machine}"
    if sweep.setting in WHOLE_MACHINE:
        return f"the sweep changes {sweep.setting}, a question about the whole machine"
    if len(sweep.values) != 2:
        return (f"the sweep has {len(sweep.values)} points; a duet compares two (a variant "
                "with two values can)")
    if r.cpus or experiment.measure.pin:
        return "the recipe places the server on CPUs of its own (server.cpus, measure.pin)"
    if r.in_lab_vm:
        return "the recipe runs in the lab VM, which holds one server"
    return unpaired_load(experiment.workload)


def unpaired_load(workload) -> str | None:
    """Why a load has no per-second throughput to compare (a switchback's blocks, a duet's
    seconds), or None."""
    if not workload.timed:
        return "a scan is timed once per run, not second by second"
    if workload.is_tpcc:
        return ("the TPC-C-like workload counts its new-order transactions over a whole run, "
                "not second by second")
    return None
