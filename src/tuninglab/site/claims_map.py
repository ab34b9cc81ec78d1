"""The claims map (data/claims/<source>.toml): which of a source's published results a recipe
tests, and why each other one cannot be tested here.

A source's results are the cells of its transcribed tables (a row against the table's baseline
row, in one value column) and the rows of its tables of claims (numbers its text states). Each
is either a [[claim]], naming the recipe, variant, point and metric that answer it today, or
covered by an [[untestable]] entry with its reason. Every result of every source is one or the
other: `problems()` lists what is not, and the strict build fails on it.

    [[claim]]
    id = "direct-io-2-6-large"   # unique in the map; pages name it
    table = "direct-io-2-6.csv"
    row = "Direct IO"            # the table's label
    column = "LARGE"             # a value column; not for a table of claims
    source_baseline = "..."      # optional: the row it is relative to (default: the table's)
    reads = "gain-percent"       # a table of claims: gain-percent | times | inverse-times
    recipe = "direct-io"
    variant = "tpcc"             # optional; "" is the recipe's main experiment
    point = "O_DIRECT"           # compared with the recipe's baseline point
    invert = false               # true: the source's row is the recipe's baseline, and the
                                 # source's baseline row is `point`
    metric = "tps"               # optional: the result's primary metric, or a cost
    headline = true              # optional: the topic's claim on the home page
    why = "..."                  # optional: why this recipe and shape answer it

    [[untestable]]
    table = "hyperthreading.csv"
    rows = ["HT OFF"]            # optional: every row no claim maps
    columns = ["LARGE"]          # optional: every value column
    reason = "..."
    topic = "..."                # optional: the page it belongs to (default: the table's)
"""

import tomllib
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from tuninglab import files
from tuninglab.errors import UserError
from tuninglab.recipes.load import load
from tuninglab.results.metrics import COST
from tuninglab.site import historical

CLAIMS_DIR = files.DATA_DIR / "claims"
READS = ("gain-percent", "times", "inverse-times")
CLAIM_KEYS = {"id", "table", "row", "column", "source_baseline", "reads", "recipe", "variant",
              "point", "invert", "metric", "headline", "why"}
UNTESTABLE_KEYS = {"table", "rows", "columns", "reason", "topic"}


@dataclass(frozen=True)
class Claim:
    id: str
    source: str          # the source's slug (data/historical/<slug>)
    table: str
    row: str
    column: str          # "" for a table of claims
    source_baseline: str  # "" for a table of claims
    source_ratio: float  # the source's result as a ratio to its baseline, higher = more
    recipe: str
    variant: str
    point: str
    invert: bool
    metric: str          # "" for the result's primary metric
    headline: bool
    why: str
    topic: str           # the recipe's topic page


@dataclass(frozen=True)
class Untestable:
    source: str
    table: str
    row: str
    column: str
    reason: str
    topic: str


def _where(path: Path, section: str, i: int) -> str:
    return f"{path.name} [[{section}]] #{i + 1}"


def _number(text: str, where: str) -> float:
    """A printed number: "3,5" is 3.5 (a decimal comma), "x2" is 2."""
    cleaned = text.strip().lstrip("x~").replace(",", ".")
    try:
        return float(cleaned)
    except ValueError:
        raise UserError(f"{where}: the source prints {text!r}, not a number") from None


def _table(slug: str, table: str, where: str):
    try:
        return historical.historical_table(slug, table)
    except (ValueError, OSError) as exc:
        raise UserError(f"{where}: table: {exc}") from None


def _row(rows: list, meta: dict, label: str, where: str, key: str) -> dict:
    found = next((r for r in rows if r[meta["label_column"]] == label), None)
    if found is None:
        labels = ", ".join(repr(r[meta["label_column"]]) for r in rows)
        raise UserError(f"{where}: {key} {label!r} is not a row of {meta['file']} ({labels})")
    return found


def _source_ratio(entry: dict, meta: dict, rows: list, where: str) -> tuple[float, str, str]:
    """(the ratio, its column, its baseline row) of the source result a claim names."""
    row = _row(rows, meta, entry["row"], where, "row")
    if meta["kind"] == "claims":
        reads = entry.get("reads")
        if reads not in READS:
            raise UserError(f"{where}: reads must be one of {', '.join(READS)} for a table of "
                            f"claims, got {reads!r}")
        value = _number(row["value"], where)
        ratio = {"gain-percent": 1 + value / 100, "times": value,
                 "inverse-times": 1 / value if value else 0}[reads]
        return ratio, "", ""
    column = entry.get("column", "")
    if column not in meta["value_columns"]:
        raise UserError(f"{where}: column {column!r} is not a value column of {meta['file']} "
                        f"({', '.join(meta['value_columns'])})")
    base_label = entry.get("source_baseline") or meta.get("baseline", "")
    if not base_label:
        raise UserError(f"{where}: {meta['file']} names no baseline row: give source_baseline")
    base = _row(rows, meta, base_label, where, "source_baseline")
    ratio = _number(row[column], where) / _number(base[column], where)
    higher = meta.get("column_higher_is_better", {}).get(column, meta.get("higher_is_better",
                                                                          True))
    return (ratio if higher else 1 / ratio), column, base_label


def _recipe_topic(entry: dict, where: str) -> str:
    """The claim's recipe, variant and point exist; its topic."""
    try:
        recipe = load(entry["recipe"], variant=entry.get("variant", ""))
    except UserError as exc:
        raise UserError(f"{where}: {exc}") from None
    if entry["point"] not in recipe.sweep.values or entry["point"] == recipe.sweep.baseline:
        raise UserError(f"{where}: point {entry['point']!r} is not a point of "
                        f"{entry['recipe']} other than its baseline {recipe.sweep.baseline!r} "
                        f"({', '.join(recipe.sweep.values)})")
    metric = entry.get("metric", "")
    if metric and metric not in COST and metric not in ("tps", "new_order_tpm", "mib_per_s"):
        raise UserError(f"{where}: metric {metric!r} is neither a primary metric nor a cost "
                        f"per transaction ({', '.join(COST)})")
    return recipe.topic


def _claim(slug: str, entry: dict, where: str) -> Claim:
    _check_keys(entry, CLAIM_KEYS, {"id", "table", "row", "recipe", "point"}, where)
    source, meta, rows = _table(slug, entry["table"], where)
    ratio, column, base = _source_ratio(entry, meta, rows, where)
    return Claim(id=entry["id"], source=slug, table=entry["table"], row=entry["row"],
                 column=column, source_baseline=base, source_ratio=ratio,
                 recipe=entry["recipe"], variant=entry.get("variant", ""),
                 point=entry["point"], invert=bool(entry.get("invert", False)),
                 metric=entry.get("metric", ""), headline=bool(entry.get("headline", False)),
                 why=entry.get("why", ""), topic=_recipe_topic(entry, where))


def _check_keys(entry: dict, known: set, required: set, where: str) -> None:
    unknown = sorted(set(entry) - known)
    if unknown:
        raise UserError(f"{where}: unknown key {unknown[0]!r} (expected: "
                        f"{', '.join(sorted(known))})")
    missing = sorted(required - set(entry))
    if missing:
        raise UserError(f"{where}: missing key {missing[0]!r}")


def results_of(meta: dict, rows: list) -> list[tuple[str, str]]:
    """Every (row, column) result of a transcribed table that the map must cover: each row
    but the baseline, in each value column with a printed value; a row of a table of claims
    or of a table without value columns, once."""
    label = meta["label_column"]
    if meta["kind"] == "claims" or not meta["value_columns"]:
        return [(r[label], "") for r in rows]
    missing = set(meta.get("missing_values", [])) | {""}
    return [(r[label], c) for r in rows if r[label] != meta.get("baseline")
            for c in meta["value_columns"] if r[c].strip() not in missing]


def _untestable(slug: str, entry: dict, claimed: set, where: str) -> list[Untestable]:
    _check_keys(entry, UNTESTABLE_KEYS, {"table", "reason"}, where)
    source, meta, rows = _table(slug, entry["table"], where)
    results = results_of(meta, rows)
    labels = {r for r, _ in results}
    columns = {c for _, c in results}
    for label in entry.get("rows", []):
        if label not in labels:
            raise UserError(f"{where}: rows: {label!r} is not a result row of {entry['table']}")
    for column in entry.get("columns", []):
        if column not in columns:
            raise UserError(f"{where}: columns: {column!r} is not a value column of "
                            f"{entry['table']}")
    topic = entry.get("topic", meta["topic"])
    return [Untestable(slug, entry["table"], r, c, entry["reason"], topic) for r, c in results
            if (r, c) not in claimed and r in entry.get("rows", [r])
            and c in entry.get("columns", [c])]


def _load_file(path: Path) -> tuple[list[Claim], list[Untestable]]:
    try:
        data = tomllib.loads(path.read_text())
    except (OSError, tomllib.TOMLDecodeError) as exc:
        raise UserError(f"{path.name}: {exc}") from None
    slug = path.stem
    unknown = sorted(set(data) - {"claim", "untestable"})
    if unknown:
        raise UserError(f"{path.name}: unknown table {unknown[0]!r} (expected [[claim]] and "
                        "[[untestable]])")
    claims = [_claim(slug, e, _where(path, "claim", i)) for i, e in
              enumerate(data.get("claim", []))]
    claimed = {(c.table, c.row, c.column) for c in claims} | \
        {(c.table, c.source_baseline, c.column) for c in claims}
    untestable = []
    for i, e in enumerate(data.get("untestable", [])):
        untestable += _untestable(slug, e, {(r, c) for t, r, c in claimed if t == e["table"]},
                                  _where(path, "untestable", i))
    return claims, untestable


@lru_cache(maxsize=4)
def _load_all(directory: str, _stamp: float) -> tuple[tuple, tuple]:
    claims, untestable = [], []
    for path in sorted(Path(directory).glob("*.toml")):
        c, u = _load_file(path)
        claims += c
        untestable += u
    ids = [c.id for c in claims]
    twice = sorted({i for i in ids if ids.count(i) > 1})
    if twice:
        raise UserError(f"claims map: id {twice[0]!r} is given to more than one claim")
    return tuple(claims), tuple(untestable)


def load_map(directory: Path | None = None) -> tuple[tuple, tuple]:
    """(claims, untestable results) of every source's map; UserError naming the file, the
    entry and the key on bad input."""
    directory = Path(directory or CLAIMS_DIR)
    stamp = max((p.stat().st_mtime for p in directory.glob("*.toml")), default=0)
    return _load_all(str(directory), stamp)


def claim(claim_id: str) -> Claim:
    found = next((c for c in load_map()[0] if c.id == claim_id), None)
    if found is None:
        raise UserError(f"no claim {claim_id!r} in the claims map (data/claims/)")
    return found


def problems(directory: Path | None = None, base: Path = historical.HISTORICAL_DIR) -> list[str]:
    """Every source result the map neither claims nor explains, and every topic with more than
    one headline claim: one line each."""
    claims, untestable = load_map(directory)
    covered = {(c.source, c.table, c.row, c.column) for c in claims} | \
        {(c.source, c.table, c.source_baseline, c.column) for c in claims} | \
        {(u.source, u.table, u.row, u.column) for u in untestable}
    out = []
    for source_dir in sorted(Path(base).iterdir()):
        if not (source_dir / "source.toml").is_file():
            continue
        source = historical.historical_source(source_dir.name, base)
        for meta in source.get("tables", []):
            _, _, rows = historical.historical_table(source_dir.name, meta["file"], base)
            for row, column in results_of(meta, rows):
                if (source_dir.name, meta["file"], row, column) not in covered:
                    where = f"{row!r}" + (f", column {column!r}" if column else "")
                    out.append(f"data/claims/{source_dir.name}.toml: {meta['file']} {where} is "
                               "neither a [[claim]] nor [[untestable]]")
    topics = [c.topic for c in claims if c.headline]
    out += [f"data/claims: topic {t!r} has {topics.count(t)} headline claims (one at most)"
            for t in sorted(set(topics)) if topics.count(t) > 1]
    return out
