"""No measured number is retyped in a page's prose: the fences and the inline forms
({{ verdict ID }}, {{ today ID }}, {{ source ID }}) put every measurement on the page from the
data when the site is built, so prose that quotes one by hand drifts from the data (issue 19).

A number counts as measured when it reads as a result: a ratio ("x1.27", "0.48x", "1.5 times"),
a percentage, or an amount in a unit of throughput, IO or time per transaction. Numbers that
define an experiment (a buffer pool of 64M, 4 threads, a 16 KiB page, the kernel 2.6.3) are
not. The few sentences that must state a measurement-like number that is not one (a regime
check's bound, the recipe's smallest effect worth knowing) are listed in ALLOWED with why."""

import re

import pytest

from helpers import REPO

PAGES = sorted((REPO / "docs").rglob("*.md"))

MEASURED = re.compile(
    r"(?<![\w.])x\d+(\.\d+)?\b"                                  # x1.27
    r"|\b\d+(\.\d+)?x\b"                                          # 0.48x
    r"|\b\d+(\.\d+)?\s*(times|-fold)\b"                           # 1.5 times
    r"|\b\d+(\.\d+)?\s*%"                                         # 30%
    r"|\b\d[\d,]*(\.\d+)?\s*(tps|TPM|transactions?/s|transactions a (second|minute)"
    r"|MiB/s|MB/s|KiB/s|IOPS|fsyncs?/s|writes/s|reads/s|ms\b)"   # 1,250 TPM
    r"|\b\d[\d,]*(\.\d+)?\s*(KiB|MiB|bytes|fsyncs?) (per|a) transaction")

# Numbers that read like measurements but are settings of the method: (pattern, why).
ALLOWED = [
    (r"\b9[05]% (confidence )?interval", "the confidence level of an interval"),
    (r"\bat 5% each", "the level of the two one-sided tests"),
    (r"±(\d+|X)%|\(3% unless", "the smallest effect worth knowing, a recipe's setting"),
    (r"\b80% of (its|the) capacity|\bmust reach 80%", "the redo-size regime check's bound"),
]


def prose(text: str) -> str:
    """The page without its front matter, fenced blocks, code spans, inline forms and the
    allowed settings."""
    if text.startswith("---\n"):
        text = text.split("---\n", 2)[2]
    text = re.sub(r"^```.*?^```", "", text, flags=re.S | re.M)
    text = re.sub(r"`[^`]*`", "", text)
    text = re.sub(r"\{\{.*?\}\}", "", text)
    for pattern, _ in ALLOWED:
        text = re.sub(pattern, "", text)
    return text


def retyped(path) -> list[str]:
    """Each measurement-like number in the page's prose, with its line."""
    return [f"{path.name}: {m.group(0)!r} in: {line.strip()[:100]}"
            for line in prose(path.read_text()).splitlines() for m in MEASURED.finditer(line)]


@pytest.mark.parametrize("path", PAGES, ids=[p.name for p in PAGES])
def test_prose_quotes_no_measurement_by_hand(path):
    assert retyped(path) == []


def test_the_check_finds_a_retyped_ratio(tmp_path):
    page = tmp_path / "p.md"
    page.write_text("---\ntitle: t\n---\nO_DIRECT was 0.48x of fsync, about 1,250 TPM, "
                    "or x1.11 and 30% more, in a 95% interval.\n```plotly\nx = 1.5x\n```\n"
                    "`2.5x` {{ today a }}\n")
    assert [f.split("'")[1] for f in retyped(page)] == ["0.48x", "1,250 TPM", "x1.11", "30%"]
