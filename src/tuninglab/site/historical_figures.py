"""The transcribed historical tables (evidence/historical.py reads them) on a page: a table as a
plotly figure (a plain dict, every text from the files escaped), a claims table as HTML, a
printed text with its translation and a table's citation."""

from pathlib import Path

from tuninglab.evidence.historical import (CUT_MARK, CUT_NOTE, HISTORICAL_DIR, heading,
                                           historical_table, is_cut, shown_label, translation)
from tuninglab.results.metrics import AXIS_CHARS
from tuninglab.site.describe import TICK_CHARS, esc


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
        "barmode": "group", "xaxis": _label_axis(traces, cut, esc(label_col)),
        "yaxis": {"title": {"text": esc(_value_title(meta.get("metric", ""), unit))}},
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


def _value_title(metric: str, unit: str) -> str:
    """The y axis title: the unit and what it counts ("TPM: transactions per minute (DBT2)"),
    the unit alone where both would run past what an axis holds."""
    both = f"{unit}: {metric}" if metric and unit else unit or metric
    return both if len(both) <= AXIS_CHARS else unit


def _label_axis(traces: list, cut: bool, heading: str = "") -> dict:
    """The x axis of printed labels, titled by their column's heading, or by what CUT_MARK
    means when a label has it; on a chart of few bars a long label broken at the
    space or comma nearest its middle, on the axis only (the hover names the label on one
    line)."""
    axis = {"type": "category"}
    # What a cut label's mark means comes first: both would run off a phone's chart.
    title = f"{CUT_MARK} = label {CUT_NOTE}" if cut else heading
    if title:
        axis["title"] = {"text": title}
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
