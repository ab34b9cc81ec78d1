"""Text from elsewhere made safe to print: its control characters written out.

A server's error text, variable values and version (advise), a fleet host's output (fleet), a
result file's strings in data.check's lines and the evidence's words in data.claims go to the
reader's terminal. An ESC there could clear the screen or recolour a line, a line break could
forge a line of the project's own ("error: ...", a claim's verdict), a bidi override could make
a value read differently than it is, a Hangul filler could hide text as blank, and a pile of
combining marks spills over the lines above and below. Each such character is shown as its
escape instead (\\x1b, \\n, \\u202e, \\u3164), so it is seen, not obeyed; data.check refuses
them in a result file (contrib/check.py, by the same definitions).
"""

import sys
import unicodedata
from functools import lru_cache

# Control and format characters, lone surrogates, and Unicode's line and paragraph separators.
HIDDEN = ("Cc", "Cf", "Cs", "Zl", "Zp")
NAMED = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}
# Characters that show nothing though their category is none of HIDDEN: Unicode's
# default-ignorable code points (DerivedCoreProperties.txt) outside Cf. The Hangul fillers are
# letters (Lo) drawn as blank, so "AMD\u3164EPYC" reads as "AMD EPYC" and "\u115f" as nothing;
# the rest are the combining grapheme joiner, variation selectors and code points Unicode
# keeps for more of the kind.
IGNORABLE = ((0x034F, 0x034F), (0x115F, 0x1160), (0x17B4, 0x17B5), (0x180B, 0x180F),
             (0x2065, 0x2065), (0x3164, 0x3164), (0xFE00, 0xFE0F), (0xFFA0, 0xFFA0),
             (0xFFF0, 0xFFF8), (0x1BCA0, 0x1BCA3), (0x1D173, 0x1D17A), (0xE0000, 0xE0FFF))
INVISIBLE = frozenset(chr(c) for low, high in IGNORABLE for c in range(low, high + 1))
# Combining marks (category M) one character may carry: Vietnamese stacks two on a letter, an
# Indic syllable three; more is no script's, only a pile drawn over the neighbouring lines.
MAX_MARKS = 3


def hidden(c: str) -> bool:
    """Whether a character acts on the terminal or shows nothing rather than itself."""
    return unicodedata.category(c) in HIDDEN or c in INVISIBLE


def is_mark(c: str) -> bool:
    """A combining mark: drawn on the character before it (on whatever precedes, if none)."""
    return unicodedata.category(c).startswith("M")


def _escape(c: str) -> str:
    if c in NAMED:
        return NAMED[c]
    code = ord(c)
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}" if code < 0x10000 \
        else f"\\U{code:08x}"


def visible(text) -> str:
    """text on one line: every control, format or invisible character written as its escape,
    and so is a combining mark beyond MAX_MARKS on one character or on none (the start of the
    text, an escape)."""
    out, marks = [], None  # marks: how many the last character shown carries; None: no base
    for c in str(text):
        if hidden(c):
            out.append(_escape(c))
            marks = None
        elif is_mark(c):
            if marks is None or marks >= MAX_MARKS:
                out.append(_escape(c))
                marks = None
            else:
                out.append(c)
                marks += 1
        else:
            out.append(c)
            marks = 0
    return "".join(out)


# On a page (the site), where an escape would read as data, a format character is named instead.

@lru_cache(maxsize=1)
def _format_characters() -> dict:
    """str.translate's table: each Unicode format character (category Cf: bidi controls such as
    U+202E and U+2066..2069, zero-width ones such as U+200B) and each other invisible one
    (INVISIBLE: U+3164, ...) to its visible name, [U+202E]."""
    table = {c: f"[U+{c:04X}]" for c in range(sys.maxunicode + 1)
             if unicodedata.category(chr(c)) == "Cf"}
    return table | {ord(c): f"[U+{ord(c):04X}]" for c in INVISIBLE}


def plain(text: str) -> str:
    """text with its format and invisible characters shown as [U+XXXX] rather than acting on
    the page (an HTML entity would still act): data.check refuses them, the site never renders
    them."""
    return text.translate(_format_characters())
