"""A new result document: the recipe, the plan, the exact workload command and the provenance;
and the key that lets a rerun resume the same plan's runs."""

import hashlib
import json
import secrets

from tuninglab.engine.measure import phase as measure

from tuninglab.engine.server import memory, pinning
from tuninglab.engine.workloads import scan, sysbench
from tuninglab.recipes import dataset_record
from tuninglab.results import stats
from tuninglab.results.document import SCHEMA_VERSION, now
from tuninglab.results.duet import DUET_METHOD


def resume_key(plan, binary) -> str:
    e = plan.experiment
    ident = [e.recipe.sha256, e.recipe.variant, e.profile, plan.seed, e.measure.repeats,
             e.measure.warmup, e.measure.duration, e.dataset.tables, e.dataset.table_size,
             e.dataset.buffer_pool_size, e.workload.threads, binary.version_text, binary.path]
    if e.dataset.memory_limit:  # keys without a limit stay as they were
        ident.append(e.dataset.memory_limit)
    if plan.switchback:  # a restart plan's key stays as it was: its progress files resume
        ident += [plan.design, e.measure.settle]
    elif plan.duet:
        ident.append(plan.design)
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
                 "duration_s": e.measure.duration, "order": [run.key for run in plan.runs],
                 # in the file, so that its statistics need nothing else (document.recompute)
                 "smallest_effect_pct": smallest_effect_pct(e.measure),
                 **({"design": "switchback", "settle_s": e.measure.settle} if plan.switchback
                    else {"design": plan.design}),
                 **_overrides(e), **_pin(e.measure), **_skipped(plan)},
        "dataset": dataset_description(e.dataset),
        **_memory(e, binary.flavor),
        **({"regime": [dict(c) for c in r.regime]} if r.regime else {}),
        "workload": workload_description(e),
        "server": binary.describe(),
        **provenance,
        "started": now(),
        "run_id": secrets.token_hex(4),  # two runs started in the same second get two files
        "finished": None,
        "sweep": {"setting": e.sweep.setting, "baseline": plan.baseline.id},
        "points": [{"id": p.id, "value": p.value, "settings": binary.map(p.settings),
                    "runs": []} for p in plan.points],
        "methods": {"summary": stats.SUMMARY_METHOD,
                    "ratio": DUET_METHOD if plan.duet else stats.PAIRED_METHOD
                    if plan.switchback else stats.RATIO_METHOD},
    }


def fallback(reason: str, startup_only: list) -> dict:
    """plan/fallback: a switchback plan measured as restarts, because the server reads the
    named swept settings only at startup (contrib/design.py requires it on such a result)."""
    return {"from": "switchback", "reason": reason[:300],
            **({"startup_only": sorted(startup_only)} if startup_only else {})}


def lab_image(finished: dict, manifest: dict) -> None:
    """A lab VM run's record of where the kernel it booted came from: the image's manifest
    (engine/lab/image.py), not the recipe's wish; data.check reads lab.kernel_from back in it."""
    suite = manifest.get("suite", "bookworm")
    finished.setdefault("lab", {})["kernel_from"] = \
        f"{suite}-backports" if manifest.get("backports") else suite


def _skipped(plan) -> dict:
    """plan/skipped: the recipe's points this server cannot express (preflight.expressible),
    with why, naming the recipe file as the repository does (not this checkout's path);
    data.check plans the result without them, for such values only."""
    r = plan.experiment.recipe
    where = f"recipes/{r.name}/recipe.toml"
    return {"skipped": [{"value": v, "why": why.replace(str(r.path), where)[:300]}
                        for v, why in plan.skipped]} if plan.skipped else {}


def _overrides(e) -> dict:
    """The command line's --repeats, --duration and --warmup where they changed what the
    profile gives: data.check (contrib/experiment.py) accepts a plan other than the recipe's
    profile only where this records it."""
    profile = e.recipe.experiment(e.profile).measure
    changed = {key: getattr(e.measure, field)
               for key, field in (("repeats", "repeats"), ("warmup_s", "warmup"),
                                  ("duration_s", "duration"))
               if getattr(e.measure, field) != getattr(profile, field)}
    return {"overrides": changed} if changed else {}


def _memory(e, flavor: str) -> dict:
    """The memory model the runs were held to, if the dataset asks for one (engine/server/memory.py)."""
    block = memory.describe(e.dataset, e.recipe.in_lab_vm, memory.extra(e, flavor))
    return {"memory": block} if block else {}


def _pin(m) -> dict:
    """The CPUs the runs pin the server and the load generator to, if the recipe pins them
    and this host has CPUs to split."""
    cpus = pinning.cpus_for(m)
    return {"pin": cpus} if cpus else {}


def smallest_effect_pct(m) -> float:
    """The recipe's smallest effect worth knowing, or the statistics' default if it names none."""
    if m.smallest_effect_pct is None:
        return stats.DEFAULT_SMALLEST_EFFECT_PCT
    return m.smallest_effect_pct


def dataset_description(d) -> dict:
    return dataset_record.recorded(d)   # data.check rebuilds the same (contrib/experiment.py)


def workload_description(e) -> dict:
    """The baseline point's workload (a workload.* sweep changes one option per point)."""
    w, d = e.workload_for(e.sweep.baseline), e.dataset
    if w.timed:
        command = measure.run_command("SOCKET", w, d, e.measure.duration)
        # A project script's path without the checkout's location, which may name the user;
        # the label predates the engine/ package and stays, so commands compare across results.
        command = [a.replace(str(sysbench.LUA_DIR), "tuninglab/workloads/lua") for a in command]
    else:
        command = scan.statements(d.tables)
    return {"tool": w.tool, "script": w.script, "threads": w.threads, "metric": w.metric,
            **({"options": dict(w.options)} if w.options else {}), "command": command}
