"""The transcribed historical tables under the project's data/historical/ (never
$TUNINGLAB_DATA_DIR): a source's metadata (held to historical.schema.json), a table's rows (held
to that metadata), and a column's heading and a row's label in a reader's words
(site/historical_figures.py draws them).

The transcriptions stay exactly as printed; what a reader needs beside them is metadata in the
source's source.toml: `[translations]` maps a printed non-English text to its English, and a
table's `truncated` lists the labels the source itself cut off (shown with CUT_MARK)."""

import csv
import io
import json
import math
import re
import tomllib
from functools import lru_cache
from pathlib import Path

import jsonschema

from tuninglab import files

HISTORICAL_DIR = files.DATA_DIR / "historical"
SCHEMA_PATH = Path(__file__).with_name("historical.schema.json")
SLUG = re.compile(r"[a-z0-9]+(-[a-z0-9]+)*")  # a source's directory (and its claims file)

# A reader's name for each column the project names itself (the claims files' columns, and the
# headings of tables that print none). A heading the source prints is shown as printed.
HEADERS = {
    "label": "Claim",
    "value": "Value",
    "unit": "Unit",
    "qualifier": "Qualifier",
    "claim_location": "Where in the source",
    "value_seconds": "Value in seconds (our reading)",
    "configuration": "Configuration",
    "series": "Series",
    "change": "Change",
    "setting": "Setting",
    "section": "Section",
    "line": "Line",
}
CUT_MARK = "\u2026"  # after a label the source cut off: the label itself stays as printed
CUT_NOTE = "cut off in the source"


# ----------------------------------------------------------------------------- reading
# Every value read is of the type the schema gives its key and every CSV is the table its
# source.toml describes, or the reader raises ValueError naming the file and the key (or the
# line): a wrong type is never converted (a "false" string is true in Python), a short row or a
# cell that is not a number never reaches a ratio or a chart.

def historical_source(slug: str, base: Path = HISTORICAL_DIR) -> dict:
    if not isinstance(slug, str) or not SLUG.fullmatch(slug):
        raise ValueError(f"no historical source {slug!r}: expected a name of lower-case "
                         "letters, digits and dashes")
    path = Path(base) / slug / "source.toml"
    try:
        text = _read(path)
        problems = _source_problems(text)
    except (FileNotFoundError, NotADirectoryError):
        raise ValueError(f"no historical source '{slug}' ({path} does not exist)") from None
    except (UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise ValueError(f"{files.shown(path)}: {exc}") from None
    if problems:
        raise ValueError(f"{files.shown(path)}: {problems[0]}")
    return tomllib.loads(text)


def _read(path: Path) -> str:
    """A source's file as text, read as files.py reads data/: a link, a FIFO or a device is a
    ValueError naming it (never followed nor waited on), and so is a file of more than
    files.MAX_DATA_BYTES; FileNotFoundError for a missing one."""
    try:
        return files.read_regular(path, files.MAX_DATA_BYTES).decode("utf-8")
    except files.NotRegular as exc:
        raise ValueError(f"{files.shown(path)}: {exc.what}") from None
    except files.TooLarge as exc:
        raise ValueError(f"{files.shown(path)}: {exc}") from None


@lru_cache(maxsize=16)
def _source_problems(text: str) -> tuple[str, ...]:
    """What is wrong with a source.toml: its schema (historical.schema.json), then what the
    schema cannot say (a table listed twice, a per-column key naming no value column)."""
    data = tomllib.loads(text)
    validator = jsonschema.Draft202012Validator(json.loads(SCHEMA_PATH.read_text()))
    errors = sorted(validator.iter_errors(data), key=lambda e: list(map(str, e.absolute_path)))
    if errors:
        return tuple(f"{_key(list(e.absolute_path), data)}: {e.message}" for e in errors)
    out, seen = [], set()
    for i, t in enumerate(data["tables"]):
        where = _key(["tables", i], data)
        if t["file"] in seen:
            out.append(f"{where}: file: {t['file']!r} is listed twice")
        seen.add(t["file"])
        declared = t["value_columns"] + t["ratio_columns"] + t.get("other_columns", [])
        if len(set(declared)) < len(declared) or t["label_column"] in declared:
            out.append(f"{where}: a column is named twice in label_column, value_columns, "
                       "ratio_columns and other_columns; expected each once")
        for key in ("column_units", "column_higher_is_better"):
            out += [f"{where}: {key}: {name!r} is not one of value_columns"
                    for name in t.get(key, {}) if name not in t["value_columns"]]
    return tuple(out)


def _key(parts: list, data: dict) -> str:
    """A schema error's place as source.toml names it: '[[tables]] #3 (swap.csv) unit'."""
    head, rest = "", parts
    if len(parts) >= 2 and parts[0] == "tables" and isinstance(parts[1], int):
        table = data["tables"][parts[1]]
        name = table.get("file") if isinstance(table, dict) else None
        head = f"[[tables]] #{parts[1] + 1}" + (f" ({name})" if isinstance(name, str) else "")
        rest = parts[2:]
    return " ".join(x for x in (head, ".".join(map(str, rest))) if x) or "(top)"


def historical_table(slug: str, table: str, base: Path = HISTORICAL_DIR):
    """(metadata of the table, rows as dicts) of a transcribed CSV."""
    source = historical_source(slug, base)
    meta = next((t for t in source["tables"] if t["file"] == table), None)
    if meta is None:
        raise ValueError(f"historical source '{slug}' lists no table '{table}'")
    path = Path(base) / slug / table
    try:
        lines = list(csv.reader(io.StringIO(_read(path), newline=""), strict=True))
    except (UnicodeDecodeError, csv.Error) as exc:
        raise ValueError(f"{files.shown(path)}: {exc}") from None
    problems = table_problems(meta, lines)
    if problems:
        raise ValueError(f"{files.shown(path)}: {problems[0]}")
    return source, meta, [dict(zip(lines[0], line)) for line in lines[1:]]


def table_problems(meta: dict, lines: list[list[str]]) -> list[str]:
    """What keeps a CSV's lines from being the table meta describes: its header (the label
    column, then the declared columns), a cell for each heading on every line, one line per
    label, numbers where a table has them, the baseline among the labels."""
    if len(lines) < 2:
        return ["no rows; expected a header line, then a line per row"]
    header, label = lines[0], meta["label_column"]
    declared = meta["value_columns"] + meta["ratio_columns"] + meta.get("other_columns", [])
    if header[:1] != [label] or sorted(header[1:]) != sorted(declared):
        return [f"header {header}; expected the label column {label!r}, then {declared} "
                "(value_columns, ratio_columns, other_columns) in any order"]
    out, labels = [], {}
    missing = set(meta.get("missing_values", [])) | {""}
    numbers = meta["value_columns"] + meta["ratio_columns"] if meta["kind"] == "table" else []
    for n, line in enumerate(lines[1:], 2):
        if len(line) != len(header):
            out.append(f"line {n}: {len(line)} cells; expected {len(header)}, as the header")
            continue
        row = dict(zip(header, line))
        if not row[label] or row[label] in labels:
            again = f" again (line {labels[row[label]]})" if row[label] else ""
            out.append(f"line {n}: label {row[label]!r}{again}; expected one line per label")
        labels.setdefault(row[label], n)
        out += [f"line {n}: {c} is {row[c]!r}; expected a number, nothing, or one of "
                "missing_values" for c in numbers
                if row[c] not in missing and not _is_number(row[c])]
        if meta["kind"] == "claims" and not row[meta["value_columns"][0]]:
            out.append(f"line {n}: {meta['value_columns'][0]} is empty; expected the number "
                       "the source states")
    if meta["kind"] == "table" and meta["baseline"] and meta["baseline"] not in labels:
        out.append(f"baseline {meta['baseline']!r} (source.toml) is not a label of the table")
    return out


def _is_number(text: str) -> bool:
    try:
        return math.isfinite(float(text))
    except ValueError:
        return False


# ----------------------------------------------------------------------------- texts shown

def heading(meta: dict, column: str) -> str:
    """A column's heading in a reader's words (plain text): HEADERS for the names that are
    ours, the printed heading where the source prints one, else the name made readable."""
    if column in HEADERS:
        return HEADERS[column]
    if meta.get("kind") == "table" and meta.get("headings_printed", True):
        return column
    words = column.replace("_", " ").strip()
    return words[:1].upper() + words[1:] or "(unnamed column)"


def is_cut(meta: dict, text: str) -> bool:
    return text in meta.get("truncated", ())


def shown_label(meta: dict, text: str) -> str:
    """A label as plain text: as printed, plus CUT_MARK when the source cut it off."""
    return text + CUT_MARK if is_cut(meta, text) else text


def translation(source: dict, text: str) -> str | None:
    """The English of a printed non-English text (source.toml [translations]), if any."""
    return source.get("translations", {}).get(text)
