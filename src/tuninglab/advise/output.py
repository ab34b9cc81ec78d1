"""The report in three forms: a terminal table, JSON for a program, and Markdown a DBA can
paste into a ticket. Each row links to its topic page."""

import html
import json
import re
import shutil
import textwrap

from tuninglab.evidence import advice, server_rows as rows_mod
from tuninglab.visible import visible

# The verdicts in a narrow column's words.
KIND_WORDS = {advice.HOLDS: "holds", advice.DOES_NOT_HOLD: "does not hold",
              advice.CANNOT_TELL: "cannot tell", rows_mod.NO_EVIDENCE: "no evidence"}


def _evidence_text(e) -> str:
    if not e.ratio:
        return KIND_WORDS.get(e.kind, e.kind)
    return f"{KIND_WORDS.get(e.kind, e.kind)}: {e.comparison} {e.ratio}, {e.counted()}"


def _wrap(cells: list[str], widths: list[int]) -> list[str]:
    """One row of cells wrapped to their widths; a server's text in them made visible."""
    wrapped = [textwrap.wrap(visible(c), w) or [""] for c, w in zip(cells, widths)]
    height = max(len(w) for w in wrapped)
    return ["  ".join((w[i] if i < len(w) else "").ljust(width)
                      for w, width in zip(wrapped, widths)).rstrip() for i in range(height)]


def terminal(s, h: dict, found: list, server: str, note: str) -> str:
    """A table of topic, current value, evidence and advice, wrapped to the terminal; then the
    rows whose advice applies, each with its command. Control characters in any of it (an ESC,
    a line break in a server's version or value) are shown as escapes, never sent raw."""
    width = max(100, shutil.get_terminal_size((120, 40)).columns)
    widths = [22, 30, 30, width - 22 - 30 - 30 - 6]
    lines = [visible(line) for line in rows_mod.header(s, h, server, note)] + [""]
    lines += _wrap(["Topic", "Yours", "Evidence", "Advice"], widths)
    lines.append("-" * (width - 1))
    for r in found:
        lines += _wrap([r.title, r.reading.value, _evidence_text(r.evidence), r.advice], widths)
    applying = [r for r in found if r.applies]
    lines += ["", f"{len(applying)} of {len(found)} topics have advice that applies here"
              + (":" if applying else ".")]
    for r in applying:
        measure = f"{r.command} ({r.estimate})" if r.estimate else r.command
        lines += [visible(f"  {r.title}: {r.url}"), visible(f"    measure it here: {measure}")]
    return "\n".join(lines)


def as_json(s, h: dict, found: list, server: str, note: str) -> str:
    return json.dumps({"server": s.as_dict(), "host": h,
                       "guide_server": server, "guide_server_note": note,
                       "applies": sum(r.applies for r in found),
                       "rows": [r.as_dict() for r in found]}, indent=2, default=str)


# Marks Markdown reads in a table cell: emphasis, code, links, strikethrough, the cell's end.
MD_MARKS = re.compile(r"([\\`*_\[\]|~])")


def _md(text) -> str:
    """A table cell's text as text: control characters (line breaks too) written out, HTML's
    <, > and & as entities, Markdown's marks backslash-escaped. A server's value can then end no
    cell and become no link, emphasis, code or HTML (<script>) where the report is pasted."""
    return MD_MARKS.sub(r"\\\1", html.escape(visible(text), quote=False))


def _code(text: str) -> str:
    """A command as inline code: only a pipe needs escaping there (it would end the cell)."""
    if "`" in text or visible(text) != text:
        return _md(text)
    return "`" + text.replace("|", "\\|") + "`"


def markdown(s, h: dict, found: list, server: str, note: str) -> str:
    lines = ["# What the InnoDB Tuning Lab's evidence says for this server", ""]
    lines += [f"- {_md(line)}" for line in rows_mod.header(s, h, server, note)] + [""]
    lines += ["| Topic | Yours | Evidence | Advice | Measure it here |",
              "|---|---|---|---|---|"]
    for r in found:
        evidence = _evidence_text(r.evidence)
        if r.evidence.host_class:
            evidence += f" ({r.evidence.host_class}; {r.evidence.closeness})"
        measure = f"{_code(r.command)} ({_md(r.estimate)})" if r.estimate else _md(r.command)
        lines.append(f"| [{_md(r.title)}]({r.url}) | {_md(r.reading.value)} | {_md(evidence)} "
                     f"| {_md(r.advice)} | {measure} |")
    applying = sum(r.applies for r in found)
    lines += ["", f"{applying} of {len(found)} topics have advice that applies here."]
    return "\n".join(lines) + "\n"


FORMS = {"table": terminal, "json": as_json, "markdown": markdown}
