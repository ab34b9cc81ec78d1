"""Finding and loading result files: a recipe's results (cached until a file changes), each
host's latest and the recipe directories (site/result_listings.py lists them for the pages).

What a file stores is not taken on trust: every statistic a page shows is recomputed from the
file's runs when it is loaded (document.recompute), Unicode format characters (bidi controls,
zero-width ones) are made visible as [U+XXXX], and a file dated in the future (which would
stay every host's latest) is never charted: the Results page lists it as such and the build
warns (future_dated).

The result files read are those under data/, or under $TUNINGLAB_DATA_DIR when it is set (the
browser test builds the site from a copy with a hostile file added). Only the evidence reads it:
recipes still write to files.DATA_DIR, and the transcribed historical tables always come
from the project's data/historical/ (historical.py). They are listed and read as files.py
lists and reads data/: regular files only. A symbolic link, a FIFO, a socket or a device (or a
recipe directory that is a link) is never read nor counted; unread() names each, for
data.claims, the site build and the campaign to warn about.
"""

import datetime as dt
import json
import os
from functools import lru_cache
from pathlib import Path

from tuninglab import files
from tuninglab.evidence.host_class import host_class, server_of
from tuninglab.evidence.superseded import superseded_why
from tuninglab.results import calibrations, document
from tuninglab.results.result import Result
from tuninglab.visible import plain, visible

DATA_DIR = Path(os.environ.get("TUNINGLAB_DATA_DIR") or files.DATA_DIR)
# Where the site serves each result file as it is in data/ (publish), so that every row and
# chart can link to the evidence: <site>/data/<recipe>/<file>.json.
FILES = "data"


def now() -> dt.datetime:
    return dt.datetime.now(dt.timezone.utc)


@lru_cache(maxsize=64)
def _load_results(directory: str, _stamp: float) -> tuple:
    found, _ = files.listing(directory, ".json")
    return tuple(r for r in map(_loaded, found) if r is not None)


def _loaded(path: Path) -> Result | None:
    try:
        return _load(path)
    except (files.NotRegular, FileNotFoundError):  # swapped or removed since it was listed
        return None


def _load(path: Path) -> Result:
    """A result as the evidence reads it: plain text, statistics recomputed from its runs, then
    wrapped once as a Result (every reader downstream gets that one object). One whose runs
    give none is marked invalid (listed, never charted)."""
    try:
        doc = _plain(json.loads(files.read_regular(path, files.MAX_DATA_BYTES).decode("utf-8")))
    except ValueError as exc:  # not JSON, not UTF-8, a 5,000-digit number: the build stops
        raise ValueError(f"{path}: not a result file the site can read ({exc}); "
                         f"`invoke data.check --path {path}` says what is wrong") from None
    try:
        document.recompute(doc)
    except (ValueError, KeyError, TypeError, StopIteration, ArithmeticError) as exc:
        doc["invalid"] = [*doc.get("invalid", []),
                          plain(f"its statistics cannot be computed from its runs ({exc})")]
    doc["_file"] = f"{FILES}/{path.parent.name}/{path.name}"  # where the site serves it
    return Result(doc)


def _plain(value):
    """Every string of a document, keys too, with its format characters made visible."""
    if isinstance(value, str):
        return plain(value)
    if isinstance(value, dict):
        return {plain(k): _plain(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_plain(v) for v in value]
    return value


def future(doc: dict | Result) -> str | None:
    """Why a result is dated in the future (its start, end or submission), or None."""
    clock, doc = now(), Result.of(doc).raw
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
        for path in files.listing(directory, ".json")[0]:
            try:
                why = future(json.loads(files.read_regular(path, files.MAX_DATA_BYTES)
                                        .decode("utf-8")))
            except (OSError, ValueError):
                continue
            if why:
                out.append(f"{directory.name}/{path.name}: {plain(why)}")
    return out


def stamp(directory: Path) -> float:
    """When a directory's JSON files or its names last changed (0: no directory): what a cache
    of them is keyed on."""
    return files.stamp(directory, ".json")


def results_for(recipe: str, variant: str | None = "", data_dir: Path | None = None,
                listing: bool = False) -> list[Result]:
    """Result files of a recipe's main experiment or of one variant (None: all), oldest
    first. A result marked invalid (its TPC-C-like data broke a consistency condition) is
    never charted, nor one dated in the future (future): only a listing (the Results page)
    gets them."""
    directory = Path(data_dir or DATA_DIR) / recipe  # at call time: a test may point it elsewhere
    if not directory.is_dir():
        return []
    results = _load_results(str(directory), stamp(directory))
    return [r for r in results if (variant is None or r.variant == variant)
            and (listing or not (r.invalid or future(r)))]


def started(doc: dict | Result) -> dt.datetime:
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
    return sorted(latest.values(), key=started)


def _rank(doc: dict) -> tuple:
    return superseded_why(doc) is None, started(doc)


NOT_RESULTS = ("historical", "claims", calibrations.DIR)


def result_dirs(data_dir: Path) -> list[Path]:
    """A data directory's recipe directories (the transcribed sources, the claims map and the
    A/A calibration records are not results); never one that is a link (unread names it)."""
    return [p for p in files.directories(data_dir)[0] if p.name not in NOT_RESULTS]


def unread(data_dir: Path | None = None) -> list[str]:
    """A line for every name the evidence leaves unread under data/: a directory there, a
    result file or an A/A calibration record that is a symbolic link, a FIFO, a socket or a
    device. The claims map and the historical sources are read strictly instead (an error)."""
    data_dir = Path(data_dir or DATA_DIR)
    if not data_dir.is_dir():
        return []
    found, refused = files.directories(data_dir)
    for directory in found:
        if directory.name not in ("historical", "claims"):
            refused += files.listing(directory, ".json")[1]
    return [visible(str(r)) for r in refused]
