"""The computed verdicts on the pages: the table that opens each topic page (```verdicts```),
the page of every source claim (```verdicts``` with all = true; the home page's table is
home_table.py's), and the inline forms {{ verdict ID }}, {{ today ID }} and
{{ source ID }} that let prose quote a claim without retyping a number.

A bad spec, an unknown topic or claim, a topic page without a headline claim, or a source result
the claims map leaves out is logged as a warning, so the strict build fails on it."""

import functools
import html
import logging
import re
import tomllib
import xml.etree.ElementTree as etree
from collections import Counter

from markdown.extensions import Extension
from markdown.inlinepatterns import InlineProcessor

from tuninglab.errors import UserError
from tuninglab.evidence import (answers, claim_verdicts, claims_answered, claims_keys, claims_map,
                                historical, measured, servers)
from tuninglab.evidence.citations import cite, source_text, times_text
from tuninglab.evidence.claim_verdicts import Verdict
from tuninglab.evidence.host_class import in_words
from tuninglab.evidence.topic_pages import TOPICS_DIR
from tuninglab.results import verdicts as verdict_words
from tuninglab.results.metrics import METRICS
from tuninglab.results.result import Result
from tuninglab.site import describe
from tuninglab.site.failure import fence_failure
from tuninglab.site.table_notes import Notes, inline

log = logging.getLogger("mkdocs.tuninglab")
e = html.escape


# --- words for one claim --------------------------------------------------------------------

def _source_meta(c) -> tuple[dict, dict]:
    source, meta, _ = historical.historical_table(c.source, c.table)
    return source["source"], meta


def claim_text(c) -> str:
    """What the source claimed, in its own labels: the row against its baseline row, in a
    column, with the table's caption and the citation."""
    source, meta = _source_meta(c)
    row, base = (historical.shown_label(meta, x) for x in (c.row, c.source_baseline or ""))
    what = row if not c.column else f"{row} vs {base} ({c.column})"
    again = "; ".join(historical.shown_label(meta, x) for x in c.same_rows)
    what += f" (the same result, reported again as: {again})" if again else ""
    return f"{what}. {captioned(meta, source)}"


def captioned(meta: dict, source: dict) -> str:
    """A table's caption with its source's citation; a caption that is the source's title
    (an unsigned post's) is not repeated where an author would stand."""
    return f"{meta['caption']} ({cite(source, beside_title=meta['caption'] == source['title'])})"


def _today_what(c, doc: Result) -> str:
    base = _baseline_value(doc)
    pair = f"{base} vs {c.point}" if c.invert else f"{c.point} vs {base}"
    variant = f" ({c.variant})" if c.variant else ""
    metric = f", {METRICS[c.metric].label}" if c.metric in METRICS else ""
    return f"{pair}{variant}{metric}"


def _baseline_value(doc: Result) -> str:
    return doc.baseline_point.value


def today_text(c, v: Verdict) -> str:
    if v.doc is None or v.ratio is None:
        return "-"
    return f"{_today_what(c, v.doc)}: {times_text(v.ratio)}"


def _verdict_cell(v: Verdict, host: str = "", notes: "Notes | None" = None) -> str:
    """The verdict, then why and which host, each on its own line, or (given a table's
    notes) as a note that the table says once if several rows share it."""
    slug = re.sub(r"[^a-z]+", "-", v.kind)
    words = tuple(x for x in (v.why, v.answered_by, host) if x)
    said = notes.ref(words) if notes and words else inline(words)
    return f'<strong class="tl-v tl-v-{slug}">{e(v.text)}</strong>{said}'


# --- the topic page's table -----------------------------------------------------------------

def verdicts_fence(source, language, css_class, options, md, **kwargs) -> str:
    try:
        spec = tomllib.loads(source)
        if spec.get("all"):
            return _all_claims()
        return _topic_table(spec["topic"])
    except (ValueError, KeyError, UserError, tomllib.TOMLDecodeError) as exc:
        return fence_failure(f"verdicts fence: {exc}", source)


def _by_server(c) -> dict[str, list[Verdict]]:
    """The claim's verdicts (claim_verdicts.verdicts: the project's largest set first) by the
    server their evidence set is on; a claim nobody measured has none."""
    found: dict[str, list[Verdict]] = {}
    for v in claim_verdicts.verdicts(c):
        if v.on_server:
            found.setdefault(v.on_server, []).append(v)
    return found


def columns(found: list[dict]) -> list[str]:
    """The servers a table has a column for: the guide's (servers.SHOWN), each whether or not
    it has been measured yet, then any other a result of its claims ran on (found: each
    claim's verdicts by server, _by_server)."""
    return servers.ordered([*servers.SHOWN, *(server for by in found for server in by)])


def _not_measured(c, server: str) -> Verdict:
    return Verdict(claim_verdicts.NOT_MEASURED, claim_verdicts.NOT_MEASURED, None, None,
                   servers.how_to_measure(c.recipe, c.variant, server))


def _claim_rows(c, found: dict, notes: Notes, shown: list[str]) -> str:
    """One row: the claim, its source ratio, and per server (a column each, side by side) the
    pooled verdict of the evidence set the pages show first (the project's own host class
    with the most results); the server's other sets and older evidence fold under it."""
    why = f'<br><span class="tl-why">Today: {e(c.why)}</span>' if c.why else ""
    if c.caveat:
        why += f'<br><span class="tl-why tl-caveat">Caveat: {e(c.caveat)}</span>'
    cells = "".join(_server_cell(c, found.get(server) or [_not_measured(c, server)], server,
                                 notes) for server in shown)
    return (f'<tr id="claim-{e(c.id)}"><td data-label="Source claim">{e(claim_text(c))}{why}'
            f'</td><td data-label="Then">{e(source_text(c))}</td>{cells}</tr>')


def _server_cell(c, found: list[Verdict], server: str, notes: Notes) -> str:
    """A claim's answer on one server: its verdict, today's ratio and what it rests on."""
    first, *others = found
    today = today_text(c, first)
    ratio = f'<br><span class="tl-today">{e(today)}</span>' if first.ratio is not None else ""
    if first.band:
        ratio += f'<br><span class="tl-band">judged against {e(first.band)}</span>'
    mark = measured.attr(c.recipe, c.variant, server, any(v.evidence for v in found)) + \
        answers.claim_mark(c, first, server)
    return (f'<td data-label="{e(header(server))}"{mark}>'
            f'{_verdict_cell(first, _set_note(first, bool(others)), notes)}{ratio}'
            f'{_counted(first)}{_other_sets(others, notes)}{_older(first)}</td>')


def header(server: str) -> str:
    """A server column's heading, and a phone's label for its cell."""
    return f"Today on {servers.label(server)}"


def _counted(v: Verdict) -> str:
    return f'<br><span class="tl-why">{e(v.counted)}</span>' if v.counted else ""


def _other_sets(others: list, notes: Notes) -> str:
    """The verdicts of the server's other evidence sets (other host classes), folded."""
    if not others:
        return ""
    items = "".join(f"<li>{e(_set_note(v, True))}: {e(times_text(v.ratio))}"
                    f"{' (' + e(v.counted) + ')' if v.counted else ''} "
                    f"{_verdict_cell(v, notes=notes)}</li>" for v in others)
    n = len(others)
    halves = sum(v.evidence is not None and v.evidence.host_class.duet for v in others)
    what = (f"{n} other host class{'es' * (n > 1)}" if not halves else
            "on half the machine (a duet)" if halves == n else
            f"{n} other host classes, {halves} on half the machine (a duet)")
    return (f'<details class="tl-other-hosts"><summary>{e(what)}</summary><ul>{items}</ul>'
            '</details>')


def _older(v: Verdict) -> str:
    """The set's superseded results, folded: kept, linked, never judged."""
    older = v.evidence.superseded if v.evidence else ()
    if not older:
        return ""
    items = "".join(f'<li><a href="{e(_site_link(doc))}">{e(doc.date)}</a>: '
                    f"{e(why)}</li>" for doc, why in older)
    return (f'<details class="tl-older"><summary>older evidence ({len(older)} result'
            f'{"s" * (len(older) > 1)}, not judged)</summary><ul>{items}</ul></details>')


def _site_link(doc: Result) -> str:
    """A result file's link from a page two levels down (docs/topics/<slug>/)."""
    return "../../" + (doc.file or "")


def _set_note(v: Verdict, several: bool) -> str:
    """Which host class a verdict is from (when its server has several sets: the server is
    the column's; and always a duet's, whose servers had half the machine: another question
    than the page's class), and the host notes of its latest result."""
    if v.evidence is None:
        return _host_note(v.doc, False)
    cls = v.evidence.host_class
    # a duet's in a DBA's words where a result says what the machine was
    where = (f"on {in_words(v.doc)}" if v.doc is not None else cls.name) if cls.duet else \
        cls.name if several else ""
    return "; ".join(x for x in (where, _host_note(v.doc, False)) if x)


def _host_note(doc: dict | Result | None, several: bool) -> str:
    """Which host a verdict is from (when several ran the recipe), whether a contributor ran it
    (never to be taken for the project's own), and whether it ran without the memory model."""
    if doc is None:
        return ""
    r = Result.of(doc)
    notes = [f"{describe.host_name(r)}, {r.date}"] if several else []
    if r.contributed and not several:  # else the host's name says so
        notes.append("contributed")
    if r.labs:
        notes.append("in the lab VM, whose guest has no memory model")
    elif describe.uncapped(r):
        notes.append("memory not capped: the OS may have cached the data")
    return "; ".join(notes)


def _untestable_kind(u) -> str:
    """An untestable entry's verdict: not an effect at all, or one the lab cannot test."""
    return (claim_verdicts.NOT_AN_EFFECT if u.kind == claims_keys.NOT_AN_EFFECT
            else claim_verdicts.NOT_TESTABLE)


def _untestable_rows(items: list, notes: Notes, width: int) -> str:
    """One row per table and reason, naming the results it covers; its verdict spans the
    table's width server columns: it is the same on every server."""
    groups = {}
    for u in items:
        groups.setdefault((u.source, u.table, u.reason), []).append(u)
    rows = []
    for (slug, table, reason), group in groups.items():
        source, meta, _ = historical.historical_table(slug, table)
        base = meta.get("baseline")
        shown = functools.partial(historical.shown_label, meta)
        what = "; ".join(shown(u.row) + (f" vs {shown(base)}" if base and u.column else "") +
                         (f" ({u.column})" if u.column else "") for u in group)
        kind = _untestable_kind(group[0])
        v = Verdict(kind, kind, None, None, reason)
        rows.append(f'<tr><td data-label="Source claim">{e(what)}. '
                    f'{e(captioned(meta, source["source"]))}</td><td data-label="Then">-</td>'
                    f'<td data-label="Today" colspan="{width}">'
                    f'{_verdict_cell(v, notes=notes)}</td></tr>')
    return "".join(rows)


def _table(claims: list, untestable: list, prefix: str, searched: bool = True) -> str:
    """A verdict table of claims and untestable results, its shared notes under it;
    searched=False keeps it out of the search index (a page of every claim would otherwise
    match any term before the topic page that explains it)."""
    # Each claim's verdicts, pooled once: its columns, its fold and its row read them.
    found = {c.id: _by_server(c) for c in claims}
    notes, shown = Notes(prefix), columns(list(found.values()))
    tested = [c for c in claims if not _untested(found[c.id])]
    folded = "".join(_claim_rows(c, found[c.id], notes, shown) for c in claims
                     if c not in tested) + \
        _untestable_rows(untestable, notes, len(shown))
    heads = "".join(f"<th>{e(header(server))}</th>" for server in shown)
    head = f"<thead><tr><th>Source claim</th><th>Then</th>{heads}</tr></thead>"
    rows = "".join(_claim_rows(c, found[c.id], notes, shown) for c in tested)
    body, listed = notes.finish(rows + "\x01" + folded)
    rows, folded = body.split("\x01")
    # The notes go where the rows that cite them are shown: under the table, or folded with
    # the rows when every row is folded.
    exclude = "" if searched else " data-search-exclude"
    return (f'<div class="tl-claim-verdicts tl-servers-{len(shown)}"{exclude}>'
            + (f"<table>{head}<tbody>{rows}</tbody></table>{listed}" if tested else "")
            + _folded(folded, head, "" if tested else listed) + '</div>')


def _untested(found: dict) -> bool:
    """Whether no server's column answers a claim here (found: its verdicts by server): the
    verdict each shows (its first evidence set's) is "not testable here" (a claim not
    measured yet can be)."""
    firsts = [vs[0] for vs in found.values()]
    return bool(firsts) and all(v.kind == claim_verdicts.NOT_TESTABLE for v in firsts)


def _folded(rows: str, head: str, listed: str = "") -> str:
    """The rows that answer nothing here (not testable here, not an effect), under one line
    that says how many and why, so the claims this host answers come first."""
    if not rows:
        return ""
    n = rows.count("<tr")
    return (f'<details class="tl-untested"><summary>{n} more source result'
            f'{"s" * (n != 1)} that this host cannot test or that are not effects (each row '
            f"says why)</summary><table>{head}<tbody>{rows}</tbody></table>{listed}</details>")


def _topic_table(topic: str) -> str:
    if not (TOPICS_DIR / f"{topic}.md").is_file():
        raise ValueError(f"topic {topic!r} has no page (docs/topics/{topic}.md)")
    claims, untestable = claims_map.load_map()
    mine = sorted((c for c in claims if c.topic == topic), key=lambda c: not c.headline)
    others = [u for u in untestable if u.topic == topic]
    if not mine and not others:
        raise ValueError(f"the claims map (data/claims/) has no claim of topic {topic!r}")
    return (_table(mine, others, f"verdicts-{topic}") +
            '<p class="tl-caption">"Then" is the source\'s result as a ratio to its baseline; '
            'each "Today" column is one server\'s: the ratio pooled over every comparable '
            'result (that server, one host class), with its 95% interval and how many results '
            'and sittings it rests on. The verdict sizes it against the source\'s ratio; the '
            'words are defined on '
            '<a href="../../claims/#verdicts">every claim\'s page</a>, computed when the site is '
            'built.</p>')


def check_complete() -> None:
    """ValueError listing every source result the claims map leaves out."""
    problems = claims_map.problems()
    if problems:
        raise ValueError("the claims map leaves results out:\n" + "\n".join(problems))


def _all_claims() -> str:
    """The verdicts' words and counts, then every source's claims and untestable results, by
    source."""
    check_complete()
    claims, untestable = claims_map.load_map()
    parts = [vocabulary(claims, untestable), answered_table(claims)]
    for slug in sorted({c.source for c in claims} | {u.source for u in untestable}):
        s = historical.historical_source(slug)["source"]
        table = _table([c for c in claims if c.source == slug],
                       [u for u in untestable if u.source == slug], slug, searched=False)
        heading = f'{e(s["title"])} ({e(cite(s, beside_title=True))})'
        parts.append(f'<h2 id="{e(slug)}">{heading}</h2>' + table)
    return "".join(parts)


def counts(claims: list, untestable: list) -> Counter:
    """How many source results get each verdict (a claim's first set; an untestable entry's
    cells one each)."""
    found = Counter(claim_verdicts.verdicts(c)[0].kind for c in claims)
    for u in untestable:
        found[_untestable_kind(u)] += 1
    return found


def vocabulary(claims: list, untestable: list) -> str:
    """The one definition of each verdict the site, the terminal and the home page use, with
    how many source results have it today."""
    found = counts(claims, untestable)
    rows = "".join(f'<tr><td>{_verdict_cell(Verdict(k, k, None, None))}</td>'
                   f'<td>{found.get(k, 0)}</td><td>{e(text)}</td></tr>'
                   for k, text in verdict_words.VOCABULARY.items())
    return ('<h2 id="verdicts">The verdicts</h2><div class="tl-vocabulary"><table><thead><tr>'
            '<th>Verdict</th><th>Source results</th><th>Meaning</th></tr></thead><tbody>'
            + rows + '</tbody></table></div><p class="tl-caption">Each claim counted once, by '
            'its verdict on its largest evidence set, whichever server and host class that '
            'is; the next table counts per server and host class.</p>')


def answered_table(claims: list) -> str:
    """Per server and host class, how many distinct source results are answered, of how many
    measured, from how many sittings (evidence/claims_answered.py)."""
    total = claims_answered.distinct(claims)
    rows = "".join(f'<tr><td>{e(servers.label(a.server))}</td><td>{e(a.host_class)}</td>'
                   f'<td>{a.answered} of {total}</td><td>{a.measured}</td>'
                   f'<td>{a.sittings if a.answered else "-"}</td></tr>'
                   for a in claims_answered.tally(claims))
    return ('<h2 id="answered">Answered, per server and host class</h2><p>Each source result '
            'counts once, however many claims or pages ask it; a verdict answers for its own '
            'server and host class alone (a lab VM result for its guest\'s server, on the '
            'machine it ran on).</p><div class="tl-answered"><table><thead><tr><th>Server</th>'
            '<th>Host class</th><th>Source results answered</th><th>Measured</th>'
            '<th>Sittings the answers rest on</th></tr></thead><tbody>' + rows +
            '</tbody></table></div>')


# --- inline forms ---------------------------------------------------------------------------

INLINE = r"\{\{\s*(verdict|today|source)\s+([A-Za-z0-9_.-]+)\s*\}\}"


class _ClaimInline(InlineProcessor):
    def handleMatch(self, m, data):
        form, claim_id = m.group(1), m.group(2)
        el = etree.Element("span")
        el.set("class", f"tl-inline tl-inline-{form}")
        try:
            c = claims_map.claim(claim_id)
            if form == "source":
                el.text = source_text(c)
            else:
                v = claim_verdicts.verdicts(c)[0]
                el.text = v.text if form == "verdict" else times_text(v.ratio)
        except (UserError, ValueError, KeyError) as exc:
            log.warning("inline {{ %s %s }}: %s", form, claim_id, exc)
            el.text = f"[{form} {claim_id}: {exc}]"
        return el, m.start(0), m.end(0)


class ClaimsExtension(Extension):
    def extendMarkdown(self, md):
        md.inlinePatterns.register(_ClaimInline(INLINE, md), "tuninglab-claims", 175)


def makeExtension(**kwargs):
    return ClaimsExtension(**kwargs)
