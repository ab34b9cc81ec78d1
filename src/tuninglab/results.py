"""Result files: one JSON document per run of a recipe, with full provenance, every repeat of every
point and its per-second series; in-progress documents make runs resumable."""

import datetime as dt
import hashlib
import json
import os
import secrets
from functools import lru_cache
from pathlib import Path

import jsonschema

from . import measure, stats, timeseries
from .workloads import scan, sysbench
from .workdir import PROJECT_DIR, atomic_write_json

SCHEMA_VERSION = 1
SCHEMA_PATH = Path(__file__).with_name("result.schema.json")
DATA_DIR = PROJECT_DIR / "data"


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


def host_salt() -> str:
    """A random salt kept per user, so host ids group one host's results but reveal no name."""
    path = Path(os.environ.get("XDG_CONFIG_HOME") or Path.home() / ".config") / "tuninglab" / "salt"
    try:
        return path.read_text().strip()
    except OSError:
        salt = secrets.token_hex(16)
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(salt + "\n")
        except OSError:
            pass  # no writable home: this run's id is still a salted hash, just not a stable one
        return salt


def resume_key(plan, binary) -> str:
    e = plan.experiment
    ident = [e.recipe.sha256, e.recipe.variant, e.profile, plan.seed, e.measure.repeats,
             e.measure.warmup, e.measure.duration, e.dataset.tables, e.dataset.table_size,
             e.dataset.buffer_pool_size, e.workload.threads, binary.version_text, binary.path]
    return hashlib.sha256(json.dumps(ident).encode()).hexdigest()[:16]


def new_document(plan, binary, provenance: dict) -> dict:
    e = plan.experiment
    r = e.recipe
    return {
        "schema_version": SCHEMA_VERSION,
        "recipe": {"name": r.name, "sha256": r.sha256, "title": r.title, "question": r.question,
                   "topic": r.topic, "text": r.text},
        **({"variant": r.variant} if r.variant else {}),
        "profile": e.profile,
        "plan": {"seed": plan.seed, "repeats": e.measure.repeats, "warmup_s": e.measure.warmup,
                 "duration_s": e.measure.duration, "order": [run.key for run in plan.runs]},
        "dataset": dataset_description(e.dataset),
        "workload": workload_description(e),
        "server": binary.describe(),
        **provenance,
        "started": now(),
        "finished": None,
        "sweep": {"setting": e.sweep.setting, "baseline": plan.baseline.id},
        "points": [{"id": p.id, "value": p.value, "settings": binary.map(p.settings),
                    "runs": []} for p in plan.points],
        "methods": {"summary": stats.SUMMARY_METHOD, "ratio": stats.RATIO_METHOD},
    }


def dataset_description(d) -> dict:
    if d.warehouses:  # sysbench's tables do not apply to the TPC-C-like workload
        return {"shape": d.shape, "warehouses": d.warehouses,
                "buffer_pool_size": d.buffer_pool_size}
    return {"shape": d.shape, "tables": d.tables, "table_size": d.table_size,
            "buffer_pool_size": d.buffer_pool_size}


def workload_description(e) -> dict:
    """The baseline point's workload (a workload.* sweep changes one option per point)."""
    w, d = e.workload_for(e.sweep.baseline), e.dataset
    if w.timed:
        command = measure.run_command("SOCKET", w, d, e.measure.duration)
        # A project script's path without the checkout's location, which may name the user.
        command = [a.replace(str(sysbench.LUA_DIR), "tuninglab/workloads/lua") for a in command]
    else:
        command = scan.statements(d.tables)
    return {"tool": w.tool, "script": w.script, "threads": w.threads, "metric": w.metric,
            **({"options": dict(w.options)} if w.options else {}), "command": command}


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
