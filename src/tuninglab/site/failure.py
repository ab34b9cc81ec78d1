"""How a fence fails on a page: a warning, which the strict build stops on, and a failure box in
the fence's place, so that `mkdocs serve` shows where. Every fence module fails this one way."""

import html
import logging

log = logging.getLogger("mkdocs.tuninglab")


def fence_failure(message: str, source: str) -> str:
    """Warn with the message and the fence's body; the HTML that stands in for the fence."""
    log.warning("%s\n--- fence body ---\n%s", message, source.strip())
    return f'<div class="admonition failure"><p>{html.escape(message)}</p></div>'
