"""Words that would repeat on many rows of one verdict table (a lab VM result's reason, the host
it ran on: the same on every row of the RAID page) are said once under the table; each row
that shares them carries the notes' numbers instead (verdict_tables.py)."""

import html
import re
from collections import Counter

e = html.escape


def inline(words: tuple) -> str:
    return "".join(f'<br><span class="tl-why">{e(w)}</span>' for w in words)


class Notes:
    """The notes of one table: each cell's words placed, then resolved once every row is
    written."""

    def __init__(self, prefix: str):
        self.prefix, self.said = prefix, []

    def ref(self, words: tuple) -> str:
        """A placeholder for a cell's words, resolved by finish() once every row is written."""
        self.said.append(words)
        return f"\x00{len(self.said) - 1}\x00"

    def finish(self, body: str) -> tuple[str, str]:
        """The rows with their placeholders resolved, and the notes to print under them."""
        counts = Counter(w for words in self.said for w in words)
        shared = list(dict.fromkeys(w for words in self.said for w in words if counts[w] > 1))

        def put(m: re.Match) -> str:
            words = self.said[int(m.group(1))]
            refs = ", ".join(f'<a href="#{self.prefix}-note-{shared.index(w) + 1}" '
                             f'title="{e(w)}">{shared.index(w) + 1}</a>'
                             for w in words if w in shared)
            marks = f' <sup class="tl-note-ref">{refs}</sup>' if refs else ""
            return marks + inline(tuple(w for w in words if w not in shared))

        items = "".join(f'<li id="{self.prefix}-note-{n}">{e(w)}</li>'
                        for n, w in enumerate(shared, 1))
        listed = f'<ol class="tl-notes">{items}</ol>' if items else ""
        return re.sub("\x00(\\d+)\x00", put, body), listed
