"""The "Check your server" page's example reports (```server-check```): `invoke advise`'s rows,
computed through the build from facts captured on the project's own servers
(docs/examples/advise/*.json, as `invoke advise --json` writes them: its "server" and "host";
its stored rows are never read), so that the evidence beside each value is today's. One tab per
server, in the pages' order."""

import html
import json
import re
from pathlib import Path

from tuninglab import files
from tuninglab.errors import UserError
from tuninglab.evidence import advice, answers, measured, server_rows, servers
from tuninglab.evidence.server_readings import ServerFacts
from tuninglab.evidence.topic_pages import topic_pages
from tuninglab.site.failure import fence_failure
from tuninglab.site.tabs import server_tabs

e = html.escape
EXAMPLES = files.PROJECT_DIR / "docs" / "examples" / "advise"


def load(path: Path) -> tuple[ServerFacts, dict, str]:
    """A capture's server facts, host facts and its one-line "about"; UserError naming the
    file and the key."""
    try:
        capture = json.loads(path.read_text())
    except (OSError, ValueError) as exc:
        raise UserError(f"{path}: not a JSON capture ({exc})") from None
    for key in ("server", "host", "about"):
        if key not in capture:
            raise UserError(f"{path}: {key}: missing (a capture is `invoke advise --json`'s "
                            f"output with an \"about\" line saying how the server was started)")
    return ServerFacts.from_dict(capture["server"], str(path)), capture["host"], capture["about"]


def _row(r, rests_on) -> str:
    """Three cells, so that the table fits a laptop's column: the topic with the reader's
    value under it, the evidence (marked with what it says is measured: measured.py), the
    advice with the command that measures it."""
    ev = r.evidence
    mark = measured.attr(rests_on.recipe, rests_on.variant, ev.server,
                         ev.kind != server_rows.NO_EVIDENCE) if rests_on and ev.server else ""
    if rests_on and ev.interval:   # what the cell answers: the advice, on this evidence
        mark += answers.mark(answers.Mark(ev.server, rests_on.recipe, rests_on.variant,
                                          rests_on.point, answers.metric_of(rests_on),
                                          ev.class_key, answers.ADVICE, ev.kind, ev.interval))
    evidence = f'<span class="tl-v tl-v-{ev.kind.replace(" ", "-")}">{e(ev.kind)}</span>'
    if ev.ratio:
        evidence += (f"<br>{e(ev.comparison)} {e(ev.ratio)}<br><small>{e(ev.counted())}, "
                     f"{e(ev.host_class)}; {e(ev.closeness)}</small>")
    elif ev.why:
        evidence += f"<br><small>{e(ev.why)}</small>"
    return (f'<tr><td data-label="Topic"><a href="../topics/{e(r.slug)}/">{e(r.title)}</a>'
            f"<br><small>{e(r.reading.value)}</small></td>"
            f'<td data-label="Evidence"{mark}>{evidence}</td>'
            f'<td data-label="Advice">{e(r.advice)}<br><small><code>{e(r.command)}</code>'
            f"</small></td></tr>")


def _code(text: str) -> str:
    """Escaped text with its `backticked` parts as code."""
    return re.sub(r"`([^`]+)`", r"<code>\1</code>", e(text))


def report(path: Path) -> tuple[str, str]:
    """(the guide's server, the report's HTML) for one capture."""
    s, h, about = load(path)
    server, note = server_rows.guide_server(s.flavor, s.version)
    found = server_rows.rows(s, h, server_rows.this_host(h))
    lines = "".join(f"<li>{e(line)}</li>" for line in server_rows.header(s, h, server, note))
    applying = sum(r.applies for r in found)
    rests = {meta["slug"]: advice.rests_on(meta) for meta in topic_pages()}
    body = "".join(_row(r, rests[r.slug]) for r in found)
    return server or s.flavor, (
        f'<p>{_code(about)} (<a href="../examples/advise/{e(path.name)}">the captured facts</a>)'
        f"</p><ul>{lines}</ul><p>{applying} of {len(found)} topics have advice that applies.</p>"
        f'<div class="tl-verdicts tl-check"><table><thead><tr><th>Topic: yours</th>'
        f"<th>Evidence</th><th>Advice</th></tr></thead><tbody>{body}</tbody></table></div>")


def server_check_fence(source, language, css_class, options, md, **kwargs) -> str:
    try:
        paths = sorted(EXAMPLES.glob("*.json"))
        if not paths:
            raise UserError(f"no captures in {EXAMPLES}")
        blocks = sorted((report(p) for p in paths), key=lambda b: servers.rank(b[0]))
        return '<section data-search-exclude>' + server_tabs(blocks, "tl-check") + "</section>"
    except (ValueError, KeyError, UserError) as exc:
        return fence_failure(f"server-check fence: {exc}", source)
