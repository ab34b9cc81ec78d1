"""Text from elsewhere made safe to print: its control characters written out.

A server's error text, variable values and version (advise), a fleet host's output (fleet) and
a result file's strings in data.check's lines go to the reader's terminal. An ESC there
could clear the screen or recolour a line, a line break could forge a line of advise's own
("error: ..."), a bidi override could make a value read differently than it is. Each such
character is shown as its escape instead (\\x1b, \\n, \\u202e), so it is seen, not obeyed.
"""

import sys
import unicodedata
from functools import lru_cache

# Control and format characters, lone surrogates, and Unicode's line and paragraph separators.
HIDDEN = ("Cc", "Cf", "Cs", "Zl", "Zp")
NAMED = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}


def _escape(c: str) -> str:
    if c in NAMED:
        return NAMED[c]
    code = ord(c)
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}" if code < 0x10000 \
        else f"\\U{code:08x}"


def visible(text) -> str:
    """text with every control or format character written as its escape."""
    return "".join(_escape(c) if unicodedata.category(c) in HIDDEN else c for c in str(text))


# On a page (the site), where an escape would read as data, a format character is named instead.

@lru_cache(maxsize=1)
def _format_characters() -> dict:
    """str.translate's table: each Unicode format character (category Cf: bidi controls such as
    U+202E and U+2066..2069, zero-width ones such as U+200B) to its visible name, [U+202E]."""
    return {c: f"[U+{c:04X}]" for c in range(sys.maxunicode + 1)
            if unicodedata.category(chr(c)) == "Cf"}


def plain(text: str) -> str:
    """text with its format characters shown as [U+XXXX] rather than acting on the page (an
    HTML entity would still act): data.check refuses them, the site never renders them."""
    return text.translate(_format_characters())
