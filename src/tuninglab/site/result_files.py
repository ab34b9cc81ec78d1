"""Finding and loading result files: a recipe's results (cached until a file changes), each
host's latest, the recipe directories, and the listings of the Results page and the kernels
table.

The result files read are those under data/, or under $TUNINGLAB_DATA_DIR when it is set (the
browser test builds the site from a copy with a hostile file added). Only the site reads it:
recipes still write to files.DATA_DIR, and the transcribed historical tables always come
from the project's data/historical/ (historical.py).
"""

import datetime as dt
import json
import os
from functools import lru_cache
from pathlib import Path

from tuninglab import files
from tuninglab.site.describe import host_description, shorten, software_text

DATA_DIR = Path(os.environ.get("TUNINGLAB_DATA_DIR") or files.DATA_DIR)


@lru_cache(maxsize=64)
def _load_results(directory: str, _stamp: float) -> tuple:
    docs = []
    for path in sorted(Path(directory).glob("*.json")):
        docs.append(json.loads(path.read_text()))
    return tuple(docs)


def results_for(recipe: str, variant: str | None = "", data_dir: Path = DATA_DIR,
                listing: bool = False) -> list[dict]:
    """Result files of a recipe's main experiment or of one variant (None: all), oldest
    first. A result marked invalid (its TPC-C-like data broke a consistency condition) is
    never charted: only a listing (the Results page) gets it."""
    directory = Path(data_dir) / recipe
    if not directory.is_dir():
        return []
    stamp = max((p.stat().st_mtime for p in directory.glob("*.json")), default=0)
    docs = _load_results(str(directory), stamp)
    return [d for d in docs if (variant is None or d.get("variant", "") == variant)
            and (listing or not d.get("invalid"))]


def _started(doc: dict) -> dt.datetime:
    return dt.datetime.fromisoformat(doc["started"])


def latest_per_host(docs: list[dict]) -> list[dict]:
    """Each host's latest result (hosts are told apart by their salted id), oldest first: a
    machine rerunning a recipe replaces its own bars, not another machine's."""
    latest = {}
    for doc in docs:
        held = latest.get(doc["host"]["id"])
        if held is None or _started(doc) >= _started(held):
            latest[doc["host"]["id"]] = doc
    return sorted(latest.values(), key=_started)


def by_kernel(data_dir: Path = DATA_DIR) -> list[dict]:
    """Every result file grouped by the kernel its runs measured on: the host's, or the lab
    VM's guest kernel (with its accelerator). Newest first within a kernel."""
    groups = {}
    for directory in result_dirs(data_dir):
        for doc in results_for(directory.name, variant=None, data_dir=data_dir):
            labs = [r["lab"] for p in doc["points"] for r in p["runs"] if "lab" in r]
            kernels = {(lab.get("kernel", "?"), f"lab VM ({lab['accelerator']})")
                       for lab in labs} or {(doc["software"]["kernel"], "host")}
            for kernel, where in kernels:
                group = groups.setdefault((kernel, where), {"kernel": kernel, "where": where,
                                                            "recipes": set(), "results": 0,
                                                            "latest": ""})
                group["recipes"].add(doc["recipe"]["name"])
                group["results"] += 1
                group["latest"] = max(group["latest"], doc["started"][:10])
    return [{**g, "recipes": sorted(g["recipes"])}
            for _, g in sorted(groups.items(), key=lambda kv: kv[0])]


def result_dirs(data_dir: Path) -> list[Path]:
    """A data directory's recipe directories (the transcribed sources are not results)."""
    return sorted(p for p in Path(data_dir).iterdir() if p.is_dir() and p.name != "historical")


def results_index(data_dir: Path | None = None) -> list[dict]:
    """One row per result file, by recipe and variant, newest first: where it ran, on what
    software, and whether the project ran it or someone contributed it. Free text is cut at
    200 characters: a table row, not the file."""
    data_dir = data_dir or DATA_DIR  # at call time, so a test can point it elsewhere
    rows = []
    for directory in result_dirs(data_dir):
        for doc in sorted(results_for(directory.name, variant=None, data_dir=data_dir,
                                      listing=True), key=_started, reverse=True):
            contribution = doc.get("contribution")
            rows.append({
                "recipe": directory.name, "variant": doc.get("variant", ""),
                "profile": doc["profile"], "started": doc["started"][:16].replace("T", " "),
                "host": f"{shorten(host_description(doc), 200)}; id {doc['host']['id'][:8]}",
                "software": software_text(doc),
                "contributed": contribution is not None,
                "submitted": str((contribution or {}).get("submitted", ""))[:10],
                "description": shorten((contribution or {}).get("description", ""), 200),
                "invalid": shorten("; ".join(doc.get("invalid", [])), 300)})
    return sorted(rows, key=lambda r: (r["recipe"], r["variant"]))  # stable: newest first
