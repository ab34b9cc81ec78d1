"""Finding and loading result files: a recipe's results (cached until a file changes), each
host's latest, the recipe directories, and the listings of the Results page and the kernels
table.

What a file stores is not taken on trust: every statistic a page shows is recomputed from the
file's runs when it is loaded (document.recompute), Unicode format characters (bidi controls,
zero-width ones) are made visible as [U+XXXX], and a file dated in the future (which would
stay every host's latest) is never charted: the Results page lists it as such and the build
warns (future_dated).

The result files read are those under data/, or under $TUNINGLAB_DATA_DIR when it is set (the
browser test builds the site from a copy with a hostile file added). Only the site reads it:
recipes still write to files.DATA_DIR, and the transcribed historical tables always come
from the project's data/historical/ (historical.py).
"""

import datetime as dt
import json
import os
import shutil
from functools import lru_cache
from pathlib import Path

from tuninglab import files
from tuninglab.results import calibrations, document
from tuninglab.results.result import Result
from tuninglab.site.describe import host_description, plain, shorten, software_text
from tuninglab.site.host_class import host_class, server_of
from tuninglab.site.superseded import superseded_why

DATA_DIR = Path(os.environ.get("TUNINGLAB_DATA_DIR") or files.DATA_DIR)
# Where the site serves each result file as it is in data/ (publish), so that every row and
# chart can link to the evidence: <site>/data/<recipe>/<file>.json.
FILES = "data"


def now() -> dt.datetime:
    return dt.datetime.now(dt.timezone.utc)


@lru_cache(maxsize=64)
def _load_results(directory: str, _stamp: float) -> tuple:
    return tuple(_load(path) for path in sorted(Path(directory).glob("*.json")))


def _load(path: Path) -> dict:
    """A result as the site shows it: plain text, statistics recomputed from its runs. One
    whose runs give none is marked invalid (listed, never charted)."""
    try:
        doc = _plain(json.loads(path.read_text()))
    except ValueError as exc:  # not JSON, not UTF-8, a 5,000-digit number: the build stops
        raise ValueError(f"{path}: not a result file the site can read ({exc}); "
                         f"`invoke data.check --path {path}` says what is wrong") from None
    try:
        document.recompute(doc)
    except (ValueError, KeyError, TypeError, StopIteration, ArithmeticError) as exc:
        doc["invalid"] = [*doc.get("invalid", []),
                          plain(f"its statistics cannot be computed from its runs ({exc})")]
    doc["_file"] = f"{FILES}/{path.parent.name}/{path.name}"  # where the site serves it
    return doc


def _plain(value):
    """Every string of a document, keys too, with its format characters made visible."""
    if isinstance(value, str):
        return plain(value)
    if isinstance(value, dict):
        return {plain(k): _plain(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_plain(v) for v in value]
    return value


def future(doc: dict) -> str | None:
    """Why a result is dated in the future (its start, end or submission), or None."""
    clock = now()
    contribution = doc.get("contribution")
    stamps = {"started": doc.get("started"), "finished": doc.get("finished"),
              "submitted": contribution.get("submitted") if isinstance(contribution, dict)
              else None}
    return next((f"dated in the future ({name} {value})" for name, value in stamps.items()
                 if document.in_future(value, clock)), None)


def future_dated(data_dir: Path | None = None) -> list[str]:
    """'<recipe>/<file>: why' for every result file dated in the future: the build warns."""
    data_dir = Path(data_dir or DATA_DIR)
    out = []
    for directory in result_dirs(data_dir):
        for path in sorted(directory.glob("*.json")):
            try:
                why = future(json.loads(path.read_text()))
            except (OSError, ValueError):
                continue
            if why:
                out.append(f"{directory.name}/{path.name}: {plain(why)}")
    return out


def results_for(recipe: str, variant: str | None = "", data_dir: Path | None = None,
                listing: bool = False) -> list[dict]:
    """Result files of a recipe's main experiment or of one variant (None: all), oldest
    first. A result marked invalid (its TPC-C-like data broke a consistency condition) is
    never charted, nor one dated in the future (future): only a listing (the Results page)
    gets them."""
    directory = Path(data_dir or DATA_DIR) / recipe  # at call time: a test may point it elsewhere
    if not directory.is_dir():
        return []
    stamp = max((p.stat().st_mtime for p in directory.glob("*.json")), default=0)
    docs = _load_results(str(directory), stamp)
    return [d for d in docs if (variant is None or Result.of(d).variant == variant)
            and (listing or not (Result.of(d).invalid or future(d)))]


def _started(doc: dict) -> dt.datetime:
    return dt.datetime.fromisoformat(Result.of(doc).started)


def host_key(doc: dict) -> tuple[str, bool]:
    """A host, as the charts draw it, and whether the result is contributed. The project's own
    machines are their host class and server (host_class.py: every VM of one kind is one host,
    not one per machine instance); a contributor's machine is its salted id, so that two
    contributors of alike hardware stay two series. A contribution never replaces a project
    result, even one that carries (or forged) the project host's id."""
    r = Result.of(doc)
    if r.contributed:
        return r.host_id, True
    return f"{host_class(doc).key}|{server_of(doc)}", False


def latest_per_host(docs: list[dict]) -> list[dict]:
    """Each host's (host class's) latest result, oldest first: a machine rerunning a recipe
    replaces its class's bars, not another class's. A superseded result (superseded.py) is
    drawn only while its host has no current one."""
    latest = {}
    for doc in docs:
        held = latest.get(host_key(doc))
        if held is None or _rank(doc) >= _rank(held):
            latest[host_key(doc)] = doc
    return sorted(latest.values(), key=_started)


def _rank(doc: dict) -> tuple:
    return superseded_why(doc) is None, _started(doc)


def by_kernel(data_dir: Path | None = None) -> list[dict]:
    """Every result file grouped by the kernel its runs measured on: the host's, or the lab
    VM's guest kernel (with its accelerator). Newest first within a kernel. A listing of files,
    as the Results page is (invalid ones count), but without those dated in the future."""
    groups = {}
    for directory in result_dirs(data_dir or DATA_DIR):
        for doc in results_for(directory.name, variant=None, data_dir=data_dir, listing=True):
            if future(doc):
                continue
            r = Result.of(doc)
            kernels = {(lab.get("kernel", "?"), f"lab VM ({lab['accelerator']})")
                       for lab in r.labs} or {(r.software["kernel"], "host")}
            for kernel, where in kernels:
                group = groups.setdefault((kernel, where), {"kernel": kernel, "where": where,
                                                            "recipes": set(), "results": 0,
                                                            "latest": ""})
                group["recipes"].add(r.recipe)
                group["results"] += 1
                group["latest"] = max(group["latest"], r.date)
    return [{**g, "recipes": sorted(g["recipes"])}
            for _, g in sorted(groups.items(), key=lambda kv: kv[0])]


def result_dirs(data_dir: Path) -> list[Path]:
    """A data directory's recipe directories (the transcribed sources, the claims map and the
    A/A calibration records are not results)."""
    return sorted(p for p in Path(data_dir).iterdir()
                  if p.is_dir() and p.name not in ("historical", "claims", calibrations.DIR))


def publish(site_dir: Path, data_dir: Path | None = None) -> int:
    """Copy every result file into the built site (FILES), byte for byte: the evidence the
    pages link to. Returns how many."""
    return sum(copy_into(Path(site_dir) / FILES / directory.name, directory.glob("*.json"))
               for directory in result_dirs(Path(data_dir or DATA_DIR)))


def copy_into(out: Path, paths) -> int:
    """Copy files byte for byte into directory out (made if missing); returns how many."""
    out.mkdir(parents=True, exist_ok=True)
    count = 0
    for path in sorted(paths):
        shutil.copyfile(path, out / path.name)
        count += 1
    return count


def results_index(data_dir: Path | None = None) -> list[dict]:
    """One row per result file, by recipe and variant, newest first: where it ran, on what
    software, and whether the project ran it or someone contributed it. Free text is cut at
    200 characters: a table row, not the file."""
    data_dir = data_dir or DATA_DIR  # at call time, so a test can point it elsewhere
    rows = []
    for directory in result_dirs(data_dir):
        for doc in sorted(results_for(directory.name, variant=None, data_dir=data_dir,
                                      listing=True), key=_started, reverse=True):
            r = Result.of(doc)
            contribution = r.contribution
            rows.append({
                "recipe": directory.name, "variant": r.variant, "file": r.file,
                "profile": r.profile, "started": r.started[:16].replace("T", " "),
                "host": f"{shorten(host_description(r), 200)}; id {r.host_id[:8]}",
                "software": software_text(r),
                "contributed": contribution is not None,
                "submitted": str((contribution or {}).get("submitted", ""))[:10],
                "description": shorten(r.description or "", 200),
                "invalid": shorten("; ".join([*r.invalid, *filter(None, [future(doc)])]), 300)})
    return sorted(rows, key=lambda r: (r["recipe"], r["variant"]))  # stable: newest first
