"""The transcribed historical tables under the project's data/historical/ (never
$TUNINGLAB_DATA_DIR): a source's metadata, a table's rows, and a table as a plotly figure (a
plain dict, every text from the files escaped)."""

import csv
import tomllib
from pathlib import Path

from tuninglab import files
from tuninglab.site.describe import esc

HISTORICAL_DIR = files.DATA_DIR / "historical"


def historical_source(slug: str, base: Path = HISTORICAL_DIR) -> dict:
    path = Path(base) / slug / "source.toml"
    if not path.is_file():
        raise ValueError(f"no historical source '{slug}' ({path} does not exist)")
    return tomllib.loads(path.read_text())


def historical_table(slug: str, table: str, base: Path = HISTORICAL_DIR):
    """(metadata of the table, rows as dicts) of a transcribed CSV."""
    source = historical_source(slug, base)
    meta = next((t for t in source.get("tables", []) if t["file"] == table), None)
    if meta is None:
        raise ValueError(f"historical source '{slug}' lists no table '{table}'")
    with open(Path(base) / slug / table, newline="") as f:
        rows = list(csv.DictReader(f))
    return source, meta, rows


def historical_bars(slug: str, table: str, columns=None, base: Path = HISTORICAL_DIR) -> dict:
    """The printed numbers as grouped bars, the printed ratios in the hover."""
    source, meta, rows = historical_table(slug, table, base)
    if meta.get("kind") != "table":
        raise ValueError(f"{slug}/{table} holds claims, not a table: use kind = \"claims\"")
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
            "type": "bar", "name": esc(column), "x": [esc(r[label_col]) for r in kept],
            "y": [float(r[column]) for r in kept],
            "customdata": [esc(f"ratio {r[ratio_col]}" if ratio_col and r[ratio_col] else "")
                           for r in kept],
            "hovertemplate": "%{x}: %{y} " + esc(unit) +
                             "<br>%{customdata}<extra>" + esc(column) + "</extra>"})
    s = source["source"]
    return {"data": traces, "layout": {
        "barmode": "group", "xaxis": {"type": "category"},
        "yaxis": {"title": {"text": esc(unit)}},
        "title": {"text": f"{esc(meta['caption'])}<br><sup>{esc(s['author'] or s['venue'] or s['title'])}, "
                          f"{esc(s['year'])}: {esc(meta['metric'])}</sup>", "font": {"size": 15}},
        "legend": {"orientation": "h", "y": -0.25}}}
