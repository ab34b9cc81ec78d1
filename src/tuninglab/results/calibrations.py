"""A/A calibrations kept as data: data/calibrations/<UTC stamp>-<host id prefix>.json, one per
`invoke lab.noise` (calibrate.py). Each holds the host, storage, device baseline, server and
software blocks as the A/A result documents had them and, per design, the A/A comparison (its
log ratio, standard error and degrees of freedom) with the per-point values it comes from (a
duet's A/A calibrates the duet's class, each server on half the machine; the others the
whole machine's):
those values, not the stored numbers, are what aa_estimates reads (and problems() refuses a
file whose stored numbers its values do not give).

Across sittings of one host class (the lead groups records by class), the A/A log ratios say
how far a comparison of nothing moves from one sitting to the next beyond its own standard
error (between_sd_of, a method-of-moments estimate). Verdicts no longer take it: they pool by
results/sitting_model.py, which reads the records' A/A estimates (aa_estimates) in its own
likelihood; the pooling benches keep between_sd_of for pooling.pool, their baseline.
"""

from __future__ import annotations

import json
import math
from dataclasses import replace
from datetime import datetime
from pathlib import Path

from tuninglab import files
from tuninglab.results import pooling
from tuninglab.results.pooling import Estimate
from tuninglab.results.result import places

DIR = "calibrations"
# Why a pull request (and data.check --contributions) refuses a record: only the project adds them.
NOT_CONTRIBUTED = ("an A/A calibration record: it sets how wide every pooled interval of its "
                   "host class is, so only the project's own machines add them (invoke lab.noise)")
KIND = "A/A calibration"
SCHEMA_VERSION = 1
BLOCKS = ("host", "storage", "device_baseline", "server", "software")
DESIGNS = ("switchback", "restart", "duet")
# A duet's A/A (its servers each on half the machine) calibrates the duet's host class, the
# others the whole machine's (evidence/host_class.py): one record, two classes.
WHOLE_MACHINE = ("switchback", "restart")
PAIRED = ("switchback", "duet")   # values paired by round: a switchback's blocks, a duet's halves
TOP_KEYS = ("kind", "schema_version", "measured", "quick", *BLOCKS, "designs")
DESIGN_KEYS = ("metric", "paired", "baseline", "point", "baseline_values", "point_values",
               "log_ratio", "se", "df")
STORED = ("log_ratio", "se", "df")
MAX_BYTES = 5_000_000  # a record is a few kB; more is not one


def _values(point: dict, metric: str, repeats=None) -> list[float]:
    runs = sorted(point["runs"], key=lambda r: r["repeat"])
    return [r["summary"][metric] for r in runs if repeats is None or r["repeat"] in repeats]


def design_entry(doc: dict) -> dict | None:
    """An A/A result document's comparison as a record holds it (a switchback's values in
    round order, the rounds both points have); None when its repeats give none (a repeat of
    0: a stalled run)."""
    metric = doc.get("workload", {}).get("metric", "tps")
    base_id = doc["sweep"]["baseline"]
    base = next(p for p in doc["points"] if p["id"] == base_id)
    other = next(p for p in doc["points"] if p["id"] != base_id)
    paired = doc["plan"].get("design") in PAIRED
    both = ({r["repeat"] for r in base["runs"]} & {r["repeat"] for r in other["runs"]}
            if paired else None)
    entry = {"metric": metric, "paired": paired, "baseline": base_id, "point": other["id"],
             "baseline_values": _values(base, metric, both),
             "point_values": _values(other, metric, both)}
    if doc["plan"].get("design") == "duet":   # its halves' places, as a duet result pools
        entry["point_first"] = places(other["runs"], base["runs"])
    found = estimate_of(entry)
    if found is None:
        return None
    return entry | {"log_ratio": found.log_ratio, "se": found.se, "df": found.df}


def record_of(docs: dict[str, dict], measured: str, quick: bool) -> dict | None:
    """The calibration record of lab.noise's A/A result documents ({design: document}); the
    blocks are the restart document's (both ran in one sitting). A design whose repeats give
    no comparison is left out; None when neither gives one."""
    first = docs.get("restart") or next(iter(docs.values()))
    entries = {design: design_entry(docs[design]) for design in DESIGNS if design in docs}
    designs = {design: entry for design, entry in entries.items() if entry is not None}
    return {"kind": KIND, "schema_version": SCHEMA_VERSION, "measured": measured,
            "quick": quick, **{block: first.get(block) or {} for block in BLOCKS},
            "designs": designs} if designs else None


def estimate_of(entry: dict) -> Estimate | None:
    """A design entry's comparison from its values: a duet's with its places cancelled
    (pooling.placed_estimate, as claim_verdicts pools a duet result), the others' paired by
    round or not."""
    if "point_first" in entry:
        return pooling.placed_estimate(entry["point_values"], entry["baseline_values"],
                                       entry["point_first"])
    return pooling.estimate(entry["point_values"], entry["baseline_values"], entry["paired"])


def file_name(record: dict) -> str:
    """<UTC stamp>-<host id prefix>.json, the stamp from `measured`: 20261124T043008Z-48806fd0."""
    stamp = record["measured"][:19].replace("-", "").replace(":", "")
    return f"{stamp}Z-{record['host']['id'][:8]}.json"


def load_all(data_dir: Path) -> list[dict]:
    """Every record under data_dir/calibrations/, in name order; ValueError naming each
    problem of a file that is not a valid record (problems()). A name there that is no
    regular file (a link, a FIFO: files.listing) is never read nor counted."""
    out = []
    for path in files.listing(Path(data_dir) / DIR, ".json")[0]:
        try:
            record, found = read(path)
        except files.NotRegular:  # swapped for a link or a FIFO since it was listed
            continue
        if found:
            raise ValueError("\n".join(found))
        out.append(record)
    return out


def aa_estimates(record: dict, duet: bool = False) -> list[Estimate]:
    """The record's A/A comparisons of the whole machine (switchback, restart) or, duet, of
    its duet, recomputed from their values, each labelled with the record's sitting (its host
    id: one machine instance); a design whose values give none is left out."""
    return [e for _, e in _by_design(record, ("duet",) if duet else WHOLE_MACHINE)]


def _by_design(record: dict, designs=DESIGNS) -> list[tuple[str, Estimate]]:
    out = []
    for design in designs:
        entry = record["designs"].get(design)
        found = entry and estimate_of(entry)
        if found:
            out.append((design, replace(found, sitting=record["host"]["id"])))
    return out


def between_sd_of(estimates: list[Estimate]) -> tuple[float, int] | None:
    """The between-sitting sd of A/A estimates and the number of sittings (None below 2): an
    A/A's true log ratio is 0, so each sitting's squared log ratio, less its own variance,
    estimates tau^2 (method of moments, unbiased); the mean over sittings, each sitting its
    results' mean, truncated at 0."""
    per: dict[str, list[float]] = {}
    for e in estimates:
        per.setdefault(e.sitting, []).append(e.log_ratio**2 - e.se**2)
    if len(per) < 2:
        return None
    tau2 = sum(sum(v) / len(v) for v in per.values()) / len(per)
    return math.sqrt(max(tau2, 0.0)), len(per)


# --- validation --------------------------------------------------------------------------------

def problems(path: Path) -> list[str]:
    """Every problem of a calibration record, one line each: '<file>: <key path>: <what is
    wrong>; expected <what>'. An empty list: a valid record."""
    try:
        return read(path)[1]
    except files.NotRegular as exc:  # a link, a FIFO: never opened, never waited on
        return [f"{path}: (top): {exc.what}; expected a calibration record"]


def read(path: Path) -> tuple[dict | None, list[str]]:
    """The record read once (files.read_regular: NotRegular for a link or a FIFO), and its
    problems (problems()); None for the record where there are any."""
    path = Path(path)
    try:
        record = json.loads(files.read_regular(path, MAX_BYTES).decode("utf-8"))
    except files.TooLarge as exc:
        return None, [f"{path}: (top): {exc.size} bytes; expected a record under "
                      f"{MAX_BYTES} bytes"]
    except files.NotRegular:
        raise
    except (OSError, UnicodeDecodeError) as exc:
        return None, [f"{path}: (top): cannot be read ({exc}); expected a calibration record"]
    except ValueError as exc:
        return None, [f"{path}: (top): not JSON ({exc}); expected a calibration record"]
    found = [f"{path}: {line}" for line in record_problems(record)]
    return (None if found else record), found


def record_problems(record) -> list[str]:
    """problems() of a record already read, each line without the file."""
    if not isinstance(record, dict):
        return [f"(top): {_kind(record)}; expected an object"]
    out = _keys(record, TOP_KEYS, "")
    if "kind" in record and record["kind"] != KIND:
        out.append(f"kind: {record['kind']!r}; expected {KIND!r}")
    if "schema_version" in record and record["schema_version"] != SCHEMA_VERSION:
        out.append(f"schema_version: {record['schema_version']!r}; expected {SCHEMA_VERSION}")
    if "measured" in record:
        out += _time(record["measured"])
    if "quick" in record and not isinstance(record["quick"], bool):
        out.append(f"quick: {_kind(record['quick'])}; expected true or false")
    for block in BLOCKS:
        if block in record and not isinstance(record[block], dict):
            out.append(f"{block}: {_kind(record[block])}; expected an object")
    if isinstance(record.get("host"), dict):
        host_id = record["host"].get("id")
        if not (isinstance(host_id, str) and len(host_id) == 16
                and all(c in "0123456789abcdef" for c in host_id)):
            out.append(f"host/id: {host_id!r}; expected the host id, 16 hex digits")
    if "designs" in record:
        out += _designs_problems(record["designs"])
    return out


def _kind(value) -> str:
    if isinstance(value, bool):
        return f"{str(value).lower()} (a boolean)"
    names = {dict: "an object", list: "a list", str: "a string", int: "a number",
             float: "a number", type(None): "null"}
    return f"{json.dumps(value)[:40]} ({names.get(type(value), type(value).__name__)})"


def _keys(obj: dict, allowed: tuple, where: str) -> list[str]:
    """A line for each key missing from obj or not one of allowed."""
    out = [f"{where}{k}: missing; expected it in every calibration record"
           for k in allowed if k not in obj]
    out += [f"{where}{k}: an unknown key; expected only {', '.join(allowed)}"
            for k in obj if k not in allowed]
    return out


def _time(value) -> list[str]:
    try:
        ok = isinstance(value, str) and datetime.fromisoformat(value).tzinfo is not None
    except ValueError:
        ok = False
    return [] if ok else [f"measured: {_kind(value)}; expected a time with its zone, "
                          "2026-11-24T04:30:08+00:00"]


def _designs_problems(designs) -> list[str]:
    if not isinstance(designs, dict) or not designs:
        return [f"designs: {_kind(designs)}; expected an object of switchback, restart and/or "
                "duet"]
    out = []
    for design, entry in designs.items():
        where = f"designs/{design}"
        if design not in DESIGNS:
            out.append(f"{where}: an unknown design; expected switchback, restart or duet")
        elif not isinstance(entry, dict):
            out.append(f"{where}: {_kind(entry)}; expected an object")
        else:
            out += _entry_problems(entry, where + "/", design in PAIRED, design == "duet")
    return out


def _entry_problems(entry: dict, where: str, paired: bool, duet: bool = False) -> list[str]:
    out = _keys(entry, DESIGN_KEYS + (("point_first",) if duet else ()), where)
    if duet and isinstance(entry.get("point_first"), list) and not all(
            isinstance(f, bool) for f in entry["point_first"]):
        out.append(f"{where}point_first: {_kind(entry['point_first'])}; expected a list of "
                   "true or false, one per half (whether the point's server had the first place)")
    for key in ("metric", "baseline", "point"):
        if key in entry and not isinstance(entry[key], str):
            out.append(f"{where}{key}: {_kind(entry[key])}; expected a string")
    if "paired" in entry and entry["paired"] is not paired:
        out.append(f"{where}paired: {_kind(entry['paired'])}; expected {str(paired).lower()} "
                   "(a switchback's values are paired by round and a duet's by half, a "
                   "restart's are not)")
    for key in ("baseline_values", "point_values"):
        if key in entry:
            out += _series(entry[key], where + key)
    for key in STORED:
        if key in entry and not _number(entry[key]):
            out.append(f"{where}{key}: {_kind(entry[key])}; expected a finite number")
    if not out:
        out += _stored(entry, where)
    return out


def _number(value) -> bool:
    return (isinstance(value, (int, float)) and not isinstance(value, bool)
            and math.isfinite(value))


def _series(values, where: str) -> list[str]:
    if not isinstance(values, list) or len(values) < 2:
        return [f"{where}: {_kind(values)}; expected a list of at least 2 measures"]
    return [f"{where}/{i}: {_kind(v)}; expected a finite number above 0"
            for i, v in enumerate(values) if not (_number(v) and v > 0)]


def _stored(entry: dict, where: str) -> list[str]:
    """Lines for stored numbers the values do not give (and for values that give none)."""
    if entry["paired"] and len(entry["point_values"]) != len(entry["baseline_values"]):
        return [f"{where}point_values: {len(entry['point_values'])} rounds against the "
                f"baseline's {len(entry['baseline_values'])}; expected one value per round"]
    if "point_first" in entry and len(entry["point_first"]) != len(entry["point_values"]):
        return [f"{where}point_first: {len(entry['point_first'])} places against "
                f"{len(entry['point_values'])} halves; expected one place per half"]
    found = estimate_of(entry)
    if found is None:
        return [f"{where}point_values: no spread in the values; expected repeats that vary"
                + (" and a half in each place" if "point_first" in entry else "")]
    return [f"{where}{key}: {entry[key]!r}, but the values give {getattr(found, key)!r}; "
            "expected the statistic of the values"
            for key in STORED if not math.isclose(entry[key], getattr(found, key),
                                                  rel_tol=1e-9, abs_tol=1e-12)]
