"""The transcribed historical tables under the project's data/historical/ (never
$TUNINGLAB_DATA_DIR): a source's metadata (held to historical.schema.json), a table's rows (held
to that metadata), a table as a plotly figure (a plain dict, every text from the files escaped),
and a claims table as HTML.

The transcriptions stay exactly as printed; what a reader needs beside them is metadata in the
source's source.toml: `[translations]` maps a printed non-English text to its English, and a
table's `truncated` lists the labels the source itself cut off (shown with CUT_MARK)."""

import csv
import json
import math
import re
import tomllib
from functools import lru_cache
from pathlib import Path

import jsonschema

from tuninglab import files
from tuninglab.site.describe import TICK_CHARS, esc

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

def _shown(path: Path) -> str:
    try:
        return str(path.absolute().relative_to(files.PROJECT_DIR))
    except ValueError:
        return str(path)


def historical_source(slug: str, base: Path = HISTORICAL_DIR) -> dict:
    if not isinstance(slug, str) or not SLUG.fullmatch(slug):
        raise ValueError(f"no historical source {slug!r}: expected a name of lower-case "
                         "letters, digits and dashes")
    path = Path(base) / slug / "source.toml"
    if not path.is_file():
        raise ValueError(f"no historical source '{slug}' ({path} does not exist)")
    try:
        text = path.read_text(encoding="utf-8")
        problems = _source_problems(text)
    except (UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise ValueError(f"{_shown(path)}: {exc}") from None
    if problems:
        raise ValueError(f"{_shown(path)}: {problems[0]}")
    return tomllib.loads(text)


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
        with open(path, encoding="utf-8", newline="") as f:
            lines = list(csv.reader(f, strict=True))
    except (UnicodeDecodeError, csv.Error) as exc:
        raise ValueError(f"{_shown(path)}: {exc}") from None
    problems = table_problems(meta, lines)
    if problems:
        raise ValueError(f"{_shown(path)}: {problems[0]}")
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


def text_html(source: dict, meta: dict, text: str) -> str:
    """A printed text as HTML: as printed (marked with the source's language when it has a
    translation, the English on a smaller line below), with CUT_MARK when the source cut it."""
    shown = esc(text)
    english = translation(source, text)
    if english is not None:
        shown = (f'<span lang="{esc(source["source"]["language"])}">{shown}</span>'
                 f'<br><small lang="en">{esc(english)}</small>')
    if is_cut(meta, text):
        shown += f'<abbr class="tl-cut" title="{CUT_NOTE}">{CUT_MARK}</abbr>'
    return shown


def _quoted_html(source: dict, text: str) -> str:
    """A quoted title or caption in a sentence: the English, if any, in brackets after it."""
    english = translation(source, text)
    if english is None:
        return f'"{esc(text)}"'
    return (f'"<span lang="{esc(source["source"]["language"])}">{esc(text)}</span>" '
            f'<small lang="en">({esc(english)})</small>')


def citation_html(source: dict, meta: dict) -> str:
    s = source["source"]
    who = ", ".join(x for x in (s.get("author"), s.get("venue")) if x) or "unknown author"
    return (f"As printed in {_quoted_html(source, s['title'])} ({esc(who)}, {esc(s['year'])}), "
            f"section {_quoted_html(source, meta['caption'])}.")


# ----------------------------------------------------------------------------- claims tables

def claims_table(slug: str, table: str, base: Path = HISTORICAL_DIR) -> str:
    """Numbers a source states in its text (or a table of text), as an HTML table in a
    reader's words with the citation; every cell as printed."""
    source, meta, rows = historical_table(slug, table, base)
    columns = list(rows[0]) if rows else []
    head = "".join(f"<th>{_heading_html(source, meta, c)}</th>" for c in columns)
    body = "".join("<tr>" + "".join(f"<td>{text_html(source, meta, r[c] or '')}</td>"
                                    for c in columns) + "</tr>" for r in rows)
    cut = any(is_cut(meta, t) for t in columns + [r[c] or "" for r in rows for c in columns])
    note = f" A label ending in {CUT_MARK} is {CUT_NOTE}; it is kept as printed." if cut else ""
    return (f'<div class="tl-claims"><table><thead><tr>{head}</tr></thead><tbody>{body}'
            f'</tbody></table></div><p class="tl-caption">{citation_html(source, meta)}'
            f'{note}</p>')


def _heading_html(source: dict, meta: dict, column: str) -> str:
    # A printed heading the source cut off (a label column's) keeps its mark.
    if is_cut(meta, column):
        return text_html(source, meta, column)
    return esc(heading(meta, column))


# ----------------------------------------------------------------------------- bar charts

def historical_bars(slug: str, table: str, columns=None, base: Path = HISTORICAL_DIR) -> dict:
    """The printed numbers as grouped bars, the printed ratios in the hover; a label the
    source cut off carries CUT_MARK, its hover and the axis title say what the mark means."""
    source, meta, rows = historical_table(slug, table, base)
    if meta.get("kind") != "table":
        raise ValueError(f"{slug}/{table} holds claims, not a table: use kind = \"claims\"")
    explicit = bool(columns)
    columns = columns or meta["value_columns"]
    label_col = meta["label_column"]
    missing = set(meta.get("missing_values", [])) | {""}
    units = {meta.get("column_units", {}).get(c, meta["unit"]) for c in columns}
    if len(units) > 1:
        raise ValueError(f"{slug}/{table}: columns {columns} have different units; chart one")
    unit = units.pop()
    traces = []
    for column in columns:
        if column not in meta["value_columns"]:
            raise ValueError(f"{slug}/{table} has no value column '{column}' "
                             f"(columns: {', '.join(meta['value_columns'])})")
        ratio_col = next((r for r in meta.get("ratio_columns", []) if r.startswith(column)), None)
        kept = [r for r in rows if r[column].strip() not in missing]
        traces.append({
            "type": "bar", "name": esc(column),
            "x": [esc(shown_label(meta, r[label_col])) for r in kept],
            "y": [float(r[column]) for r in kept],
            "customdata": [_hover_note(meta, r[label_col], r[ratio_col] if ratio_col else "")
                           for r in kept],
            "hovertemplate": "%{x}: %{y} " + esc(unit) +
                             "<br>%{customdata}<extra>" + esc(column) + "</extra>"})
    cut = any(is_cut(meta, r[label_col]) for r in rows)
    return {"data": traces, "layout": {
        "barmode": "group", "xaxis": _label_axis(traces, cut),
        "yaxis": {"title": {"text": esc(unit)}},
        "title": {"text": _bars_title(source, meta, columns, explicit), "font": {"size": 15}},
        "legend": {"orientation": "h", "y": -0.25}}}


def _bars_title(source: dict, meta: dict, columns: list, explicit: bool) -> str:
    """The caption, then what sets this table apart from others under the same caption (the
    heading of its label column, as printed: a kernel, an IO mode) and what is charted (the
    columns picked, else the table's metric), with the author and year."""
    s = source["source"]
    who = s["author"] or s["venue"] or s["title"]
    what = ", ".join(columns) if explicit else meta["metric"]
    heading = shown_label(meta, meta["label_column"]) if meta.get("headings_printed", True) \
        else ""
    sub = "; ".join(x for x in (heading, f"{who}, {s['year']}: {what}") if x)
    return f"{esc(meta['caption'])}<br><sup>{esc(sub)}</sup>"


# A label longer than TICK_CHARS is shown on two lines when a chart has at most BROKEN_BARS
# labels (as charts.py does for a setting's values): plotly leaves a tick label level while it
# does not meet its neighbour, so with few bars the last one runs off a phone's chart. With
# more bars plotly turns long labels, which a break would stop.
BROKEN_BARS = 3


def _label_axis(traces: list, cut: bool) -> dict:
    """The x axis of printed labels, its title saying what CUT_MARK means when a label has it;
    on a chart of few bars a long label broken at the space or comma nearest its middle, on
    the axis only (the hover names the label on one line)."""
    axis = {"type": "category"}
    if cut:
        axis["title"] = {"text": f"{CUT_MARK} = label {CUT_NOTE}"}
    labels = list(dict.fromkeys(x for trace in traces for x in trace["x"]))
    broken = [_two_lines(x) for x in labels]
    if broken != labels and len(labels) <= BROKEN_BARS:
        axis.update(tickvals=labels, ticktext=broken)
    return axis


def _two_lines(label: str) -> str:
    # label is escaped already, and an entity holds no space or comma: none is cut.
    breaks = [i + 1 for i, c in enumerate(label) if c in " ,"]
    if len(label) <= TICK_CHARS or not breaks:
        return label
    i = min(breaks, key=lambda b: abs(b - len(label) / 2))
    return label[:i].rstrip() + "<br>" + label[i:]


def _hover_note(meta: dict, label: str, ratio: str) -> str:
    """The hover's second line: the printed ratio, and whether the source cut the label off."""
    parts = [f"ratio {ratio}" if ratio else "", f"label {CUT_NOTE}" if is_cut(meta, label) else ""]
    return "<br>".join(esc(p) for p in parts if p)
