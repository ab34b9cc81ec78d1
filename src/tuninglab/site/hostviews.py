"""One host at a time: the views of a recipe's results that show a single result file (the
per-second series, the IO per transaction, the trends and the verdicts), for every host.

A topic page embeds these views for one host only, the project's own latest run, so its weight
does not grow with the number of contributors. The other hosts' views are static JSON files
written beside the built site, which the page fetches when a reader picks a host:

    assets/hosts/<recipe>/<variant or _main>/index.json    the hosts, newest last
    assets/hosts/<recipe>/<variant or _main>/<key>.json    one host's views

Figures are the same dicts the fences embed (texts escaped by charts); tables are the same
HTML (escaped by result_tables); host names in the index are plain text, which the page sets
as text.
"""

import hashlib
import json
from pathlib import Path

from tuninglab.evidence import result_files, servers
from tuninglab.evidence.host_class import server_of
from tuninglab.results.metrics import METRICS, TPCC
from tuninglab.results.result import Result
from tuninglab.site import charts, describe, io_chart, result_tables
from tuninglab.visible import plain

DIR = "assets/hosts"
MAIN = "_main"  # the main experiment: a variant name cannot start with "_"


def key(doc: dict) -> str:
    """A host's file name: a hash of its host key (result_files.host_key: its host class and
    server, and whether contributed), safe whatever the file holds."""
    host, contributed = result_files.host_key(doc)
    return hashlib.sha256((host + ("\0contributed" if contributed else "")).encode()
                          ).hexdigest()[:16]


def group_path(recipe: str, variant: str) -> str:
    """Where a recipe's (or a variant's) host files are, relative to the site root."""
    return f"{DIR}/{recipe}/{variant or MAIN}"


def shown_by_default(docs: list[dict]) -> dict:
    """The result a page's one-host views show first: the latest of the newest host whose
    latest result is the project's own, on the first server in the pages' order that has one
    (servers.py), so a contribution, a duet (each server on half the machine) or a result on
    another server adds a host to pick rather than replacing the reference; when every host
    contributed, the newest."""
    hosts = result_files.latest_per_host(docs)
    whole = [doc for doc in hosts if Result.of(doc).design != "duet"] or hosts
    own = [doc for doc in whole if not Result.of(doc).contributed] or whole
    first = min(servers.rank(server_of(doc)) for doc in own)
    return [doc for doc in own if servers.rank(server_of(doc)) == first][-1]


def series_metrics(doc: dict) -> list[str]:
    """The charted metrics this result has a per-second series of (in its first repeats)."""
    series = [p.runs[0].get("series") or {} for p in Result.of(doc).points]
    return [m for m in METRICS
            if any(v is not None for s in series for v in charts.series_values(s, m) or [])]


def verdicts_view(doc: dict) -> str:
    """The verdicts' view: the verdicts, the regime and memory checks, and the "functional
    only" label of a lab VM result."""
    return (result_tables.verdicts(doc) + result_tables.validity(doc)
            + result_tables.functional(doc))


# The views that are tables, by name; "series:<metric>" and "io" are charts.
TABLES = {"trends": result_tables.trends, "lab": result_tables.lab_machine,
          "tpcc": result_tables.tpcc, "verdicts": verdicts_view}


def view(doc: dict, name: str) -> dict:
    """One one-host view of a result, as a page embeds it (fence) and a host's file holds
    it: {"figure": ...} for "series:<metric>" and "io", {"html": ...} for the TABLES; with
    "note", the overrides it was run with (overrides_note)."""
    if name.startswith("series:"):
        shown = {"figure": charts.series_lines(doc, name.removeprefix("series:"))}
    elif name == "io":
        shown = {"figure": io_chart.io_bars(doc)}
    elif name in TABLES:
        shown = {"html": TABLES[name](doc)}
    else:
        raise ValueError(f"no one-host view {name!r}")
    note = overrides_note(doc)
    return {**shown, "note": note} if note else shown


def overrides_note(doc: dict) -> str:
    """A result made with the command line's --repeats, --duration or --warmup says so beside
    each of its views, whichever host a reader picks: it is not the profile's experiment as
    the page's text describes it. Plain text: the page escapes it (fence) or sets it as text
    (charts.js)."""
    over, skipped = describe.overrides_text(doc), describe.skipped_text(doc)
    text = " and ".join(t for t in (over and f"was {over}", skipped) if t)
    if not text:
        return ""
    return f"This result ({plain(Result.of(doc).date)}) {plain(text)}."


def views(doc: dict) -> dict:
    """Every one-host view of a result that has something to show (view): a series chart per
    metric sampled, the IO chart where IO was counted, the trends, the lab VM's machine
    where the runs ran in it, the TPC-C-like mix of that load, the verdicts."""
    r = Result.of(doc)
    names = [f"series:{m}" for m in series_metrics(r)] + ["io", "trends"] \
        + ["lab"] * bool(r.labs) + ["tpcc"] * (r.tool == TPCC) + ["verdicts"]
    out = {name: view(doc, name) for name in names}
    if not out["io"]["figure"]["data"]:
        del out["io"]
    return out


def index(docs: list[dict]) -> dict:
    hosts = [Result.of(d) for d in result_files.latest_per_host(docs)]
    return {"default": key(shown_by_default(docs)),
            "hosts": [{"key": key(r.raw), "name": describe.host_name(r), "started": r.date,
                       "contributed": r.contributed} for r in hosts]}


def write(site_dir: Path, data_dir: Path) -> dict:
    """Every recipe's and variant's host files under site_dir. Returns counts and the size of
    the largest file, for the scale bench."""
    written, largest = 0, 0
    for directory in result_files.result_dirs(data_dir):
        docs = result_files.results_for(directory.name, variant=None, data_dir=data_dir)
        for variant in sorted({r.variant for r in docs}):
            group = [r for r in docs if r.variant == variant]
            out = Path(site_dir) / group_path(directory.name, variant)
            out.mkdir(parents=True, exist_ok=True)
            _dump(out / "index.json", index(group))
            for doc in result_files.latest_per_host(group):
                largest = max(largest, _dump(out / f"{key(doc)}.json",
                                             {"name": describe.host_name(doc),
                                              "views": views(doc)}))
                written += 1
    return {"hosts": written, "largest_bytes": largest}


def _dump(path: Path, value) -> int:
    text = json.dumps(value, separators=(",", ":"))
    path.write_text(text)
    return len(text)
