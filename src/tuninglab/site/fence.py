"""pymdownx.superfences custom fences that put data on the page at build time.

```plotly            a chart: kind = "results" | "series" | "io" | "trends" | "tpcc" | "lab"
                     | "historical" | "claims" | "kernels" | "defaults" (TOML spec)
```reproduce         the "Reproduce" box of a recipe
```topics            the home page's table of topics (home_table)
```results-index     the Results page: every result file, where it ran and who ran it

The fences are Markdown extensions, not MkDocs plugins: one survives a move to MkDocs'
successors (the one hook, mkdocs_hooks.py, only puts static files in place). A bad spec is
logged as a warning under "mkdocs", so `mkdocs build --strict` fails on it.
"""

import html
import itertools
import json
import tomllib

from tuninglab.errors import UserError
from tuninglab.evidence import functional, historical, result_files
from tuninglab.evidence.topic_pages import TOPICS_DIR
from tuninglab.recipes import plan as planner
from tuninglab.recipes.load import command as recipe_command, load, load_all
from tuninglab.site import (charts, defaults_advice, defaults_table, describe, historical_figures,
                            hostviews, result_listings)
from tuninglab.site.failure import fence_failure
from tuninglab.units import human_seconds

_ids = itertools.count(1)


def plotly_fence(source, language, css_class, options, md, **kwargs) -> str:
    try:
        spec = tomllib.loads(source)
        return _chart(spec)
    except (ValueError, KeyError, UserError, tomllib.TOMLDecodeError) as exc:
        return fence_failure(f"plotly fence: {exc}", source)


def reproduce_fence(source, language, css_class, options, md, **kwargs) -> str:
    """The Reproduce box: `recipe = "..."`, and `flags = "..."` for what every run of it needs
    on the command line (buffer-pool-instances: a server that has the setting)."""
    try:
        spec = tomllib.loads(source)
        unknown = set(spec) - {"recipe", "flags"}
        if unknown:
            raise KeyError(f"unknown key(s) {', '.join(sorted(unknown))} (recipe, flags)")
        return _reproduce_box(load(spec["recipe"]), str(spec.get("flags", "")))
    except (KeyError, UserError, tomllib.TOMLDecodeError) as exc:
        return fence_failure(f"reproduce fence: {exc}", source)


def _chart(spec: dict) -> str:
    kind = spec.get("kind")
    if kind == "claims":
        return _claims(spec["source"], spec["table"])
    if kind == "kernels":
        return _kernels_table()
    if kind == "defaults":   # show = "advice": where each default stands on the sources'
        shown = defaults_advice if spec.get("show") == "advice" else defaults_table
        return shown.table(spec.get("variant", ""))
    if kind == "historical":
        source, meta, _ = historical.historical_table(spec["source"], spec["table"])
        figure = historical_figures.historical_bars(spec["source"], spec["table"],
                                                    spec.get("columns"))
        citation = historical_figures.citation_html(source, meta)
        return embed(figure) + f'<p class="tl-caption">{citation} ' \
            f'Workload: {html.escape(source["source"]["workload"])}. Hardware: ' \
            f'{html.escape(source["source"]["hardware"])}. Software: ' \
            f'{html.escape(source["source"]["software"])}.</p>'

    if kind in ("results", "series", "io", "trends", "tpcc", "lab"):
        return _result_chart(kind, spec)
    raise ValueError("kind must be results, series, io, trends, tpcc, lab, historical, claims, "
                     f"kernels or defaults, got {kind!r}")


def _result_chart(kind: str, spec: dict) -> str:
    """A chart or table of a recipe's results: the bars of every host (results), or one
    host's view (hostviews.view) with a picker of the others."""
    name, variant = spec["recipe"], spec.get("variant", "")
    load(name, variant=variant)  # unknown: an error, not "no data yet"
    docs = result_files.results_for(name, variant)
    if not docs:
        return _no_data(name, variant)
    r, bars = hostviews.shown_by_default(docs), ""
    if kind == "results":
        metric = spec.get("metric", r.metric)
        bars = embed(charts.results_bars(docs, metric))
        if metric != r.metric:
            return bars
        if functional.functional_only(r) and "write_bytes_per_trx" in r.points[0].stats:
            bars = _io_first(docs) + bars
    view = "verdicts" if kind == "results" else \
        f"series:{spec['metric']}" if kind == "series" else kind
    shown = hostviews.view(r, view)
    body = shown["html"] if "html" in shown else embed(shown["figure"])
    note = (f'<p class="tl-caption tl-overrides">{html.escape(shown["note"])}</p>'
            if shown.get("note") else "")
    return bars + _host_view(docs, r, name, variant, view, body + note)


def _io_first(docs: list[dict]) -> str:
    """A lab VM result's own answer, before its throughput: under TCG (or on disks sharing
    one physical device) the transactions a second are the emulator's, while the bytes each
    transaction writes are the mechanism's and hold on any hardware."""
    return (embed(charts.results_bars(docs, "write_bytes_per_trx")) +
            "<p class='tl-caption'>The result: bytes written per transaction. The latest result "
            "ran where the throughput says little about hardware (the note below says why), so "
            "the throughput that follows is context only.</p>")


def _kernels_table() -> str:
    """Every result in data/ by the kernel it ran on."""
    rows = "".join(
        f"<tr><td><code>{html.escape(g['kernel'])}</code></td><td>{html.escape(g['where'])}</td>"
        f"<td>{html.escape(', '.join(g['recipes']))}</td><td>{g['results']}</td>"
        f"<td>{html.escape(g['latest'])}</td></tr>" for g in result_listings.by_kernel())
    return ('<div class="tl-kernels"><table><thead><tr><th>kernel</th><th>where</th>'
            '<th>recipes</th><th>result files</th><th>latest</th></tr></thead><tbody>'
            + rows + "</tbody></table></div>")


def _claims(slug: str, table: str) -> str:
    """Numbers a source states in its text, as a table with the citation (historical.py)."""
    return historical_figures.claims_table(slug, table)


def embed(figure: dict) -> str:
    """A container the page script fills. The figure travels as JSON in an escaped attribute:
    inert, and untouched by instant navigation (which re-runs every <script> it swaps in).
    A figure that carries normalised values gets the button that swaps them in; one with
    nothing to draw (charts: "empty") is its sentence, as text, instead of a blank chart."""
    if figure.get("empty"):
        return f'<p class="tl-empty">{html.escape(figure["empty"])}</p>'
    payload = html.escape(json.dumps(figure, separators=(",", ":")), quote=True)
    toggle = ('<button type="button" class="md-button tl-normalise" aria-pressed="false" '
              'title="Divide each host\'s throughput by its device baseline: compares the '
              'effect of the setting rather than the speed of the hardware">'
              '<span class="tl-switch"></span>Show per 1000 fsync/s of '
              'the device</button>') if "normalise" in figure else ""
    return (f'<div class="tl-chart" id="tl-chart-{next(_ids)}" '
            f'data-traces="{len(figure["data"])}" data-figure="{payload}">'
            f'{toggle}<div class="tl-plot"></div></div>{_hatch_note(figure)}')


def _hatch_note(figure: dict) -> str:
    """What a faint, hatched bar means, beside the chart that has one, not in its hover only."""
    hatched = any("pattern" in (t.get("marker") or {}) for t in figure["data"])
    return (f'<p class="tl-caption tl-hatch">A faint, hatched bar is {html.escape(charts.NOISY_TEXT)}.'
            "</p>") if hatched else ""


def _host_view(docs: list[dict], shown: dict, name: str, variant: str, view: str,
               body: str) -> str:
    """A view of one host's result (shown). With several hosts it gets a picker: the page
    fetches the other hosts' views (hostviews) only when a reader picks one, and pickers of
    the same recipe on a page follow each other."""
    hosts = result_files.latest_per_host(docs)
    if len(hosts) < 2:
        return body
    e = html.escape
    return (f'<div class="tl-hostview" data-group="{e(hostviews.group_path(name, variant))}" '
            f'data-view="{e(view)}"><label class="tl-host-pick">Host and server: <select '
            f'aria-label="Host and server whose result this shows"><option '
            f'value="{hostviews.key(shown)}" selected>{e(describe.host_name(shown))}</option>'
            f'</select></label> <span class="tl-host-count">{len(hosts)} hosts or servers</span>'
            f'<div class="tl-hostview-body">{body}</div></div>')


def _no_data(name: str, variant: str = "") -> str:
    command = recipe_command(name, variant)
    what = f"{name}:{variant}" if variant else name
    return ('<div class="admonition note tl-no-data"><p class="admonition-title">No results yet'
            f'</p><p>Nobody has run <code>{html.escape(what)}</code> yet. Run '
            f'<code>{html.escape(command)}</code> to measure it on your machine.'
            '</p></div>')


def _reproduce_box(r, flags: str = "") -> str:
    """The command that reruns the result the page shows first (its profile: --quick only
    for a quick one), what it needs, how long, and links to the recipe and the setup."""
    estimates = ", ".join(f"{p}: about {human_seconds(s)}" for p, s in
                          planner.profile_estimates(load_all(r.name),
                                                    template_cached=False).items())
    docs = result_files.results_for(r.name, variant=None)
    last = docs[-1].date if docs else "never"
    main = [d for d in docs if not d.variant]
    quick = not main or hostviews.shown_by_default(main).profile == "quick"
    command = " ".join(x for x in (f"invoke recipe {r.name}", "--quick" if quick else "",
                                   flags) if x)
    needs = ", ".join(r.needs) or "nothing beyond the setup (no root)"
    e = html.escape
    recipe_file = f"recipes/{r.name}/recipe.toml"
    return ('<div class="admonition example tl-reproduce"><p class="admonition-title">'
            'Reproduce</p>'
            f'<pre><code>{e(command)}</code></pre>'
            f'<p><strong>Question:</strong> {e(r.question)}</p>'
            f'<p><strong>Needs:</strong> {e(needs)}, after '
            '<a href="../../contributing/#1-run-a-recipe">the setup</a>. '
            f'<strong>Duration:</strong> {e(estimates)}. '
            f'<strong>Last run:</strong> {e(last)}.</p>'
            f'<p>Recipe: <a href="../../{e(recipe_file)}"><code>{e(recipe_file)}</code></a>'
            '</p></div>')


def results_index_fence(source, language, css_class, options, md, **kwargs) -> str:
    """The Results page: every result file, linked to its topic page, with where it ran. The
    table stays out of the search index: a setting or a server's name should find the page
    that explains it, not a list of every file that measured it (the index is every page's
    largest download but plotly.js)."""
    try:
        rows = result_listings.results_index()
        topics = {name: _topic_of(name) for name in {r["recipe"] for r in rows}}
    except (ValueError, KeyError, TypeError, UserError) as exc:
        return fence_failure(f"results-index fence: {exc}", source)
    if not rows:
        return '<div class="admonition note tl-no-data"><p>No result files yet.</p></div>'
    body = "".join(_results_row(r, topics[r["recipe"]]) for r in rows)
    contributed = sum(r["contributed"] for r in rows)
    return ('<div class="tl-results-index" data-search-exclude><table><thead><tr><th>recipe</th><th>variant</th>'
            '<th>profile</th><th>started (its file)</th><th>host</th><th>software</th>'
            f'<th>from</th></tr></thead><tbody>{body}</tbody></table></div><p class="tl-caption">'
            f'{len(rows)} result files, {contributed} contributed.</p>')


def _topic_of(recipe_name: str) -> str | None:
    """The topic page of a recipe (named by the recipe itself, not by a data file), if any."""
    try:
        topic = load(recipe_name).topic
    except UserError:
        return None
    return topic if (TOPICS_DIR / f"{topic}.md").is_file() else None


def _results_row(row: dict, topic: str | None) -> str:
    e = html.escape
    recipe = f"<code>{e(row['recipe'])}</code>"
    if topic:  # the page is at results/, the topics beside it
        recipe = f'<a href="../topics/{e(topic)}/">{recipe}</a>'
    origin = "this project's runs"
    if row["contributed"]:
        origin = " ".join(x for x in ("contributed", row["submitted"]) if x)
        if row["description"]:
            origin += f": {row['description']}"
    if row["invalid"]:
        origin += f". Invalid, not charted: {row['invalid']}"
    started = f'<a href="../{e(row["file"])}" title="the result file">{e(row["started"])}</a>'
    return (f"<tr><td>{recipe}</td><td>{e(row['variant'] or '-')}</td><td>{e(row['profile'])}"
            f"</td><td>{started}</td><td>{e(row['host'])}</td><td>{e(row['software'])}"
            f"</td><td>{e(origin)}</td></tr>")
