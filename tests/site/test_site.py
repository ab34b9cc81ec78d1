"""The guide: strict build, and the fences that put data on the page."""

import html
import json
import logging
import re

import pytest
import yaml

from helpers import DATA, REPO, TOPICS, result_paths
from tuninglab.evidence import result_files
from tuninglab.site import charts, fence
from tuninglab.results.result import Result

# Committed results, by name: never one a user's own run added to data/.
DOUBLEWRITE = DATA / "doublewrite" / "20261122T003613Z-209a4cf4-full.json"
REDO_SIZE = DATA / "redo-size" / "20261122T000515Z-209a4cf4-quick.json"


@pytest.mark.integration  # builds the site (mkdocs)
def test_strict_build_writes_every_topic_page(built):
    for topic in TOPICS:
        assert (built / "topics" / topic / "index.html").is_file()
    assert (built / "assets" / "vendor" / "plotly.min.js").stat().st_size > 1_000_000


def front_matter(topic):
    text = (REPO / "docs" / "topics" / f"{topic}.md").read_text()
    return yaml.safe_load(text.split("---\n", 2)[1])


@pytest.mark.parametrize("topic", TOPICS)
@pytest.mark.integration
def test_topic_pages_carry_evidence_and_say_how_to_reproduce(built, topic):
    page = (built / "topics" / topic / "index.html").read_text()
    charts = re.findall(r'class="tl-chart"[^>]*data-traces="(\d+)"', page)
    assert all(int(n) >= 1 for n in charts)
    assert charts or "tl-claims" in page, "neither a chart nor a table from a source"
    assert "As printed in" in page  # every page cites its historical source
    if front_matter(topic).get("recipe"):
        assert "tl-reproduce" in page and "invoke recipe" in page
    else:
        assert "No recipe yet" in page


@pytest.mark.integration
def test_no_page_loads_anything_from_another_origin(built):
    for page in built.rglob("*.html"):
        text = page.read_text()
        assert not re.search(r'<(script|img)[^>]+src="(https?:)?//', text), page
        assert not re.search(r'<link[^>]+rel="(stylesheet|preload|preconnect|icon|modulepreload)"'
                             r'[^>]+href="(https?:)?//', text), page
        assert "fonts.googleapis" not in text and "fonts.gstatic" not in text


@pytest.mark.integration
def test_home_page_lists_every_topic_with_its_effects(built):
    page = (built / "index.html").read_text()
    for topic in TOPICS:
        assert f'href="topics/{topic}/"' in page
    assert "no detectable difference" not in page  # issue 17: read as "no difference"
    # issue 37: each topic's advice judged by the pooled comparison it rests on, a cell per
    # server; issue 78: no tabs of per-server advice under it (the topic pages carry that)
    table = page[page.index('class="tl-glance"'):]
    table = table[:table.index("</table>")]
    assert "Does the advice hold?" in table and "tabbed-set" not in page
    kinds = re.findall(r'class="tl-v tl-v-([a-z-]+)"', table)
    assert kinds and set(kinds) <= {"holds", "does-not-hold", "cannot-tell-here"}


@pytest.mark.integration
def test_every_topic_page_opens_with_its_verdict_table(built):
    for topic in TOPICS:
        page = (built / "topics" / topic / "index.html").read_text()
        assert 'class="tl-claim-verdicts' in page, topic
        assert page.index("tl-claim-verdicts") < page.index('<h2 id="what-the-sources'), topic
    claims = (built / "claims" / "index.html").read_text()
    assert claims.count('class="tl-claim-verdicts') == 5  # one table per source


@pytest.mark.integration
def test_results_page_lists_every_result_file_linked_to_its_topic(built, committed_data):
    page = (built / "results" / "index.html").read_text()
    files = result_paths(committed_data)  # what the site was built from
    rows = re.findall(r"<tr><td>(.*?)</td>", page.split('class="tl-results-index"')[1])
    assert len(rows) == len(files) and f"{len(files)} result files" in page
    for topic in set(re.findall(r'href="\.\./topics/([a-z0-9-]+)/"', page)):
        assert (built / "topics" / topic / "index.html").is_file()
    assert 'href="../topics/raid/"><code>raid-chunk</code>' in page
    assert 'href="results/"' in (built / "index.html").read_text()  # in the nav


@pytest.mark.integration
def test_throughput_charts_carry_the_normalise_toggle(built):
    page = (built / "topics" / "doublewrite" / "index.html").read_text()
    # tps (the main experiment's and the modes variant's) and the TPC-C-like variant's
    # new-order TPM: not bytes per transaction, not series
    assert page.count('class="tl-chart"') == 8 and page.count("tl-normalise") == 3


@pytest.mark.integration
def test_notebook_page_was_executed_on_the_real_data(built):
    page = (built / "notebooks" / "noise" / "index.html").read_text()
    assert re.search(r"\d+ result files", page)
    assert "repeats CV" in page


def spec(**kw):
    return "\n".join(f"{k} = {json.dumps(v)}" for k, v in kw.items())


def test_bad_fence_is_a_warning_that_fails_a_strict_build(caplog):
    with caplog.at_level(logging.WARNING, logger="mkdocs.tuninglab"):
        out = fence.plotly_fence(spec(kind="pie", recipe="doublewrite"), "plotly", "", {}, None)
    assert "admonition failure" in out
    assert ("kind must be results, series, io, trends, tpcc, lab, historical, claims, kernels or "
            "defaults") in caplog.text


def test_unknown_recipe_in_a_fence_is_an_error(caplog):
    with caplog.at_level(logging.WARNING, logger="mkdocs.tuninglab"):
        fence.plotly_fence(spec(kind="results", recipe="no-such-recipe"), "plotly", "", {}, None)
    assert "no recipe 'no-such-recipe'" in caplog.text


def test_recipe_without_data_says_so_plainly(monkeypatch):
    monkeypatch.setattr(result_files, "results_for", lambda name, variant="": [])
    out = fence.plotly_fence(spec(kind="results", recipe="doublewrite"), "plotly", "", {}, None)
    assert "No results yet" in out and "tl-chart" not in out


def test_text_from_data_files_cannot_escape_the_json(monkeypatch):
    doc = json.loads(DOUBLEWRITE.read_text())
    doc["host"]["cpu_model"] = "</script><script>alert(1)</script>"
    doc["points"][0]["value"] = "<img src=x onerror=alert(1)>"
    monkeypatch.setattr(result_files, "results_for", lambda name, variant="": [Result(doc)])
    out = fence.plotly_fence(spec(kind="results", recipe="doublewrite"), "plotly", "", {}, None)
    assert "<script>alert" not in out and "<img" not in out
    payload = re.search(r'data-figure="([^"]*)"', out).group(1)
    figure = json.loads(html.unescape(payload))
    assert figure["data"][0]["x"][0] == "&lt;img src=x onerror=alert(1)&gt;"


def _series_doc(history_per_point: dict) -> dict:
    """A result whose points' history lists follow the given per-second values."""
    doc = json.loads(REDO_SIZE.read_text())
    for point, history in zip(doc["points"], history_per_point.values()):
        point["value"] = next(k for k, v in history_per_point.items() if v is history)
        for run in point["runs"]:
            run["series"]["history_list_length"] = history + [None] * (
                len(run["series"]["t"]) - len(history))
    return doc


def test_trends_table_reads_the_series_not_the_stored_verdict(monkeypatch):
    n = 15
    doc = _series_doc({"steady": [500 + (t % 3) for t in range(n)],
                       "<b>behind</b>": [500 + 40 * t for t in range(n)]})
    doc["points"][0]["trends"] = {"runs": 3, "history_growing_runs": 3}   # a false claim
    monkeypatch.setattr(result_files, "results_for", lambda name, variant="": [Result(doc)])
    out = fence.plotly_fence(spec(kind="trends", recipe="redo-size"), "plotly", "", {}, None)
    rows = re.findall(r"<tr><td[^>]*>(.*?)</td><td[^>]*>(.*?)</td>", out)
    assert rows[0][0] == "steady" and "growing in 0 of 3 runs" in rows[0][1]
    assert rows[1][0] == "&lt;b&gt;behind&lt;/b&gt;" and "+40.0/s, growing in 3 of 3" in rows[1][1]
    assert "1,060 at the end" in rows[1][1]


def test_checkpoint_fill_is_charted_from_age_and_capacity():
    doc = json.loads(REDO_SIZE.read_text())
    figure = charts.series_lines(doc, "checkpoint_fill_pct")
    run = doc["points"][0]["runs"][0]["series"]
    age, cap = run["checkpoint_age_bytes"][0], run["checkpoint_max_age_bytes"][0]
    assert figure["data"][0]["y"][0] == round(100 * age / cap, 1)
    assert max(v for trace in figure["data"] for v in trace["y"] if v is not None) <= 101
