"""The claims map (data/claims/) and the verdicts computed from it: every source result is
claimed or explained, a claim's source ratio is read from the transcription, bad entries get an
error naming the file, the entry and the key, and each verdict follows from today's interval."""

import json
import logging
import re

import markdown
import pytest

from helpers import DATA, write_claims_map as write_map
from tuninglab.errors import UserError
from tuninglab.evidence import claims_map
from tuninglab.site import verdict_tables

DIRECT_IO = """
[[claim]]
id = "d26"
table = "direct-io-2-6.csv"
row = "Direct IO"
column = "LARGE"
recipe = "direct-io"
variant = "tpcc"
point = "O_DIRECT"
headline = true
"""


DOUBLEWRITE = """[[claim]]
id = "dw"
table = "doublewrite.csv"
row = "gain of Serie H (doublewrite off) over Serie A"
recipe = "doublewrite"
point = "OFF"
"""


def test_the_committed_map_covers_every_source_result():
    assert claims_map.problems() == []
    claims, untestable = claims_map.load_map()
    assert claims and untestable
    assert all(u.reason.strip() for u in untestable)


def test_a_topic_page_has_one_headline_claim_at_most_and_every_page_an_entry():
    from tuninglab.evidence.topic_pages import topic_pages
    claims, untestable = claims_map.load_map()
    for page in topic_pages():
        heads = [c.id for c in claims if c.topic == page["slug"] and c.headline]
        assert len(heads) <= 1, (page["slug"], heads)
        assert any(x.topic == page["slug"] for x in claims + untestable), page["slug"]


def test_a_table_claim_reads_its_ratio_from_the_transcription(tmp_path):
    claims, _ = claims_map.load_map(write_map(tmp_path, DIRECT_IO))
    c = claims[0]
    assert c.source_ratio == pytest.approx(2024 / 1830)
    assert (c.source_baseline, c.column, c.topic) == ("Buffered IO", "LARGE", "direct-io")


@pytest.mark.parametrize("reads, expected", [("gain-percent", 1.035), ("times", 3.5),
                                             ("inverse-times", 1 / 3.5)])
def test_a_prose_claim_reads_as_its_entry_says(tmp_path, reads, expected):
    text = DOUBLEWRITE + f'reads = "{reads}"\n'
    claims, _ = claims_map.load_map(write_map(tmp_path, text, "zfs-innodb-2009"))
    assert claims[0].source_ratio == pytest.approx(expected)  # printed "3,5": a decimal comma


def test_a_lower_is_better_column_is_inverted(tmp_path):
    text = """[[claim]]
id = "scan"
table = "io-schedulers.csv"
row = "Deadline"
column = "Average runtime (s)"
source_baseline = "No-op"
recipe = "io-schedulers"
variant = "scan"
point = "mq-deadline"
"""
    claims, _ = claims_map.load_map(write_map(tmp_path, text, "scheduler-scan-2008"))
    assert claims[0].source_ratio == pytest.approx(471 / 492)


@pytest.mark.parametrize("change, message", [
    (('row = "Direct IO"', 'row = "Direct"'), "row 'Direct' is not a row of direct-io-2-6.csv"),
    (('column = "LARGE"', 'column = "HUGE"'), "column 'HUGE' is not a value column"),
    (('point = "O_DIRECT"', 'point = "fsync"'), "other than its baseline 'fsync'"),
    (('recipe = "direct-io"', 'recipe = "no-such"'), "no-such"),
    (('headline = true', 'headlne = true'), "unknown key 'headlne'"),
    (('id = "d26"\n', ''), "missing key 'id'"),
    (('variant = "tpcc"', 'metric = "bogus"'), "metric 'bogus'"),
    (('variant = "tpcc"', 'metric = "tps_draining"'), "direct-io (main) holds none"),
])
def test_a_bad_claim_names_its_file_entry_and_key(tmp_path, change, message):
    with pytest.raises(UserError) as exc:
        claims_map.load_map(write_map(tmp_path, DIRECT_IO.replace(*change)))
    assert "zaitsev-2004-os-hardware.toml [[claim]] #1" in str(exc.value)
    assert message in str(exc.value)


def test_a_prose_claim_needs_its_reading(tmp_path):
    with pytest.raises(UserError, match="reads must be one of"):
        claims_map.load_map(write_map(tmp_path, DOUBLEWRITE, "zfs-innodb-2009"))


def test_an_id_is_given_once(tmp_path):
    with pytest.raises(UserError) as exc:
        claims_map.load_map(write_map(tmp_path, DIRECT_IO + DIRECT_IO))
    assert str(exc.value) == "zaitsev-2004-os-hardware.toml [[claim]] #2: id 'd26' is taken by " \
                             "zaitsev-2004-os-hardware.toml [[claim]] #1; expected each claim " \
                             "its own id"


def test_untestable_names_real_rows(tmp_path):
    text = '[[untestable]]\ntable = "swap.csv"\nrows = ["Swap on"]\nreason = "x"\n'
    with pytest.raises(UserError, match="rows: 'Swap on' is not a result row of swap.csv"):
        claims_map.load_map(write_map(tmp_path, text))


def test_problems_list_each_result_left_out(tmp_path):
    text = DIRECT_IO + '[[untestable]]\ntable = "direct-io-2-6.csv"\ncolumns = ["SMALL"]\n' \
        'reason = "no CPU-bound shape"\n'
    problems = claims_map.problems(write_map(tmp_path, text))
    assert not any("direct-io-2-6.csv" in p for p in problems)
    assert any("direct-io-2-4.csv 'Direct IO', column 'LARGE' is neither" in p for p in problems)
    assert any("purge-thread.csv" in p for p in problems)  # every source, mapped or not


# --- verdicts: tests/evidence/test_claim_verdicts.py -------------------------------------------

def test_the_inline_forms_quote_a_claim_and_an_unknown_one_fails_the_build(caplog):
    c = next(c for c in claims_map.load_map()[0] if c.headline)
    md = markdown.Markdown(extensions=["tuninglab.site.verdict_tables"])
    out = md.convert(f"Then {{{{ source {c.id} }}}}, today {{{{ verdict {c.id} }}}}.")
    assert f"x{c.source_ratio:.2f}" in out and "tl-inline-verdict" in out
    with caplog.at_level(logging.WARNING, logger="mkdocs.tuninglab"):
        md.convert("{{ today no-such-claim }}")
    assert "no claim 'no-such-claim'" in caplog.text


def test_words_several_rows_share_are_said_once_under_the_table():
    from tuninglab.site.table_notes import Notes as _Notes
    notes = _Notes("t")
    body = "".join(f"<tr>{notes.ref(words)}</tr>" for words in
                   [("lab VM", "host A"), ("needs a RAID controller",), ("lab VM",)])
    rows, listed = notes.finish(body)
    assert rows.count('href="#t-note-1"') == 2 and "needs a RAID controller</span>" in rows
    assert "host A</span>" in rows and "\x00" not in rows
    assert listed == '<ol class="tl-notes"><li id="t-note-1">lab VM</li></ol>'
    assert _Notes("u").finish("<tr></tr>") == ("<tr></tr>", "")


def test_the_raid_page_says_its_lab_vm_reason_once():
    from tuninglab.site.verdict_tables import _topic_table
    table = re.sub(r' title="[^"]*"', "", _topic_table("raid"))  # a note's hover text
    assert table.count("emulated CPU (TCG)") == 1 and table.count("#verdicts-raid-note-1") > 1


def test_a_contributed_verdict_says_so_folded_or_first():
    """A contributor's result is never taken for the project's own: the note beside its
    verdict says "contributed", in the folded list of other hosts as well as first."""
    doc = json.loads(next(DATA.glob("doublewrite/*.json")).read_text())
    assert "contributed" not in verdict_tables._host_note(doc, True)
    doc["contribution"] = {"submitted": "2026-11-24T00:00:00+00:00", "description": "a box"}
    assert verdict_tables._host_note(doc, True).startswith("contributed: a box, ")
    assert verdict_tables._host_note(doc, False).split("; ")[0] == "contributed"
