"""Safety everywhere (issue 78, item 3): no row, cell, list item, paragraph, chart hover or
search entry of the built guide shows a setting that trades durability or safety as faster
without saying, in the same element, what it risks (evidence/risks.py)."""

import html
import json
import re
import shutil

import pytest

from tuninglab.evidence import risks

pytestmark = pytest.mark.integration

# How the pages name each risky setting's value (a row's "innodb_doublewrite OFF against ON",
# a chart's bar "nobarrier", a claim's "innodb_flush_log_at_trx_commit=2").
NAMED = {
    ("innodb_flush_log_at_trx_commit", "0"): r"flush_log_at_trx_commit\W{0,3}0\b",
    ("innodb_flush_log_at_trx_commit", "2"): r"flush_log_at_trx_commit\W{0,3}2\b",
    ("innodb_doublewrite", "OFF"): r"innodb_doublewrite\W{0,3}(OFF|0)\b",
    ("innodb_doublewrite", "DETECT_ONLY"): r"innodb_doublewrite\W{0,3}DETECT_ONLY",
    ("storage.mount_options", "nobarrier"): r"\bnobarrier\b",
    ("storage.mount_options", "data=writeback,noatime"): r"data=writeback",
    ("lab.disk_cache", "unsafe"): r"disk_cache\W{0,3}unsafe|cache=unsafe",
    ("raid.level", "0"): r"\bRAID ?0\b|raid\.level\W{0,3}0\b",
    ("lab.mitigations", "off"): r"mitigations\W{0,3}off",
    ("lab.pti", "off"): r"\bpti\W{0,3}off",
}
GAIN = re.compile(r"\bfaster\b")
ELEMENT = re.compile(r"<(tr|li|p|figcaption|caption)\b[^>]*>(.*?)</\1>", re.S)
SAID = tuple(set(risks.KINDS.values())) + ("risks",)


def test_every_risky_setting_is_named():
    assert set(NAMED) == set(risks.RISKS)


def _text(fragment: str) -> str:
    return html.unescape(" ".join(re.sub(r"<[^>]+>", " ", fragment).split()))


def bare_gains(text: str) -> list[str]:
    """The risky settings a text shows as faster without saying what they risk."""
    if not GAIN.search(text) or any(word in text for word in SAID):
        return []
    return [f"{s} {v}" for (s, v), named in NAMED.items() if re.search(named, text)]


def unsafe(site) -> list[str]:
    out = []
    for path in sorted(site.rglob("*.html")):
        page = str(path.relative_to(site))
        source = path.read_text()
        for _, inner in ELEMENT.findall(source):
            if "<tr" in inner or "<li" in inner:   # the innermost element says it
                continue
            text = _text(inner)
            out += [f"{page}: {what} shown as faster: {text[:160]!r}" for what in
                    bare_gains(text)]
        for hover in re.findall(r'"customdata": (\[[^\]]*\])', source):
            for bar in json.loads(hover):
                if isinstance(bar, str):
                    out += [f"{page}: a chart's hover: {what}: {bar[:160]!r}"
                            for what in bare_gains(_text(bar))]
    index = site / "search" / "search_index.json"
    if index.exists():
        for doc in json.loads(index.read_text())["docs"]:
            for row in re.split(r"(?<=[.;])\s|\n", _text(doc.get("text", ""))):
                out += [f"search: {doc['location']}: {what}: {row[:160]!r}"
                        for what in bare_gains(row)]
    return out


def test_no_durability_trading_setting_reads_as_a_plain_gain(built):
    assert unsafe(built) == []


def test_a_planted_bare_gain_is_found(built, tmp_path):
    """The mount-options page with the risk taken out of its rows."""
    site = tmp_path / "site"
    page = built / "topics" / "mount-options" / "index.html"
    (site / "topics").mkdir(parents=True)
    text = page.read_text()
    planted = re.sub(r'<span class="tl-risk">[^<]*</span>', "", text)
    assert planted != text, "the mount-options page says no risk in a span"
    shutil.copy(page, site / "topics" / "kept.html")
    (site / "topics" / "planted.html").write_text(planted)
    found = unsafe(site)
    assert found and all("planted.html" in line for line in found), found
    assert any("nobarrier" in line for line in found)
