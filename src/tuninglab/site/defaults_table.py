"""The "Today's defaults" page's table: for each server the defaults recipe ran on (its latest
result), every variable a set of earlier defaults changes, as that server read it back at its
own defaults (the point "today"), beside the earlier default the set ran with. Which values
differ is computed from the result, never typed."""

import html

from tuninglab.evidence import result_files, servers
from tuninglab.evidence.host_class import host_class, server_of
from tuninglab.recipes.defaults_sets import TODAY
from tuninglab.recipes.load import load
from tuninglab.results.result import Result
from tuninglab.units import same_value as same, shown_like

RECIPE = "defaults"


def table(variant: str = "") -> str:
    """One table per server and set of earlier defaults; a line saying so where no result has
    been committed yet."""
    docs = latest_per_server(result_files.results_for(RECIPE, variant))
    if not docs:
        return ('<p class="tl-caption">No result yet: <code>invoke recipe defaults --server '
                'mysql-9.7</code> (or <code>mariadb-11.8</code>) measures it.</p>')
    sources = {s.name: s.source for s in load(RECIPE, variant=variant).sweep.sets}
    return "".join(_server_tables(doc, sources) for doc in docs)


def latest_per_server(docs: list[Result]) -> list[Result]:
    """The latest result of each server (any host: the values are the server's, not the
    host's), in the pages' order of servers."""
    latest = {}
    for doc in docs:
        latest[server_of(doc)] = doc   # results_for gives them oldest first
    return [latest[k] for k in servers.ordered(latest)]


def _server_tables(doc: Result, sources: dict) -> str:
    points = {p.value: p for p in doc.points}
    today = points.get(TODAY)
    if today is None or not today.runs:
        return ""
    read_back = today.runs[0].get("effective") or {}
    out = []
    for name, point in points.items():
        if name == TODAY:
            continue
        changed = {k: v for k, v in point.settings.items()
                   if today.settings.get(k) != v}
        rows = "".join(_row(k, read_back.get(k), v) for k, v in sorted(changed.items()))
        differ = sum(1 for k, v in changed.items() if not same(v, read_back.get(k, "")))
        server = f"{servers.label(server_of(doc))} ({doc.raw['server'].get('version', '?')})"
        out.append(
            f'<div class="tl-defaults"><table><caption>{html.escape(server)}: its own defaults '
            f"against the set <code>{html.escape(name)}</code> ({differ} of {len(changed)} "
            f"differ here; measured on {html.escape(host_class(doc).name)})</caption>"
            "<thead><tr><th>variable</th><th>today's default, read back</th>"
            f"<th>{html.escape(name)}</th></tr></thead><tbody>{rows}</tbody></table>"
            f'<p class="tl-caption">The earlier defaults: '
            f"{html.escape(sources.get(name, 'the recipe'))}.</p></div>")
    return "".join(out)


def _row(variable: str, today, earlier: str) -> str:
    shown = "not read back" if today is None else html.escape(shown_like(today, earlier))
    mark = "" if today is not None and same(earlier, today) else ' class="tl-changed"'
    return (f"<tr{mark}><td><code>{html.escape(variable)}</code></td><td>{shown}</td>"
            f"<td>{html.escape(str(earlier))}</td></tr>")
