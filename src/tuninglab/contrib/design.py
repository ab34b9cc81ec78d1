"""data.check's rules on a result's design (contrib/experiment.py calls them): restart or
switchback as the recipe and the server allow, the runs of that design's shape, and a
switchback's fallback to restart recorded where the recipe would have switched.

Under design "auto" an experiment that only changes server settings is planned as a
switchback; a server that reads a swept setting only at startup makes the engine fall back to
restart, and since RECORDS_FALLBACK_FROM the engine records it in plan/fallback
(engine/run/runner.py). Without that record a restart result of such an experiment could be a
switchback made to look like restarts, or the other way round, with no trace of which."""

from tuninglab.contrib.jsonpaths import at, runs
from tuninglab.recipes import plan as planner
from tuninglab.recipes.duets import duet_obstacle
from tuninglab.results import document
from tuninglab.results.result import Result

# Results started from this moment (the `started` key, UTC) record a switchback's fallback to
# restart in plan/fallback; the engine before it did not, and the results of then
# (doublewrite, direct-io, native-aio on MariaDB 10.11: restarts under "auto") carry none. The
# last of them started at 2026-11-25T17:10:52Z (native-aio's buffered variant); the engine
# records the fallback from a quarter of an hour later.
# Decided by date, not by schema_version: the fallback adds an optional key and no reader
# needs a new format for it (results/document.py keeps SCHEMA_VERSION 2).
RECORDS_FALLBACK_FROM = "2026-11-25T17:30:00+00:00"
# Settings a server reads only at startup (SET GLOBAL refuses them), by the server's name:
# (flavours, first version, first version that changes it at run time, or None). Only what
# the servers' manuals say ("Dynamic: No") and the committed runs confirm (MariaDB 10.11.19
# answered so for all three: their results fell back to restart); MariaDB 11 reworked
# innodb_flush_method and innodb_doublewrite, so their rows end at 11.0.
STARTUP_ONLY = {
    "innodb_doublewrite": [(("mariadb",), (0,), (11, 0, 0)),
                           (("mysql", "percona"), (0,), (8, 0, 30))],
    "innodb_flush_method": [(("mariadb",), (0,), (11, 0, 0)),
                            (("mysql", "percona"), (0,), None)],
    "innodb_use_native_aio": [(("mariadb", "mysql", "percona"), (0,), None)],
}


def startup_only(name: str, flavor: str, version: tuple) -> bool:
    """Whether STARTUP_ONLY knows this server to read `name` only at startup."""
    return any(flavor in flavors and since <= tuple(version) and (until is None
                                                                  or tuple(version) < until)
               for flavors, since, until in STARTUP_ONLY.get(name, ()))


def records_fallback(doc: dict) -> bool:
    """Whether the engine that made this file records a fallback (RECORDS_FALLBACK_FROM), by
    time, whatever the zone `started` is written in (a string compare would let a file written
    in another zone pass for an older one)."""
    started = document.parse_time(str(doc.get("started", "")))
    return started is not None and started >= document.parse_time(RECORDS_FALLBACK_FROM)


def swept_names(expected: dict) -> list[str]:
    """The server's names of the swept settings: those whose values differ between the
    points ({value: its settings as the server names them})."""
    mapped = list(expected.values())
    return sorted({k for s in mapped for k in s if any(o.get(k) != s[k] for o in mapped)})


def check_design(doc: dict, e, expected: dict, server: tuple, label: str) -> list[str]:
    """The design is one the recipe and the server allow: restart where the recipe asks for it
    or cannot switch (planner.switchback_obstacle), switchback where it asks for that (a server
    that cannot switch stops the run), either under "auto", where a restart since
    RECORDS_FALLBACK_FROM records its fallback; never a switchback of a setting the server reads
    only at startup; and the runs are that design's: blocks of one series, or none."""
    got, wanted = Result(doc).design, e.measure.design
    if got == "duet" or wanted == "duet":   # the recipe's, or `invoke recipe --design duet`
        return check_duet(doc, e)
    obstacle = planner.switchback_obstacle(e)
    if wanted == "restart" or obstacle:
        want, why = "restart", obstacle or 'the recipe\'s [measure] design is "restart"'
    elif wanted == "switchback":
        want, why = "switchback", ('the recipe asks for "switchback" (a server that cannot '
                                   "switch stops the run; it never falls back to restart)")
    else:
        want = got
    if got != want:
        return [at("plan/design", f"{got!r}; expected {want!r}: {why}")]
    would_switch = wanted == "auto" and not obstacle
    names = swept_names(expected)
    return (check_switchable(doc, names, server, label)
            + check_fallback(doc, names, would_switch) or check_shape(doc))


def check_duet(doc: dict, e) -> list[str]:
    """A duet where the experiment allows one (recipes/duets.py), chosen by the recipe or
    on the command line; a recipe that asks for a duet has only duets. Its runs: restarts'
    shape (no switchback series or blocks), two a repeat, one of each point, every other
    repeat with the points' places swapped so that the placement cancels."""
    got = Result(doc).design
    if got != "duet":
        return [at("plan/design", f"{got!r}; expected 'duet': the recipe's [measure] design is "
                                  '"duet"')]
    obstacle = duet_obstacle(e)
    if obstacle:
        return [at("plan/design", f"'duet', but {obstacle}")]
    if "switchback" in doc or doc["plan"].get("fallback"):
        return [at("plan/design", "'duet' with a switchback's series or fallback; expected "
                                  "neither")]
    return check_halves(doc)


def check_halves(doc: dict) -> list[str]:
    """Each repeat (a half) has one run of each point, and the points take the first place
    (the earlier order) in as many halves as the second."""
    points = doc["points"]
    halves = {}
    for p in points:
        for run in p["runs"]:
            halves.setdefault(run["repeat"], []).append((run["order"], p["id"]))
    odd = sorted(h for h, runs in halves.items() if len(runs) != len(points))
    if odd:
        return [at("points", f"half {odd[0]} has {len(halves[odd[0]])} runs; expected one of "
                             f"each of the {len(points)} points, measured at once")]
    first = [min(runs)[1] for runs in halves.values()]
    counts = {p["id"]: first.count(p["id"]) for p in points}
    if len(set(counts.values())) > 1:
        return [at("points", f"the first place went to {counts}; expected each point as "
                             "often, so that the placement cancels")]
    return []


def check_switchable(doc: dict, names: list, server: tuple, label: str) -> list[str]:
    """A switchback of a setting the recorded server reads only at startup: SET GLOBAL would
    have refused every switch, so the runs cannot be what they say."""
    if Result(doc).design != "switchback":
        return []
    fixed = [n for n in names if startup_only(n, *server)]
    return [at("plan/design", f"'switchback' of {', '.join(fixed)}, which {label} reads only "
                              "at startup; expected 'restart' (the engine falls back to it, "
                              "recording plan/fallback)")] if fixed else []


def check_fallback(doc: dict, names: list, would_switch: bool) -> list[str]:
    """plan/fallback: required on a restart the recipe would have switched (files since
    RECORDS_FALLBACK_FROM), refused anywhere else; it names swept settings of this server."""
    fallback = doc["plan"].get("fallback")
    restart = Result(doc).design == "restart"
    if fallback is None:
        if restart and would_switch and records_fallback(doc):
            return [at("plan/fallback", "missing; expected the engine's record of why this "
                                        "restart design is no switchback (the recipe's design "
                                        "is \"auto\" and its sweep changes only server "
                                        "settings, so the engine switches them unless the "
                                        "server reads one only at startup)")]
        return []
    if not (restart and would_switch):
        return [at("plan/fallback", "a fallback to restart where the recipe and design give "
                                    "none; expected no plan/fallback (only a restart under "
                                    "design \"auto\" of a sweep of server settings has one)")]
    odd = [n for n in fallback.get("startup_only", []) if n not in names]
    if odd:
        return [at("plan/fallback/startup_only", f"{', '.join(map(repr, odd))} is no setting "
                                                 "the sweep changes; expected some of: "
                                                 f"{', '.join(names)}")]
    return []


def check_shape(doc: dict) -> list[str]:
    """The runs are the design's: a switchback's blocks of its one series, or restarts."""
    switchback = Result(doc).design == "switchback"
    if switchback != ("switchback" in doc):
        return [at("switchback", "missing; expected the workload's per-second throughput "
                                 "(plan/design is switchback)" if switchback else
                   "a switchback's series in a restart design; expected none")]
    odd = [path for path, run in runs(doc) if ("block" in run) != switchback]
    if not odd:
        return []
    more = f" (and {len(odd) - 1} more runs)" if len(odd) > 1 else ""
    return [at((*odd[0], "block"), f"missing{more}; expected each run's block (plan/design is "
                                   "switchback)" if switchback else
               f"a switchback block in a restart design{more}; expected none")]
