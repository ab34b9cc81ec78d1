"""Result files: one JSON document per run of a recipe, with full provenance, every repeat of every
point and its per-second series: its schema, its statistics once the runs are done, its name
under data/. The engine writes it (engine/run/record.py); the site and the checks read it."""

import datetime as dt
import errno
import json
import re
from functools import lru_cache
from pathlib import Path

import jsonschema

from tuninglab.files import DATA_DIR, create_json
from tuninglab.results import redo, regime, stats, timeseries
from tuninglab.results.duet import DUET_METHOD, Half, compare_duet
from tuninglab.results.metrics import COST
from tuninglab.results.result import Result, paired_runs, paired_series

SCHEMA_VERSION = 2  # 2: plan.design (restart or switchback); files of 1 stay valid
SCHEMA_PATH = Path(__file__).with_name("result.schema.json")


def now() -> str:
    return dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds")


# A clock may run a little ahead of another; a result dated further ahead would sort after
# every other one (each host's latest is the one charted), so data.check refuses it and the
# site charts it not.
CLOCK_SKEW = dt.timedelta(minutes=5)


def parse_time(value: str) -> dt.datetime | None:
    """A date-time with its time zone, or None (not one, or without a zone)."""
    try:
        t = dt.datetime.fromisoformat(value)
    except ValueError:
        return None
    return t if t.tzinfo else None


def in_future(value, clock: dt.datetime) -> bool:
    """Whether value is a date-time beyond clock and the skew allowed (not a date-time: no)."""
    t = parse_time(value) if isinstance(value, str) else None
    return t is not None and t > clock + CLOCK_SKEW


@lru_cache(maxsize=1)
def schema() -> dict:
    return json.loads(SCHEMA_PATH.read_text())


def validate(doc: dict) -> list[str]:
    """Every schema problem as 'path: message'; empty when the document is valid."""
    validator = jsonschema.Draft202012Validator(
        schema(), format_checker=jsonschema.Draft202012Validator.FORMAT_CHECKER)
    return [f"{'/'.join(map(str, e.absolute_path)) or '(top)'}: {e.message}"
            for e in sorted(validator.iter_errors(doc), key=lambda e: list(e.absolute_path))]


def point(doc: dict, point_id: str) -> dict:
    return next(p for p in doc["points"] if p["id"] == point_id)


def done_keys(doc: dict) -> set[str]:
    return {f"{p['id']}#{run['repeat']}" for p in doc["points"] for run in p["runs"]}


def finish(doc: dict) -> dict:
    """Add per-point statistics of the primary metric (and of bytes written per transaction,
    and of the costs per transaction the runs measured), the ratios to the baseline, the trends
    and the end time."""
    recompute(doc)
    broken = inconsistent_runs(doc)
    if broken:
        doc["invalid"] = broken
    doc["finished"] = now()
    return doc


def recompute(doc: dict) -> dict:
    """Replace each point's stats and trends, and the methods that name how, by what the runs
    give (point_stats): the site shows only these, and data.submit brings a file made by an
    older version of the statistics up to date."""
    for p, computed in zip(doc["points"], point_stats(doc)):
        p["stats"] = computed["stats"]
        p.pop("trends", None)
        if "trends" in computed:
            p["trends"] = computed["trends"]
    doc["methods"] = {**doc.get("methods", {}), **methods(doc)}
    return doc


def methods(doc: dict | None = None) -> dict:
    """The methods a result's statistics name; that of the costs only where its runs measured
    some (a result from before the costs stays as it was written)."""
    out = {"summary": stats.SUMMARY_METHOD,
           "ratio": DUET_METHOD if doc is not None and duet(doc) else stats.PAIRED_METHOD
           if doc is not None and switchback(doc) else stats.RATIO_METHOD}
    if doc is not None and _measures_costs(doc):
        out["cost"] = stats.PAIRED_METHOD if paired_design(doc) else stats.COST_METHOD
    return out


def point_stats(doc: dict) -> list[dict]:
    """Per point, in order, {"stats": ..., "trends": ...} (no trends without series) as
    computed from its runs' summaries and series. The document is left as it is; ValueError,
    KeyError, StopIteration (no baseline point) or OverflowError (repeats of 1e-300 and 1e8)
    when its runs cannot give them."""
    r = Result(doc)
    name, margin = r.metric, r.smallest_effect
    base = point(doc, doc["sweep"]["baseline"])
    paired = paired_design(doc)
    regimes = regime.check(doc)
    out = []
    for p in doc["points"]:
        values = [run["summary"][name] for run in p["runs"]]
        computed = {"stats": {name: stats.summarize(values).to_dict()}}
        wbytes = [run["summary"]["io"].get("write_bytes_per_trx") for run in p["runs"]]
        if all(v is not None for v in wbytes):
            computed["stats"]["write_bytes_per_trx"] = stats.summarize(wbytes).to_dict()
        mine, theirs = paired_runs(p["runs"], base["runs"]) if paired \
            else (p["runs"], base["runs"])
        computed["stats"]["ratio"] = (
            duet_ratio(mine, theirs, margin) if duet(doc) and p is not base else
            _ratio([run["summary"][name] for run in mine],
                   [run["summary"][name] for run in theirs], p is base, margin, paired))
        if p["id"] in regimes:
            computed["stats"]["regime"] = regimes[p["id"]]
            _outside_regime(computed["stats"]["ratio"], regimes[p["id"]])
        cost = cost_stats(p, base, margin, paired)
        if cost:  # only where the runs measured costs: older results keep their stats as stored
            computed["stats"]["cost"] = cost
        trends = timeseries.point_trends(p["runs"])
        if trends:
            computed["trends"] = trends
        out.append(computed)
    return out


def _outside_regime(ratio: dict | None, found: dict) -> None:
    """A comparison outside its regime keeps its ratio and interval, but its verdict says
    that it answers another question (results/regime.py)."""
    if ratio is not None and not found["reached"]:
        ratio["verdict"] = ratio["verdict_kind"] = stats.REGIME_NOT_REACHED


def duet(doc: dict) -> bool:
    """Whether a result was measured as a duet (engine/run/duet.py)."""
    return doc["plan"].get("design") == "duet"


def paired_design(doc: dict) -> bool:
    """Whether its runs pair by repeat: a switchback's blocks of one round, a duet's two runs
    of one half."""
    return switchback(doc) or duet(doc)


def duet_ratio(mine: list, theirs: list, margin: float) -> dict:
    """A duet point's comparison with the baseline (results/duet.py) from its halves (the runs
    paired by repeat): the per-second throughput of both, the point in the first place (CPUs
    and sandbox slot) where its run came first in the half's order."""
    halves = [Half(*paired_series(a, b), first=a["order"] < b["order"])
              for a, b in zip(mine, theirs)]
    return compare_duet(halves, margin=margin).to_dict()


def switchback(doc: dict) -> bool:
    """Whether a result was measured as a switchback (plan.design; results from before the
    design was recorded were all restarts)."""
    return doc["plan"].get("design") == "switchback"


def design_text(doc: dict) -> str:
    """How the result was measured, in a sentence for the terminal and the pages."""
    plan = doc["plan"]
    if duet(doc):
        return (f"duet: {plan['repeats']} repeats of two halves, each half both points at once "
                f"on twin fresh servers ({plan['warmup_s']:g} s warm-up, "
                f"{plan['duration_s']:g} s measured), each server on half the CPUs, their "
                "places swapped in the other half; compared second by second, in batches")
    if switchback(doc):
        return (f"switchback: one server, {_warmed_up(doc)}, with the "
                f"workload running throughout; {plan['repeats']} rounds, each one block of "
                f"every point in a random order ({plan['settle_s']:g} s dropped after each "
                f"switch, {plan['duration_s']:g} s measured); each block is compared with the "
                "baseline's block of its round")
    each = (f"{plan['warmup_s']:g} s warm-up, {plan['duration_s']:g} s measured"
            if plan["duration_s"] else "one scan timed")
    return (f"restart: {plan['repeats']} repeats of each point in a random order, each on a "
            f"fresh copy of the data and a fresh server ({each})" + _redo_written(doc))


def _redo_written(doc: dict) -> str:
    """A word on the redo logs written over before the runs (engine/server/datadir.write_over)."""
    if not redo.written_over(doc):
        return ""
    return ("; a redo log the server made at the run's size was written over once before it, "
            "as a server's is after its first wrap")


def _warmed_up(doc: dict) -> str:
    """The switchback's warm-up: the recipe's, or as its steady-state check ended it."""
    w = doc.get("switchback", {}).get("warm_up")
    if not w:
        return f"warmed up for {doc['plan']['warmup_s']:g} s"
    if w["steady"]:
        return f"warmed up until its throughput stopped trending ({w['seconds']} s)"
    return f"warmed up for {w['seconds']} s (its bound; the throughput still trended)"


def cost_keys(p: dict, base: dict) -> list[str]:
    """The costs (metrics.COST, in order) that every run of the point and of the baseline
    measured: a cost a server or kernel could not give in one run is compared in none, rather
    than over fewer repeats than the primary metric."""
    runs = p["runs"] + base["runs"]
    return [key for key in COST if all(_cost(run).get(key) is not None for run in runs)]


def cost_stats(p: dict, base: dict, margin: float, paired: bool = False) -> dict:
    """{cost: its summary over the point's runs, with "ratio" its comparison to the baseline's
    (stats.compare_cost, or with paired stats.compare_paired by round; None for the baseline
    itself)} for each of cost_keys."""
    out = {}
    mine, theirs = paired_runs(p["runs"], base["runs"]) if paired else (p["runs"], base["runs"])
    for key in cost_keys(p, base):
        values = [_cost(run)[key] for run in mine]
        base_values = [_cost(run)[key] for run in theirs]
        ratio = None if p is base else \
            stats.compared(values, base_values, margin, paired, cost=True).to_dict()
        out[key] = {**stats.summarize([_cost(run)[key] for run in p["runs"]]).to_dict(),
                    "ratio": ratio}
    return out


def _cost(run: dict) -> dict:
    cost = run["summary"].get("cost", {})
    if not isinstance(cost, dict):  # a hand-edited file: said as the runs' fault, not a crash
        raise TypeError(f"a run's summary/cost is {type(cost).__name__}, not an object")
    return cost


def _measures_costs(doc: dict) -> bool:
    base = point(doc, doc["sweep"]["baseline"])
    return any(cost_keys(p, base) for p in doc["points"])


def _ratio(values: list, base_values: list, is_base: bool, margin: float,
           paired: bool = False) -> dict | None:
    if is_base:
        return None
    if min(values + base_values) > 0:
        return stats.compared(values, base_values, margin, paired).to_dict()
    return {"ratio": None, "ci_low": None, "ci_high": None, "verdict": stats.NO_THROUGHPUT,
            "verdict_kind": stats.NO_THROUGHPUT, "tost_low": None, "tost_high": None}


def inconsistent_runs(doc: dict) -> list[str]:
    """The runs whose TPC-C-like data broke a consistency condition after the run: such a
    result is kept (to be looked into) but marked invalid, and no chart draws it."""
    out = []
    for p in doc["points"]:
        for run in p["runs"]:
            check = run["summary"].get("tpcc", {}).get("consistency")
            if check and not check["ok"]:
                failed = ", ".join(str(c["number"]) for c in check["conditions"] if not c["ok"])
                out.append(f"{p['id']} repeat {run['repeat']}: TPC-C consistency condition(s) "
                           f"{failed} broken after the run")
    return out


def final_path(doc: dict, data_dir: Path = DATA_DIR) -> Path:
    """data/<recipe>/<started>-<host>-<profile>[-<variant>][-<run id>].json. The run id (random,
    from record.new_document) tells apart two runs started in the same second on one host;
    results from before it existed have none. Every part is plain ASCII (plain_part): the name
    is a path, a URL on the site and a line in git's output, whatever text a document holds."""
    stamp = doc["started"].replace(":", "").replace("-", "").replace("+0000", "Z")
    variant = f"-{plain_part(doc['variant'])}" if doc.get("variant") else ""
    run_id = f"-{plain_part(doc['run_id'])}" if doc.get("run_id") else ""
    return Path(data_dir) / plain_part(doc["recipe"]["name"]) / \
        (f"{plain_part(stamp[:15])}Z-{plain_part(doc['host']['id'][:8])}-"
         f"{plain_part(doc['profile'])}{variant}{run_id}.json")


def plain_part(text: str) -> str:
    """A part of a result file's name in ASCII letters, digits and dashes, each other character
    a dash: a name the recipes give (recipe, profile and variant names, the host id, the run id,
    the time) stays as it is; another text (a hand-made file's profile "quické") cannot make the
    name non-ASCII, nor a path ("../x"), nor a name git quotes."""
    return re.sub(r"[^A-Za-z0-9-]", "-", str(text)) or "-"


def write_final(doc: dict, data_dir: Path = DATA_DIR) -> Path:
    """Write the finished result where final_path names it, never over an existing file: a
    result that is already there is another run's, and stays."""
    problems = validate(doc)
    if problems:
        raise ValueError("result does not match the schema: " + "; ".join(problems[:5]))
    path = final_path(doc, data_dir)
    path.parent.mkdir(parents=True, exist_ok=True)
    if not create_json(path, doc):
        raise FileExistsError(errno.EEXIST, "a result file of that name exists already; "
                              "it was kept", str(path))
    return path
