"""The claims map (data/claims/<source>.toml): which of a source's published results a recipe
tests, and why each other one cannot be tested here.

A source's results are the cells of its transcribed tables (a row against the table's baseline
row, in one value column) and the rows of its tables of claims (numbers its text states). Each
is either a [[claim]], naming the recipe, variant, point and metric that answer it today, or
covered by an [[untestable]] entry with its reason and its kind: an effect no recipe here can
test, or no effect at all. Every result of every source is one or the other: `problems()` lists
what is not, and the strict build fails on it; claims_counts.py counts each kind for the claims
page.
Each key's value has one TOML type (claims_keys.py): another is refused, never converted.

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
    metric = "tps"               # optional: the result's primary metric, a cost, or the
                                 # primary metric over a held read view's window
                                 # (tps_draining: while purge drained the backlog)
    headline = true              # optional: the topic's claim on the home page
    why = "..."                  # optional: why this recipe and shape answer it
    source_noise = 0.10          # optional: the source's own stated run-to-run swing, a
                                 # fraction (a float): an effect within it is a claim of "no
                                 # difference" (issue 37); default 0.0, none stated
    caveat = "..."               # optional: what weakens the claim as the source gives it (it
                                 # contradicts itself...); a claim with one is never a headline,
                                 # and its verdict judges no ratio of the source's ("source in
                                 # doubt", results/verdicts.doubted)
    same_rows = ["..."]          # optional: rows of the same table that report this very
                                 # result again (another post citing the same run): covered and
                                 # answered by this claim, never a second claim

    [[untestable]]
    table = "hyperthreading.csv"
    rows = ["HT OFF"]            # optional: every row no claim or earlier entry covers
    columns = ["LARGE"]          # optional: every value column
    reason = "..."
    topic = "..."                # optional: the page it belongs to (default: the table's)
    kind = "not-an-effect"       # optional: "not-testable" (the default), an effect no recipe
                                 # here can test; "not-an-effect", no effect at all (a setup,
                                 # a listing, advice, an absolute number compared with nothing)
"""

import math
import tomllib
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from tuninglab import files
from tuninglab.errors import UserError
from tuninglab.evidence import historical
from tuninglab.evidence.claims_keys import (CLAIM_KEYS, NOT_TESTABLE,
                                        UNTESTABLE_KEYS, check_keys, toml_value)
from tuninglab.recipes.load import load
from tuninglab.results.metrics import COST, PRIMARY, WINDOWED

CLAIMS_DIR = files.DATA_DIR / "claims"
READS = ("gain-percent", "times", "inverse-times")


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
    source_noise: float = 0.0  # the source's stated run-to-run swing, a fraction; 0: none
    caveat: str = ""     # what weakens the claim as the source gives it; "": nothing
    same_rows: tuple = ()  # rows of its table that report the same result again


@dataclass(frozen=True)
class Untestable:
    source: str
    table: str
    row: str
    column: str
    reason: str
    topic: str
    kind: str = NOT_TESTABLE  # or NOT_AN_EFFECT (claims_keys.KINDS)


def _shown(path: Path) -> str:
    """The project's map file as data/claims/<name> (as a pull request names it), another
    one (a test's) by its name."""
    try:
        return str(path.absolute().relative_to(files.PROJECT_DIR))
    except ValueError:
        return path.name


def _where(path: Path, section: str, i: int) -> str:
    return f"{_shown(path)} [[{section}]] #{i + 1}"


def _number(text: str, where: str) -> float:
    """A printed number: "3,5" is 3.5 (a decimal comma), "x2" is 2."""
    cleaned = text.strip().lstrip("x~").replace(",", ".")
    try:
        value = float(cleaned)
    except ValueError:
        value = math.nan
    if not math.isfinite(value):  # float() reads "nan" and "inf" too: no source prints them
        raise UserError(f"{where}: the source prints {text!r}, not a number")
    return value


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
    # A key the table's kind does not read would be ignored: refused, so that none misleads.
    unread = ("column", "source_baseline") if meta["kind"] == "claims" else ("reads",)
    key = next((k for k in unread if k in entry), None)
    if key:
        kind = "a table of claims" if meta["kind"] == "claims" else "a table of measurements"
        raise UserError(f"{where}: {key}: {meta['file']} is {kind}, which takes no {key}")
    if meta["kind"] == "claims":
        reads = entry.get("reads")
        if reads not in READS:
            raise UserError(f"{where}: reads must be one of {', '.join(READS)} for a table of "
                            f"claims, got {reads!r}")
        value = _number(row["value"], where)
        ratio = {"gain-percent": 1 + value / 100, "times": value,
                 "inverse-times": 1 / value if value else 0}[reads]
        if ratio <= 0:
            raise UserError(f"{where}: {row['value']!r} read as {reads} is a ratio of "
                            f"{ratio:g}; expected a ratio above zero")
        return ratio, "", ""
    column = entry.get("column", "")
    if column not in meta["value_columns"]:
        raise UserError(f"{where}: column {column!r} is not a value column of {meta['file']} "
                        f"({', '.join(meta['value_columns'])})")
    base_label = entry.get("source_baseline") or meta.get("baseline", "")
    if not base_label:
        raise UserError(f"{where}: {meta['file']} names no baseline row: give source_baseline")
    base = _row(rows, meta, base_label, where, "source_baseline")
    value, base_value = _number(row[column], where), _number(base[column], where)
    if value <= 0 or base_value <= 0:
        raise UserError(f"{where}: {column} of {entry['row']!r} or {base_label!r} is not above "
                        f"zero ({row[column]!r}, {base[column]!r}); expected two measurements")
    ratio = value / base_value
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
    if metric and metric not in COST + tuple(PRIMARY.values()) + tuple(WINDOWED):
        raise UserError(f"{where}: metric {metric!r} is neither a primary metric, a primary "
                        f"metric over a held read view's window ({', '.join(WINDOWED)}) nor a "
                        f"cost per transaction ({', '.join(COST)})")
    if metric in WINDOWED and not recipe.workload.hold_read_view:
        raise UserError(f"{where}: metric {metric!r} is a held read view's window, and "
                        f"{entry['recipe']} {entry.get('variant') or '(main)'} holds none "
                        "([workload] hold_read_view)")
    return recipe.topic


def _claim(slug: str, entry: dict, where: str) -> Claim:
    check_keys(entry, CLAIM_KEYS, {"id", "table", "row", "recipe", "point"}, where)
    if entry.get("headline") and entry.get("caveat"):
        raise UserError(f"{where}: headline: a claim with a caveat is not the topic's headline "
                        "(the home page gives no room for it); expected headline = false")
    source, meta, rows = _table(slug, entry["table"], where)
    ratio, column, base = _source_ratio(entry, meta, rows, where)
    same = _same_rows(entry, meta, rows, ratio, where)
    return Claim(id=entry["id"], source=slug, table=entry["table"], row=entry["row"],
                 column=column, source_baseline=base, source_ratio=ratio,
                 recipe=entry["recipe"], variant=entry.get("variant", ""),
                 point=entry["point"], invert=entry.get("invert", False),
                 metric=entry.get("metric", ""), headline=entry.get("headline", False),
                 why=entry.get("why", ""), topic=_recipe_topic(entry, where),
                 source_noise=entry.get("source_noise", 0.0), caveat=entry.get("caveat", ""),
                 same_rows=same)


def _same_rows(entry: dict, meta: dict, rows: list, ratio: float, where: str) -> tuple:
    """A claim's same_rows, each a result row of its table other than its own that gives the
    same ratio (it reports the same result: a row that differs is a result of its own)."""
    labels = {r for r, _ in results_of(meta, rows)}
    for label in entry.get("same_rows", []):
        if label not in labels or label == entry["row"]:
            raise UserError(f"{where}: same_rows: {label!r} is not another result row of "
                            f"{entry['table']}")
        again, _, _ = _source_ratio(entry | {"row": label}, meta, rows, where)
        if not math.isclose(again, ratio, rel_tol=1e-9):
            raise UserError(f"{where}: same_rows: {label!r} gives x{again:g}, not the "
                            f"claim's x{ratio:g}; expected a row that reports the same result")
    return tuple(entry.get("same_rows", []))


def _entries(data: dict, section: str, path: Path) -> list:
    """The [[section]] tables of a map file: `claim = ...` or a lone [claim] is refused."""
    entries = data.get(section, [])
    if not isinstance(entries, list) or not all(isinstance(e, dict) for e in entries):
        raise UserError(f"{_shown(path)}: {section}: expected [[{section}]] tables, got "
                        f"{toml_value(entries)}")
    return entries


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
    check_keys(entry, UNTESTABLE_KEYS, {"table", "reason"}, where)
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
    topic, kind = entry.get("topic", meta["topic"]), entry.get("kind", NOT_TESTABLE)
    return [Untestable(slug, entry["table"], r, c, entry["reason"], topic, kind)
            for r, c in results
            if (r, c) not in claimed and r in entry.get("rows", [r])
            and c in entry.get("columns", [c])]


def rows_of(c: Claim) -> tuple:
    """The rows a claim covers: its own, the one it is relative to, those reporting it again."""
    return (c.row, c.source_baseline) + c.same_rows


def _load_file(path: Path) -> tuple[list[Claim], list[Untestable]]:
    try:  # a link or a FIFO is refused, never followed nor waited on (files.read_regular)
        data = tomllib.loads(files.read_regular(path, files.MAX_DATA_BYTES).decode("utf-8"))
    except files.NotRegular as exc:
        raise UserError(f"{_shown(path)}: {exc.what}") from None
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError, files.TooLarge) as exc:
        raise UserError(f"{_shown(path)}: {exc}") from None
    slug = path.stem
    unknown = sorted(set(data) - {"claim", "untestable"})
    if unknown:
        raise UserError(f"{_shown(path)}: unknown table {unknown[0]!r} (expected [[claim]] and "
                        "[[untestable]])")
    claims = [_claim(slug, e, _where(path, "claim", i)) for i, e in
              enumerate(_entries(data, "claim", path))]
    claimed = {(c.table, r, c.column) for c in claims for r in rows_of(c)}
    untestable = []
    for i, e in enumerate(_entries(data, "untestable", path)):
        # An entry without rows (or columns) covers what no claim and no earlier entry does.
        taken = claimed | {(u.table, u.row, u.column) for u in untestable}
        mine = {(r, c) for t, r, c in taken if t == e.get("table")}
        untestable += _untestable(slug, e, mine, _where(path, "untestable", i))
    return claims, untestable


def _map_files(directory: Path) -> tuple[list[Path], list[str]]:
    """The map's files (files.listing) and a line for each *.toml there that is no regular
    file: the map is read strictly, so a link or a FIFO is an error, not a file left out."""
    found, refused = files.listing(directory, ".toml")
    return found, [f"{_shown(r.path)}: {r.what}" for r in refused]


@lru_cache(maxsize=4)
def _load_all(directory: str, _stamp: float) -> tuple[tuple, tuple]:
    found, refused = _map_files(Path(directory))
    if refused:
        raise UserError(refused[0])
    loaded = [(path, *_load_file(path)) for path in found]
    taken = _taken_ids([(path, c) for path, c, _ in loaded])
    if taken:
        raise UserError(taken[0])
    return tuple(c for _, cs, _ in loaded for c in cs), tuple(u for *_, us in loaded for u in us)


def _taken_ids(loaded: list) -> list[str]:
    """A line for each claim whose id an earlier one has, naming both: a page names a claim by
    its id, so a second claim of that id would be one no page can show."""
    out, first = [], {}
    for path, claims in loaded:
        for i, one in enumerate(claims):
            here = _where(path, "claim", i)
            if one.id in first:
                out.append(f"{here}: id {one.id!r} is taken by {first[one.id]}; expected each "
                           "claim its own id")
            first.setdefault(one.id, here)
    return out


def load_map(directory: Path | None = None) -> tuple[tuple, tuple]:
    """(claims, untestable results) of every source's map; UserError naming the file, the
    entry and the key on bad input."""
    directory = Path(directory or CLAIMS_DIR)
    return _load_all(str(directory), files.stamp(directory, ".toml"))


def claim(claim_id: str) -> Claim:
    found = next((c for c in load_map()[0] if c.id == claim_id), None)
    if found is None:
        raise UserError(f"no claim {claim_id!r} in the claims map (data/claims/)")
    return found


def problems(directory: Path | None = None, base: Path = historical.HISTORICAL_DIR) -> list[str]:
    """Every source result the map neither claims nor explains, and every topic with more than
    one headline claim: one line each."""
    claims, untestable = load_map(directory)
    covered = {(c.source, c.table, r, c.column) for c in claims for r in rows_of(c)} | \
        {(u.source, u.table, u.row, u.column) for u in untestable}
    out = []
    for source_dir in files.directories(base)[0]:  # a linked one: check_sources says so
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


def check(directory: Path | None = None, base: Path = historical.HISTORICAL_DIR) -> list[str]:
    """Every problem of the map, one line each, for CI (evidence/check_sources.py): each file's
    first bad entry or key, each id taken already, then, once all is well, every source result
    left out and every topic with two headlines (problems)."""
    directory = Path(directory or CLAIMS_DIR)
    found, out = _map_files(directory)
    loaded = []
    for path in found:
        try:
            loaded.append((path, _load_file(path)[0]))
        except UserError as exc:
            out.append(str(exc))
    out += _taken_ids(loaded)
    if out:
        return out
    try:
        return problems(directory, base)
    except (UserError, ValueError, OSError) as exc:  # a source that does not read
        return [str(exc)]
