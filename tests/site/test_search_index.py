"""The search index answers with the topic pages: the home page's table and the page of every
claim summarise them, and are left out of the index so a term finds the page that explains it."""

import json
import re

from tuninglab.site import mkdocs_hooks


def _entries(built):
    return json.loads((built / "search" / "search_index.json").read_text())["docs"]


def test_the_summary_tables_stay_out_of_the_search_index(built):
    entries = _entries(built)
    summaries = [d for d in entries if d["location"].split("#")[0] in ("", "claims/")]
    assert summaries, "the home page and the claims page are still indexed (their prose)"
    assert not any("O_DIRECT" in d["text"] for d in summaries)
    # The topic page itself still answers the search.
    assert any(d["location"].startswith("topics/direct-io/") and "O_DIRECT" in d["text"]
               for d in entries)


def _words(text: str, separator: str) -> set:
    return {w.lower() for w in re.split(separator, text) if w}


def _page_words(built, page: str) -> set:
    index = json.loads((built / "search" / "search_index.json").read_text())
    separator = index["config"]["separator"]
    return set().union(*(_words(d["text"], separator) for d in index["docs"]
                         if d["location"].startswith(page)))


def test_table_cells_are_words_of_their_own(built):
    """A verdict table's cells are indexed apart: 'btrfs' is a word of the filesystems page,
    not the tail of the cell before it ('too noisy to tellbtrfs')."""
    words = _page_words(built, "topics/filesystems/")
    assert "btrfs" in words
    assert not any(w.startswith("tell") and w != "tell" for w in words)
    assert "bfq" in _page_words(built, "topics/io-schedulers/")


def test_settings_and_numbers_are_words(built):
    """A setting written name=value finds both, each by any part of its name (io_capacity,
    flush_method), an interval finds its numbers."""
    words = _page_words(built, "topics/direct-io/")
    assert {"innodb", "flush", "method", "direct", "fsync"} <= words
    assert {"io", "capacity"} <= _page_words(built, "topics/io-capacity/")
    assert any(re.fullmatch(r"\d+\.\d+", w) for w in words)


def test_apart_keeps_cells_apart_and_nothing_else():
    html = ('<table><caption>c</caption><thead><tr><th>a</th><th>b</th></tr></thead><tbody>'
            '<tr><td>too noisy to tell</td><td>btrfs</td></tr></tbody></table><p><code>x</code>'
            '<span>y</span></p>')
    out = mkdocs_hooks.apart(html)
    assert out.replace("\n", "") == html
    assert "tell</td>\n<td>btrfs" in out
    assert "<code>x</code><span>y</span>" in out


def test_a_folded_sections_text_is_filed_under_its_heading(built):
    """The evidence folds under its headings (folds.py), not with them: the search index still
    files a section's text under the section, not under the page's top."""
    entries = {d["location"]: d["text"] for d in _entries(built)}
    section = entries["topics/purge-threads/#what-was-measured-with-todays-software"]
    assert "history list" in section and len(section) > 1000


def test_the_results_index_stays_out_of_the_search_index(built):
    entries = [d for d in _entries(built) if d["location"].startswith("results/")]
    assert entries and not any("acff7a7b" in d["text"] or ".json" in d["text"] for d in entries)


def test_apart_keeps_a_cells_lines_and_its_fold_apart():
    html = ('<td><strong>too noisy to tell</strong><br><span>1 sitting</span><details>'
            '<summary>older</summary></details></td>')
    out = mkdocs_hooks.apart(html)
    assert out.replace("\n", "") == html
    assert "<br>\n<span>1 sitting</span>\n<details>" in out
