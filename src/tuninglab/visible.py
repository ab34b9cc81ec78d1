"""Text from elsewhere made safe to print: its control characters written out.

A server's error text, variable values and version (advise), a fleet host's output (fleet) and
a result file's strings in data.check's lines go to the reader's terminal. An ESC there
could clear the screen or recolour a line, a line break could forge a line of advise's own
("error: ..."), a bidi override could make a value read differently than it is. Each such
character is shown as its escape instead (\\x1b, \\n, \\u202e), so it is seen, not obeyed.
"""

import unicodedata

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
