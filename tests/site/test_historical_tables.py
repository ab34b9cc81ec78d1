"""What a reader sees of a transcribed source (issue 20): claims tables headed in a reader's words,
an English translation beside each printed Portuguese text, a mark on each label the source
itself cut off, and the transcription shown exactly as printed.

The translations and the cut labels are metadata in source.toml ([translations], a table's
`truncated`); the CSVs are never edited for them."""

import csv
import html
import json
import re
import tomllib

import pytest

from helpers import DATA, REPO, SHARED
from tuninglab.evidence import historical
from tuninglab.site import historical_figures

HIST = DATA / "historical"
SOURCES = SHARED / "sources"
NO_SOURCES = f"{SOURCES} is missing (it sits beside the checkout in CI)"
RAW_NAMES = {"label", "value", "unit", "qualifier", "claim_location"}
ENGLISH_SOURCES = ["000_f6fcf96cb4d6eaef.txt", "001_74f0069bb2daf889.txt",
                   "002_991e6ae7df783fa4.txt", "003_c1860121ae744c06.txt"]
# A word on its own: not part of a setting's name (innodb_doublewrite) or of a key=value.
WORD = re.compile(r"(?<![\w=])[^\W\d_]{2,}(?![\w=])")

# The labels the 2004 slides cut off at the cell's edge, read in the source (a mid-word cut, or
# a phrase that stops at "and"); "Compiled,NPT" is short of the edge: the author's abbreviation.
KNOWN_CUT = {
    ("zaitsev-2004-os-hardware", "ext3-mount-options.csv"): {"ext3,data=writeback,noati"},
    ("zaitsev-2004-os-hardware", "filesystems-2-4.csv"): {"Raw, Logs on separate di"},
    ("zaitsev-2004-os-hardware", "direct-io-2-4.csv"): {"Kernel 2.4.21-9.ELhugem"},
    ("zaitsev-2004-os-hardware", "logs-separate-disk.csv"): {"Shared drive for data and",
                                                             "Logs on dedicated SCSI driv"},
}


def sources():
    for path in sorted(HIST.glob("*/source.toml")):
        with open(path, "rb") as f:
            yield path.parent.name, tomllib.load(f)


def rows_of(slug, table):
    with open(HIST / slug / table, encoding="utf-8", newline="") as f:
        return list(csv.DictReader(f))


def printed_texts(slug, source):
    """Every text of a source the site may show that the source prints (not our labels or
    locations): the title, the captions, a claim's value and unit, every cell of a table."""
    yield source["source"]["title"]
    for t in source["tables"]:
        yield t["caption"]
        columns = [t["value_columns"][0], "unit"] if t["kind"] == "claims" else None
        for row in rows_of(slug, t["file"]):
            yield from (v for c, v in row.items() if v and (columns is None or c in columns))


def claims_fences():
    """(page path under the built site, source slug, table) of each claims fence in docs/."""
    for md in sorted((REPO / "docs").rglob("*.md")):
        for body in re.findall(r"^```plotly\n(.*?)^```", md.read_text(), flags=re.S | re.M):
            spec = tomllib.loads(body)
            if spec.get("kind") == "claims":
                page = md.relative_to(REPO / "docs").with_suffix("")
                yield (page / "index.html").as_posix(), spec["source"], spec["table"]


FENCES = list(claims_fences())
CLAIMS = [(slug, t["file"]) for slug, s in sources() for t in s["tables"] if t["kind"] == "claims"]


def headings(out):
    return [html.unescape(re.sub(r"<[^>]+>", "", h)) for h in re.findall(r"<th>(.*?)</th>", out)]


def as_printed(cell_html):
    """A rendered cell without what the site adds: the English line and the cut mark."""
    text = re.sub(r'<br><small lang="en">.*?</small>|<abbr class="tl-cut"[^>]*>.*?</abbr>', "",
                  cell_html)
    return html.unescape(re.sub(r"<[^>]+>", "", text))


# ----------------------------------------------------------------------------- headings

@pytest.mark.parametrize("slug,table", CLAIMS, ids=lambda v: str(v))
def test_claims_tables_are_headed_in_a_readers_words(slug, table):
    shown = headings(historical_figures.claims_table(slug, table))
    assert shown[:5] == ["Claim", "Value", "Unit", "Qualifier", "Where in the source"]
    assert not set(shown) & RAW_NAMES and not any("_" in h for h in shown), shown


def test_a_column_without_a_readers_name_gets_a_readable_one():
    claims = {"kind": "claims"}
    assert historical.heading(claims, "claim_location") == "Where in the source"
    assert historical.heading(claims, "value_bytes_per_trx") == "Value bytes per trx"
    assert historical.heading({"kind": "table", "headings_printed": False}, "series") == "Series"
    # a heading the source prints is its text, as printed
    assert historical.heading({"kind": "table"}, "rMB/s") == "rMB/s"


def test_tables_of_text_shown_as_claims_are_headed_in_a_readers_words():
    assert headings(historical_figures.claims_table("zfs-innodb-2009", "series.csv")) == \
        ["Series", "Change"]


# ----------------------------------------------------------------------------- translations

def portuguese_words():
    """Words of the Portuguese post's prose (its listings left out) that no English source
    uses: the words that make a printed text Portuguese."""
    english = set()
    for name in ENGLISH_SOURCES:
        english |= set(WORD.findall((SOURCES / name).read_text(encoding="utf-8")))
    post = (SOURCES / "004_7ee6082956f33d3c.txt").read_text(encoding="utf-8")
    prose = "\n".join(line for line in post.splitlines() if not re.match(r"\s*\d+\.\s", line))
    return {w for w in WORD.findall(prose) if w.islower()} - english


def is_portuguese(text, words):
    return any(w in words for w in WORD.findall(text)) or \
        any(c.isalpha() and not c.isascii() for c in text)


def test_every_printed_portuguese_text_has_an_english_translation():
    if not SOURCES.is_dir():
        pytest.skip(NO_SOURCES)
    words = portuguese_words()
    assert {"segundo", "páginas", "potenciais"} <= words  # the detector finds the known units
    checked = 0
    for slug, source in sources():
        if source["source"]["language"] != "pt":
            continue
        for text in set(printed_texts(slug, source)):
            if is_portuguese(text, words):
                checked += 1
                assert historical.translation(source, text), f"{slug}: no English for {text!r}"
    assert checked >= 4


def test_a_translation_is_english_of_a_text_the_source_prints():
    for slug, source in sources():
        printed = set(printed_texts(slug, source))
        for original, english in source.get("translations", {}).items():
            assert original in printed, f"{slug}: {original!r} is not a printed text it shows"
            assert english.strip() and english != original


def test_a_translated_cell_is_the_original_then_its_english():
    out = historical_figures.claims_table("zfs-innodb-2009", "commit-batching.csv")
    assert '<span lang="pt">segundo</span><br><small lang="en">second</small>' in out
    assert '<span lang="pt">potenciais candidatos a rollback</span><br><small lang="en">' \
           'potential candidates for rollback</small>' in out
    assert '"<span lang="pt">Benchmarking de parâmetros InnoDB</span>" ' \
           '<small lang="en">(Benchmarking InnoDB parameters)</small>' in out  # the citation


# ----------------------------------------------------------------------------- cut labels

def test_the_labels_the_source_cut_off_are_recorded():
    for (slug, table), labels in KNOWN_CUT.items():
        _, meta, _ = historical.historical_table(slug, table)
        assert set(meta.get("truncated", [])) == labels, f"{slug}/{table}"


def test_a_recorded_cut_label_is_a_label_of_its_table_printed_as_a_whole_cell():
    text = (SOURCES / "000_f6fcf96cb4d6eaef.txt").read_text(encoding="utf-8") \
        if SOURCES.is_dir() else None
    for slug, source in sources():
        for t in source["tables"]:
            labels = {r[t["label_column"]] for r in rows_of(slug, t["file"])}
            for cut in t.get("truncated", []):
                assert cut in labels | {t["label_column"]}, f"{slug}/{t['file']}: {cut!r}"
                if text and slug == "zaitsev-2004-os-hardware":  # a cell ends at a tab or a tag
                    assert re.search(re.escape(cut) + r"(\t|</code>\t)", text), cut


def test_a_cut_label_carries_the_mark_and_says_why_in_a_table():
    out = historical_figures.claims_table("zaitsev-2004-os-hardware", "logs-separate-disk.csv")
    mark = '<abbr class="tl-cut" title="cut off in the source">\u2026</abbr>'
    assert f"<td>Logs on dedicated SCSI driv{mark}</td>" in out
    assert f"<td>Shared drive for data and{mark}</td>" in out
    assert "is cut off in the source; it is kept as printed" in out
    heading = historical_figures.claims_table("zaitsev-2004-os-hardware", "direct-io-2-4.csv")
    assert f"<th>Kernel 2.4.21-9.ELhugem{mark}</th>" in heading
    assert "cut off" not in historical_figures.claims_table("zfs-innodb-2009", "setup.csv")


CUT_LOGS = ["Shared drive for data and\u2026", "Logs on dedicated SCSI driv\u2026"]


def test_a_cut_label_carries_the_mark_and_says_why_in_a_chart():
    figure = historical_figures.historical_bars("zaitsev-2004-os-hardware", "logs-separate-disk.csv")
    for trace in figure["data"]:
        assert trace["x"] == CUT_LOGS
        assert all(note.endswith("label cut off in the source") for note in trace["customdata"])
    axis = figure["layout"]["xaxis"]
    assert axis["title"]["text"] == "\u2026 = label cut off in the source"
    assert axis["tickvals"] == CUT_LOGS  # on a phone, on two lines
    assert axis["ticktext"] == ["Shared drive<br>for data and\u2026",
                                "Logs on dedicated<br>SCSI driv\u2026"]
    whole = historical_figures.historical_bars("zaitsev-2004-os-hardware", "raid-levels.csv")
    assert not any("\u2026" in x for t in whole["data"] for x in t["x"])
    # Every chart's axes are titled: the labels' column, the unit with what it counts.
    assert whole["layout"]["xaxis"]["title"]["text"] == "configuration"
    assert whole["layout"]["yaxis"]["title"]["text"] == "TPM: transactions per minute (DBT2)"
    assert whole["data"][0]["customdata"][1] == "ratio 1.14"


# ----------------------------------------------------------------------------- as printed

@pytest.mark.parametrize("slug,table", sorted({(s, t) for _, s, t in FENCES}), ids=lambda v: str(v))
def test_every_shown_cell_is_the_transcription_as_printed(slug, table):
    out = historical_figures.claims_table(slug, table)
    cells = [as_printed(c) for c in re.findall(r"<td>(.*?)</td>", out)]
    assert cells == [v or "" for row in rows_of(slug, table) for v in row.values()]


def test_the_transcriptions_keep_the_printed_text():
    assert rows_of("zfs-innodb-2009", "commit-batching.csv")[2]["unit"] == \
        "potenciais candidatos a rollback"
    assert rows_of("zfs-innodb-2009", "zfs-recordsize.csv")[2]["unit"] == "páginas"
    labels = [r["configuration"] for r in rows_of("zaitsev-2004-os-hardware",
                                                  "logs-separate-disk.csv")]
    assert labels == ["Shared drive for data and", "Logs on dedicated SCSI driv"]
    for path in HIST.glob("*/*.csv"):
        assert historical.CUT_MARK not in path.read_text(encoding="utf-8"), path


# ----------------------------------------------------------------------------- the built site

def test_the_built_pages_show_each_translation_beside_its_original(built):
    shown = 0
    for page, slug, table in FENCES:
        # The line breaks the build adds after a cell's <br> (mkdocs_hooks.apart) aside.
        text = (built / page).read_text().replace("<br>\n", "<br>")
        source, meta, rows = historical.historical_table(slug, table)
        assert "<th>Claim</th>" in text or meta["kind"] == "table", page
        for value in {v for r in rows for v in r.values() if v}:
            english = historical.translation(source, value)
            if english:
                shown += 1
                assert f'<span lang="pt">{html.escape(value)}</span><br><small lang="en">' \
                       f'{html.escape(english)}</small>' in text, (page, value)
    assert shown >= 3


def test_the_built_page_marks_the_labels_the_source_cut_off(built):
    text = (built / "topics" / "logs-separate" / "index.html").read_text()
    figures = [json.loads(html.unescape(f)) for f in re.findall(r'data-figure="([^"]*)"', text)]
    xs = {x for f in figures for t in f["data"] for x in t.get("x", [])}
    assert set(CUT_LOGS) <= xs


def test_charts_under_one_caption_say_what_sets_each_apart():
    titles = {t: historical_figures.historical_bars("zaitsev-2004-os-hardware", t)["layout"]["title"]
              ["text"] for t in ("direct-io-2-4.csv", "direct-io-2-6.csv",
                                 "async-io-buffered.csv", "async-io-direct.csv")}
    assert len(set(titles.values())) == 4
    assert "Kernel 2.6.3 (deadline)" in titles["direct-io-2-6.csv"]
    assert "Kernel 2.4.21-9.ELhugem" in titles["direct-io-2-4.csv"]
    picked = {c: historical_figures.historical_bars("scheduler-scan-2008", "io-schedulers.csv", [c])
              ["layout"]["title"]["text"]
              for c in ("Average runtime (s)", "Average Throughput (MiB/s)")}
    assert all(c in title for c, title in picked.items())
