"""data.check's rule on a held read view ([workload] hold_read_view, engine/measure/read_view.py):
each run of an experiment that holds one records it (summary/read_view) as the recipe asks, and
released it within the measured seconds at the second asked; a run of one that holds none
records none. The regime checks that read the held seconds and the drain
(results/read_view.py) cut each run's series at its recorded release: a release moved in the
file would move the seconds they read.
"""

from tuninglab.contrib.jsonpaths import at, is_number, runs

# sysbench reports each second at t = 1.0, 2.0, ...: the view is released at the first report
# at or after its seconds, which is that second itself unless a report came late.
LATE_S = 1.5


def check_runs(doc: dict, experiment) -> list[str]:
    """Every run whose read view record is not the experiment's; [] when all are."""
    held = experiment.workload.hold_read_view
    problems = []
    for path, run in runs(doc):
        found = (run.get("summary") or {}).get("read_view")
        where = (*path, "summary", "read_view")
        if not held:
            if found is not None:
                problems.append(at(where, "the recipe holds no read view; expected no record"))
            continue
        problems += _check_record(where, found, held, experiment.measure.duration)
    return problems


def _check_record(where, found, held: float, duration: float) -> list[str]:
    if not isinstance(found, dict):
        return [at(where, f"missing; expected the read view the recipe holds for {held:g} s "
                          "(hold_s, released_at_s)")]
    problems = []
    if found.get("hold_s") != held:
        problems.append(at((*where, "hold_s"), f"{found.get('hold_s')!r}; expected {held:g}, "
                                               "the recipe's workload.hold_read_view"))
    released = found.get("released_at_s")
    if not is_number(released) or not held <= released <= min(held + LATE_S, duration):
        problems.append(at((*where, "released_at_s"),
                           f"{released!r}; expected the second the view was released, from "
                           f"{held:g} to {min(held + LATE_S, duration):g} (the recipe's hold, "
                           "within the measured seconds)"))
    return problems
