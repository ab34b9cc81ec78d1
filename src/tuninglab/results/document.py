"""Result files: one JSON document per run of a recipe, with full provenance, every repeat of every
point and its per-second series: its schema, its statistics once the runs are done, its name
under data/. The engine writes it (engine/record.py); the site and the checks read it."""

import datetime as dt
import json
from functools import lru_cache
from pathlib import Path

import jsonschema

from tuninglab.files import DATA_DIR, atomic_write_json
from tuninglab.results import stats, timeseries

SCHEMA_VERSION = 1
SCHEMA_PATH = Path(__file__).with_name("result.schema.json")


def now() -> str:
    return dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds")


@lru_cache(maxsize=1)
def schema() -> dict:
    return json.loads(SCHEMA_PATH.read_text())


def validate(doc: dict) -> list[str]:
    """Every schema problem as 'path: message'; empty when the document is valid."""
    validator = jsonschema.Draft202012Validator(
        schema(), format_checker=jsonschema.Draft202012Validator.FORMAT_CHECKER)
    return [f"{'/'.join(map(str, e.absolute_path)) or '(top)'}: {e.message}"
            for e in sorted(validator.iter_errors(doc), key=lambda e: list(e.absolute_path))]


def metric(doc: dict) -> str:
    """The primary metric of a result: tps for sysbench (files from before the scan workload
    name none), MiB/s for a scan."""
    return doc["workload"].get("metric", "tps")


def point(doc: dict, point_id: str) -> dict:
    return next(p for p in doc["points"] if p["id"] == point_id)


def done_keys(doc: dict) -> set[str]:
    return {f"{p['id']}#{run['repeat']}" for p in doc["points"] for run in p["runs"]}


def finish(doc: dict) -> dict:
    """Add per-point statistics of the primary metric (and of bytes written per transaction),
    the ratios to the baseline and the end time."""
    name = metric(doc)
    base = point(doc, doc["sweep"]["baseline"])
    base_values = [run["summary"][name] for run in base["runs"]]
    for p in doc["points"]:
        values = [run["summary"][name] for run in p["runs"]]
        p["stats"] = {name: stats.summarize(values).to_dict()}
        wbytes = [run["summary"]["io"].get("write_bytes_per_trx") for run in p["runs"]]
        if all(v is not None for v in wbytes):
            p["stats"]["write_bytes_per_trx"] = stats.summarize(wbytes).to_dict()
        trends = timeseries.point_trends(p["runs"])
        if trends:
            p["trends"] = trends
        if p is base:
            p["stats"]["ratio"] = None
        elif min(values + base_values) > 0:
            p["stats"]["ratio"] = stats.compare(values, base_values).to_dict()
        else:
            p["stats"]["ratio"] = {"ratio": None, "ci_low": None, "ci_high": None,
                                   "verdict": "no throughput to compare"}
    broken = inconsistent_runs(doc)
    if broken:
        doc["invalid"] = broken
    doc["finished"] = now()
    return doc


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
    stamp = doc["started"].replace(":", "").replace("-", "").replace("+0000", "Z")
    variant = f"-{doc['variant']}" if doc.get("variant") else ""
    return Path(data_dir) / doc["recipe"]["name"] / \
        f"{stamp[:15]}Z-{doc['host']['id'][:8]}-{doc['profile']}{variant}.json"


def write_final(doc: dict, data_dir: Path = DATA_DIR) -> Path:
    problems = validate(doc)
    if problems:
        raise ValueError("result does not match the schema: " + "; ".join(problems[:5]))
    path = final_path(doc, data_dir)
    path.parent.mkdir(parents=True, exist_ok=True)
    atomic_write_json(path, doc)
    return path
