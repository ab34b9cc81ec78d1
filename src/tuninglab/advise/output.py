"""The report in three forms: a terminal table, JSON for a program, and Markdown a DBA can
paste into a ticket. Each row links to its topic page."""

import json
import shutil
import textwrap

from tuninglab.site import advice, server_rows as rows_mod

# The verdicts in a narrow column's words.
KIND_WORDS = {advice.HOLDS: "holds", advice.DOES_NOT_HOLD: "does not hold",
              advice.CANNOT_TELL: "cannot tell", rows_mod.NO_EVIDENCE: "no evidence"}


def _evidence_text(e) -> str:
    if not e.ratio:
        return KIND_WORDS.get(e.kind, e.kind)
    return f"{KIND_WORDS.get(e.kind, e.kind)}: {e.comparison} {e.ratio}, {e.counted()}"


def _wrap(cells: list[str], widths: list[int]) -> list[str]:
    wrapped = [textwrap.wrap(c, w) or [""] for c, w in zip(cells, widths)]
    height = max(len(w) for w in wrapped)
    return ["  ".join((w[i] if i < len(w) else "").ljust(width)
                      for w, width in zip(wrapped, widths)).rstrip() for i in range(height)]


def terminal(s, h: dict, found: list, server: str, note: str) -> str:
    """A table of topic, current value, evidence and advice, wrapped to the terminal; then the
    rows whose advice applies, each with its command."""
    width = max(100, shutil.get_terminal_size((120, 40)).columns)
    widths = [22, 30, 30, width - 22 - 30 - 30 - 6]
    lines = rows_mod.header(s, h, server, note) + [""]
    lines += _wrap(["Topic", "Yours", "Evidence", "Advice"], widths)
    lines.append("-" * (width - 1))
    for r in found:
        lines += _wrap([r.title, r.reading.value, _evidence_text(r.evidence), r.advice], widths)
    applying = [r for r in found if r.applies]
    lines += ["", f"{len(applying)} of {len(found)} topics have advice that applies here"
              + (":" if applying else ".")]
    for r in applying:
        measure = f"{r.command} ({r.estimate})" if r.estimate else r.command
        lines += [f"  {r.title}: {r.url}", f"    measure it here: {measure}"]
    return "\n".join(lines)


def as_json(s, h: dict, found: list, server: str, note: str) -> str:
    return json.dumps({"server": s.as_dict(), "host": h,
                       "guide_server": server, "guide_server_note": note,
                       "applies": sum(r.applies for r in found),
                       "rows": [r.as_dict() for r in found]}, indent=2, default=str)


def _md(text: str) -> str:
    """A table cell's text: pipes and line breaks would end the cell."""
    return str(text).replace("|", "\\|").replace("\n", " ")


def markdown(s, h: dict, found: list, server: str, note: str) -> str:
    lines = ["# What the InnoDB Tuning Lab's evidence says for this server", ""]
    lines += [f"- {_md(line)}" for line in rows_mod.header(s, h, server, note)] + [""]
    lines += ["| Topic | Yours | Evidence | Advice | Measure it here |",
              "|---|---|---|---|---|"]
    for r in found:
        evidence = _evidence_text(r.evidence)
        if r.evidence.host_class:
            evidence += f" ({r.evidence.host_class}; {r.evidence.closeness})"
        measure = f"`{r.command}` ({r.estimate})" if r.estimate else r.command
        lines.append(f"| [{_md(r.title)}]({r.url}) | {_md(r.reading.value)} | {_md(evidence)} "
                     f"| {_md(r.advice)} | {_md(measure)} |")
    applying = sum(r.applies for r in found)
    lines += ["", f"{applying} of {len(found)} topics have advice that applies here."]
    return "\n".join(lines) + "\n"


FORMS = {"table": terminal, "json": as_json, "markdown": markdown}
