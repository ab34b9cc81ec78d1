"""data.check's rules that a result is the experiment its recipe version describes. The recipe's
text as the result records it (check.check_recipe has found it a version of the recipe) is read
again and planned as the engine plans it (recipes.plan.build, with the recorded profile, seed,
design and overrides), and the file must be that plan: its points' values and settings; the
profile's data shape, workload and seconds, or the command line's (plan/overrides); a design
the recipe and the server allow, a fallback to restart recorded (contrib/design.py); the plan's repeats and order; each run's settings as the server read them
back; summaries that agree with their per-second series; a server that has every option the
recipe sets. A forged file that passed every other check (a swapped pair of values, three best
runs of five, a recipe's name on another recipe's runs) would otherwise reach the verdicts.
"""

import dataclasses
import random
import tomllib
from collections import Counter

from tuninglab import files, units
from tuninglab.contrib import design, read_view, readback
from tuninglab.contrib.jsonpaths import at, runs
from tuninglab.errors import UserError
from tuninglab.recipes import (dataset_record, defaults_sets, load, plan as planner, scan_size,
                              server_list)
from tuninglab.recipes.model import PLAIN_NAME
from tuninglab.recipes.server_names import gone, map_settings, refuses_value
from tuninglab.results.result import Result

MISSING = object()
# The plan's values the command line may set (--repeats, --warmup, --duration), which the
# engine records in plan/overrides (engine/run/record.py); nothing else of a profile has one.
OVERRIDABLE = ("repeats", "warmup_s", "duration_s")
SERVER_LABELS = {"mariadb": "MariaDB", "mysql": "MySQL", "percona": "Percona Server"}


def check_experiment(doc: dict) -> list[str]:
    """Every way the file is not the experiment its recipe version plans; [] when it is."""
    r = Result(doc)
    ids = [point.id for point in r.points]
    if not PLAIN_NAME.fullmatch(r.profile) or len(set(ids)) != len(ids) \
            or r.baseline not in ids:
        return []  # check_profile and values.check_points name these; nothing to compare with
    experiment, problems = experiment_of(doc)
    if experiment is None:
        return problems
    flavor, version = Result(doc).server_version
    problems += check_skipped(doc, experiment, flavor, version)
    try:
        plan = plan_of(doc, experiment)
    except UserError as exc:  # a plan of more runs or days than a plan may have
        return problems + [at("plan/repeats", f"no plan of the recipe has these: {exc}")]
    expected = {p.value: map_settings(p.settings, flavor, version) for p in plan.points}
    problems += check_plan_values(doc, experiment) + design.check_design(
        doc, experiment, expected, (flavor, version), server_label(doc))
    problems += check_points(doc, plan, expected) + check_order(doc, plan)
    problems += readback.check_runs(doc, plan, expected)
    problems += readback.check_series(doc) + check_server(doc, expected)
    problems += read_view.check_runs(doc, experiment)
    return problems


# --- the experiment the file names --------------------------------------------------------------

def experiment_of(doc: dict):
    """(the Experiment of the recorded variant, profile and overrides, or None; its problems)."""
    r = Result(doc)
    try:
        recipes = recipes_of(doc)
    except UserError as exc:
        return None, [at("recipe/text", f"this version of recipe {r.recipe} does not load "
                                        f"({exc}); expected one the lab reads")]
    recipe = next((x for x in recipes if x.variant == r.variant), None)
    if recipe is None:
        known = ", ".join(repr(x.variant) for x in recipes)
        return None, [at("variant", f"recipe/text has no variant {r.variant!r}; expected one "
                                    f"of: {known}")]
    if r.profile not in recipe.profiles:
        known = ", ".join(sorted(recipe.profiles))
        return None, [at("profile", f"{r.profile!r} is no profile of recipe/text; expected "
                                    f"one of: {known}")]
    over = doc["plan"].get("overrides") or {}
    try:
        return recipe.experiment(r.profile, repeats=over.get("repeats"),
                                 duration=over.get("duration_s"),
                                 warmup=over.get("warmup_s")), []
    except UserError as exc:
        return None, [at("plan/overrides", f"the recipe refuses them ({exc}); expected what "
                                           "--repeats, --duration and --warmup take")]


def recipes_of(doc: dict) -> list:
    """The recipe version's experiments, read by today's reader. A result from before the
    memory model (no memory block) ran with no memory cap; today's shapes add one, which that
    version's buffer pool may not fit (doublewrite's tpcc variant of 46b99d5: a 128M pool
    under the disk-bound shape's 192M), so its text is read as it ran then: uncapped."""
    name, text = doc["recipe"]["name"], doc["recipe"]["text"]
    try:
        return load.from_text(name, text)
    except UserError:
        if doc.get("memory") is not None:
            raise
    data = tomllib.loads(text)
    tables = [data] + [v for v in (data.get("variants") or {}).values() if isinstance(v, dict)]
    for table in tables:
        dataset = table.get("dataset")
        if isinstance(dataset, dict):
            dataset.setdefault("memory_limit", "none")
    return load.from_data(data, text.encode("utf-8", "surrogatepass"),
                          files.RECIPES_DIR / name / "recipe.toml")


def plan_of(doc: dict, experiment):
    """The plan of the file's repeats (the stop rule's rounds included: its first rounds keep
    their order), seed and design, without the points it skipped; files of schema 1 in the
    order that engine drew."""
    p = doc["plan"]
    rounds = dataclasses.replace(experiment, measure=dataclasses.replace(
        experiment.measure, repeats=p["repeats"]))
    rounds = planner.without(rounds, dict.fromkeys(skipped_values(doc), ""))
    plan = planner.build(rounds, p["seed"], Result(doc).design)
    if doc["schema_version"] == 1:
        return dataclasses.replace(plan, runs=legacy_runs(plan.points, p["repeats"], p["seed"]))
    return plan


def skipped_values(doc: dict) -> list[str]:
    return [str(s.get("value")) for s in doc["plan"].get("skipped") or ()]


def check_skipped(doc: dict, experiment, flavor: str, version: tuple) -> list[str]:
    """A point may be left out only where the result's server cannot take its value
    (server_names.VALUES_OF) or it sets another server's earlier defaults (defaults_sets),
    never the baseline: else a run could drop the points it disliked."""
    sweep = experiment.sweep
    problems = []
    for i, value in enumerate(skipped_values(doc)):
        where = ("plan", "skipped", i, "value")
        if value not in sweep.values or value == sweep.baseline:
            problems.append(at(where, f"{value!r}; expected a value of the sweep other than "
                                      f"its baseline ({', '.join(sweep.values)})"))
        elif not (refuses_value(sweep.setting, value, flavor, version)
                  or defaults_sets.refusal(sweep, value, flavor, version)):
            problems.append(at(where, f"{value!r}: {server_label(doc)} takes this value of "
                                      f"{sweep.setting}; expected a point skipped only where "
                                      "the server cannot express it"))
    return problems


def legacy_runs(points, repeats: int, seed: int) -> tuple:
    """The run order before round_orders (schema 1, commit bb645a5's parent): one shuffle,
    then its rotations, a round each."""
    order = list(points)
    random.Random(seed).shuffle(order)
    out = []
    for repeat in range(1, repeats + 1):
        shift = (repeat - 1) % len(order)
        for point in order[shift:] + order[:shift]:
            out.append(planner.Run(len(out), point, repeat))
    return tuple(out)


def server_label(doc: dict) -> str:
    server = doc.get("server") or {}
    flavor = str(server.get("flavor", ""))
    return f"{SERVER_LABELS.get(flavor, flavor)} {server.get('version', '')}"


# --- the profile: seconds, repeats, data shape, workload ----------------------------------------

def source(doc: dict, key: str) -> str:
    """Where an expected value of the plan comes from: the command line or the profile."""
    if key in (doc["plan"].get("overrides") or {}):
        return f"the command line's, as plan/overrides/{key} records it"
    profile = f"what profile {doc['profile']} of recipe/text gives"
    if key not in OVERRIDABLE:
        return profile
    return (f"{profile} (a command line's --repeats, --duration or --warmup is recorded in "
            "plan/overrides)")


def check_plan_values(doc: dict, e) -> list[str]:
    """The plan's repeats and seconds, the data shape, the workload and the memory limit are
    the profile's (or the recorded overrides'): another duration or data shape is another
    experiment, whatever its verdict."""
    p, m = doc["plan"], e.measure
    problems = []
    if "stopped" in p:  # the stop rule (engine/run/stop_rule.py) adds rounds, never drops any
        if p["repeats"] < m.repeats:
            problems.append(at("plan/repeats", f"{p['repeats']}; expected at least {m.repeats}"
                                               f", {source(doc, 'repeats')}, and the stop "
                                               "rule's rounds after them"))
    elif p["repeats"] != m.repeats:
        problems.append(at("plan/repeats", f"{p['repeats']}; expected {m.repeats}, "
                                           f"{source(doc, 'repeats')}; a run left out or a "
                                           "round added needs a record no result has"))
    seconds = [("warmup_s", m.warmup), ("duration_s", m.duration)]
    if Result(doc).design == "switchback":
        seconds.append(("settle_s", m.settle))
    problems += [at(("plan", key), f"{number(p.get(key, MISSING))}; expected {want:g}, "
                                   f"{source(doc, key)}")
                 for key, want in seconds if p.get(key) != want]
    dataset = dataset_description(e.dataset, doc.get("dataset"))
    return problems + differ(doc, "dataset", dataset) + \
        differ(doc, "workload", workload_description(e)) + check_memory(doc, e)


def dataset_description(d, recorded: dict | None = None) -> dict:
    """The dataset as the engine records it (engine/run/record.dataset_description); a scan's
    dataset sized to its device (recipes/scan_size.py) as that rate, which the document
    records, sizes it."""
    rate = (recorded or {}).get("device_read_mib_s")
    if d.read_seconds and isinstance(rate, (int, float)) and not isinstance(rate, bool) \
            and rate > 0:
        d = scan_size.sized(d, rate)
    return dataset_record.recorded(d)


def workload_description(e) -> dict:
    """The baseline point's workload as the engine records it (the command aside)."""
    w = e.workload_for(e.sweep.baseline)
    return {"tool": w.tool, "script": w.script, "threads": w.threads,
            "options": dict(w.options) or MISSING}


def differ(doc: dict, part: str, want: dict) -> list[str]:
    """A line for each key of want that the document's part holds otherwise."""
    got = doc.get(part) or {}
    return [at((part, key), f"{shown(got.get(key, MISSING))}; expected {shown(value)}, what "
                            f"profile {doc['profile']} of recipe/text gives")
            for key, value in want.items() if got.get(key, MISSING) != value]


def shown(value) -> str:
    return "missing" if value is MISSING else repr(value)


def number(value) -> str:
    return f"{value:g}" if isinstance(value, (int, float)) else shown(value)


def check_memory(doc: dict, e) -> list[str]:
    """The memory limit the runs were held to is the data shape's, with what the result's
    server holds beyond MariaDB 10.11 (server_list.extra_memory; not in the lab VM, whose RAM
    is the limit). A result without the block predates the memory model (or its shape has no
    limit): the site reads it as uncapped."""
    memory = doc.get("memory")
    if memory is None:
        return []
    limit = e.dataset.memory_limit
    flavor = str((doc.get("server") or {}).get("flavor", "mariadb"))
    want = None if limit is None else units.size_bytes(limit) + server_list.extra_for(e, flavor)
    if memory.get("limit_bytes") == want:
        return []
    return [at("memory/limit_bytes", f"{memory.get('limit_bytes')!r}; expected "
                                     f"{'no memory block' if want is None else want}, the "
                                     f"memory limit profile {doc['profile']} of recipe/text "
                                     "gives")]


# --- the points, the order ----------------------------------------------------------------------

def check_points(doc: dict, plan, expected: dict) -> list[str]:
    """The sweep, each point's id, value and settings are the recipe's, in its order: the
    settings the recipe gives the point (merged with the swept value) as the recorded server
    names them (server_names.map_settings)."""
    r, sweep = Result(doc), plan.experiment.sweep
    problems = []
    if r.setting != sweep.setting:
        problems.append(at("sweep/setting", f"{r.setting!r}; expected {sweep.setting!r}, the "
                                            "setting recipe/text sweeps"))
    if r.baseline != plan.baseline.id:
        problems.append(at("sweep/baseline", f"{r.baseline!r}; expected {plan.baseline.id!r}"
                                             ", the baseline recipe/text names"))
    values = ", ".join(map(repr, sweep.values))
    if len(r.points) != len(plan.points):
        problems.append(at("points", f"{len(r.points)} points; expected {len(plan.points)}, "
                                     f"one per value recipe/text sweeps ({values})"))
    for i, (point, want) in enumerate(zip(r.points, plan.points)):
        if point.value not in sweep.values:
            problems.append(at(("points", i, "value"), f"{point.value!r} is no value recipe/"
                                                       f"text sweeps; expected one of: {values}"))
        elif point.value != want.value:
            problems.append(at(("points", i, "value"), f"{point.value!r}; expected "
                                                       f"{want.value!r}, value {i + 1} of the "
                                                       "recipe's sweep (point ids, values and "
                                                       "runs go together)"))
        if point.id != want.id:
            problems.append(at(("points", i, "id"), f"{point.id!r}; expected {want.id!r}"))
        problems += setting_lines(doc, i, want.id, point.raw.get("settings") or {},
                                  expected[want.value])
    return problems


def setting_lines(doc: dict, i: int, point: str, settings: dict, mapped: dict) -> list[str]:
    """A line for each setting of a point that is not the one the recipe gives it."""
    where = f"point {point} on {server_label(doc)}"
    lines = []
    for key in sorted({*settings, *mapped}):
        got, want = settings.get(key, MISSING), mapped.get(key, MISSING)
        if got == want:
            continue
        if want is MISSING:
            lines.append(at(("points", i, "settings", key),
                            f"{got!r} is no setting the recipe gives {where}; expected none"))
        else:
            lines.append(at(("points", i, "settings", key),
                            f"{shown(got)}; expected {want!r}, the recipe's setting at {where}"))
    return lines


def check_order(doc: dict, plan) -> list[str]:
    """plan/order is the order the seed gives the plan, and each run sits at its place in it.
    No run is missing: values.check_repeats holds each point to repeats 1 to plan/repeats,
    and check_plan_values holds plan/repeats to the profile's (a result has no record of a
    dropped run or its reason, so none may be dropped)."""
    p = doc["plan"]
    want = [run.key for run in plan.runs]
    drawn = "schema 1's engine" if doc["schema_version"] == 1 else "recipes/plan.py"
    problems = []
    if p["order"] != want:
        i = next((i for i, (a, b) in enumerate(zip(p["order"], want)) if a != b),
                 min(len(p["order"]), len(want)))
        got = repr(p["order"][i]) if i < len(p["order"]) else "missing"
        wanted = repr(want[i]) if i < len(want) else "no more runs"
        problems.append(at(("plan", "order", i), f"{got}; expected {wanted}, run {i} of the "
                                                 f"order {drawn} draws with seed {p['seed']} "
                                                 f"for {len(plan.points)} points x "
                                                 f"{p['repeats']} repeats"))
    # each run against the recorded order: one wrong order is one line, not one per run
    places = {key: i for i, key in reversed(list(enumerate(p["order"])))}
    ids = [point.id for point in Result(doc).points]
    held = Counter((path[1], run["repeat"]) for path, run in runs(doc))
    for path, run in runs(doc):
        place = places.get(f"{ids[path[1]]}#{run['repeat']}")
        if held[path[1], run["repeat"]] > 1:
            continue  # a repeat twice: values.check_repeats names it
        if place is not None and run["order"] != place:
            problems.append(at((*path, "order"), f"{run['order']}; expected {place}, the place "
                                                 f"of {ids[path[1]]}#{run['repeat']} in "
                                                 "plan/order"))
    return problems


# --- the server ---------------------------------------------------------------------------------

def check_server(doc: dict, expected: dict) -> list[str]:
    """The server has every option the recipe sets: one that lacks it is refused before any
    run (the recipe's preflight asks the server itself; a file has only the flavour and
    version, so server_names.GONE_FROM stands in)."""
    flavor, version = Result(doc).server_version
    names = sorted({name for settings in expected.values() for name in settings})
    return [at("server/version", f"{server_label(doc)} has no option {name} ("
                                 f"{SERVER_LABELS.get(flavor, flavor)} removed it in "
                                 f"{'.'.join(map(str, since))}), which the recipe sets; "
                                 "expected a server that has it (on this one the recipe stops "
                                 "before its first run)")
            for name in names if (since := gone(name, flavor, version))]
