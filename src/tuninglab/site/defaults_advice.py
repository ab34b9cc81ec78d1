"""The "Today's defaults" page's second table: where each server's own default stands on each
question a source measured with a server option (the claims map's claims whose recipe sweeps
one, on throughput): the value the source found faster, the slower one, or neither. The
defaults recipe reads those options back at every point ([defaults] read_back); which value a
default is, is computed from that read-back, never typed."""

import html

from tuninglab.evidence import claims_map, historical, result_files, servers
from tuninglab.evidence.citations import cite, source_text
from tuninglab.evidence.host_class import server_of
from tuninglab.evidence.risks import risked
from tuninglab.recipes.defaults_sets import TODAY
from tuninglab.recipes.load import load
from tuninglab.recipes.server_names import map_settings
from tuninglab.results.result import Result
from tuninglab.site.defaults_table import RECIPE, latest_per_server
from tuninglab.units import same_value, shown_like

FASTER, SLOWER, NEITHER = "the faster", "the slower", "neither"


def table(variant: str = "") -> str:
    """One row per source question, one column per server with a result."""
    docs = latest_per_server(result_files.results_for(RECIPE, variant))
    questions = _questions()
    if not docs or not questions:
        return ""
    heads = "".join(f"<th>{html.escape(_server(doc))}</th>" for doc in docs)
    rows = "".join(_row(q, docs) for q in questions)
    return ('<div class="tl-defaults"><table><thead><tr><th>The source\'s question</th>'
            f"<th>Faster there</th>{heads}</tr></thead><tbody>{rows}</tbody></table></div>")


def _questions() -> list[dict]:
    """The claims that compare two values of a server option on throughput, each with the
    value its source found faster; claims asking the same question share a row."""
    claims, _ = claims_map.load_map()
    out = {}
    for c in claims:
        sweep = load(c.recipe, variant=c.variant).experiment().sweep
        if not sweep.server_option or (c.metric and not c.metric.startswith("tps")):
            continue
        row, other = (sweep.baseline, c.point) if c.invert else (c.point, sweep.baseline)
        if c.source_ratio == 1:
            continue   # the source found no faster value
        faster, slower = (row, other) if c.source_ratio > 1 else (other, row)
        key = (sweep.setting, faster, slower)
        out.setdefault(key, {"setting": sweep.setting, "faster": faster, "slower": slower,
                             "claims": []})["claims"].append(c)
    return list(out.values())


def _row(q: dict, docs: list[dict]) -> str:
    said = "; ".join(dict.fromkeys(   # two claims of one source and ratio: said once
        f"{cite(historical.historical_table(c.source, c.table)[0]['source'])} {source_text(c)}"
        for c in q["claims"]))
    question = (f"<code>{html.escape(q['setting'])}</code>: {html.escape(q['faster'])} against "
                f"{html.escape(q['slower'])} ({html.escape(said)})")
    kind, risk = risked(q["setting"], q["faster"])   # a faster value that costs durability
    if risk:
        question += (f'<br><span class="tl-risk">{html.escape(kind)}: risks '
                     f"{html.escape(risk)}</span>")
    cells = "".join(_cell(q, doc) for doc in docs)
    return f"<tr><td>{question}</td><td>{html.escape(q['faster'])}</td>{cells}</tr>"


def _cell(q: dict, doc: dict) -> str:
    value = default_of(doc, q["setting"])
    if value is None:
        return "<td>not read back</td>"
    found = which(value, q["faster"], q["slower"])
    mark = ' class="tl-changed"' if found == FASTER else ""
    return f"<td{mark}>{html.escape(shown_like(value, q['faster']))}: {found}</td>"


def which(value, faster: str, slower: str) -> str:
    """Whether a server's default is the value the source found faster, the slower, or
    neither."""
    if same_value(faster, value):
        return FASTER
    return SLOWER if same_value(slower, value) else NEITHER


def default_of(doc: dict | Result, setting: str):
    """The server's own value of an option, read back at the point "today" (under the name
    the server gives it, where it renamed it); None when the result did not read it."""
    r = Result.of(doc)
    today = next((p for p in r.points if p.value == TODAY), None)
    if not today or not today.runs:
        return None
    read = today.runs[0].get("effective") or {}
    flavor, version = r.server_version
    for name in (setting, *map_settings({setting: "1M"}, flavor, version)):
        if name in read:
            return read[name]
    return None


def _server(doc: dict) -> str:
    return f"{servers.label(server_of(doc))} default"
