"""What a result file stores never reaches a page on trust (issue 16): the statistics are
recomputed from its runs, a file dated in the future is never charted, a contribution never
replaces the project's result of the same host, and format characters never act on a page."""

import html
import json
import re

import pytest

from helpers import HOST_A, HOST_B, REAL, result, spec, write_result
from tuninglab.evidence import result_files
from tuninglab.results import document
from tuninglab.site import builder, charts, describe, fence, hostviews, result_listings, result_tables
from tuninglab.visible import plain

PROJECT = REAL["host"]["id"]
CONTRIBUTED = {"description": "NVMe box", "submitted": "2026-11-22T08:00:00Z",
               "tool": "data.submit"}


def figure_of(out: str) -> dict:
    return json.loads(html.unescape(re.search(r'data-figure="([^"]*)"', out).group(1)))


def forged(doc: dict) -> dict:
    """The issue's file: a median of -5 and one of 99999, 62 times "faster"."""
    on, off = doc["points"]
    on["stats"]["tps"]["median"] = -5
    off["stats"]["tps"]["median"] = 99999
    off["stats"]["ratio"].update(ratio=62, ci_low=60, ci_high=64, verdict="faster")
    return doc


@pytest.fixture
def data(tmp_path, monkeypatch):
    monkeypatch.setattr(result_files, "DATA_DIR", tmp_path)
    return tmp_path


# --- statistics ---------------------------------------------------------------------------------

def test_the_loader_recomputes_stored_statistics_from_the_runs(data):
    write_result(data, "doublewrite", forged(result(HOST_B, contribution=CONTRIBUTED)))
    [r] = result_files.results_for("doublewrite", data_dir=data)
    assert [p.stats for p in r.points] == [c["stats"] for c in document.point_stats(REAL)]
    assert r.methods == document.methods()


def test_a_forged_file_draws_what_its_runs_measured(data):
    write_result(data, "doublewrite", forged(result(HOST_B, contribution=CONTRIBUTED)))
    out = fence.plotly_fence(spec(kind="results", recipe="doublewrite"), "plotly", "", {}, None)
    [trace] = figure_of(out)["data"]
    medians = [p["stats"]["tps"]["median"] for p in REAL["points"]]
    assert trace["y"] == medians and -5 not in trace["y"] and 99999 not in trace["y"]
    assert "62" not in trace["customdata"][1] and "faster" not in trace["customdata"][1]
    assert "99,999" not in out and "ratio 62" not in out


def test_a_file_whose_runs_give_no_statistics_is_listed_not_charted(data):
    broken = result(HOST_B)
    broken["workload"]["metric"] = "mib_per_s"  # its runs hold throughput, not a scan rate
    write_result(data, "doublewrite", broken)
    assert result_files.results_for("doublewrite", data_dir=data) == []
    [row] = result_listings.results_index(data)
    assert row["invalid"] == "its statistics cannot be computed from its runs ('mib_per_s')"


# --- the future, and the project's hosts --------------------------------------------------------

def test_a_future_dated_file_with_the_projects_host_replaces_nothing(data, capsys):
    write_result(data, "doublewrite", result(PROJECT))
    write_result(data, "doublewrite", forged(result(PROJECT, "2099-01-01T00:00:00+00:00")))
    charted = result_files.results_for("doublewrite", data_dir=data)
    assert [r.started for r in charted] == [REAL["started"]]
    assert hostviews.shown_by_default(charted).started == REAL["started"]
    assert result_files.future_dated(data) == [
        "doublewrite/2099-01-01T000000-" + PROJECT[:8] + ".json: dated in the future "
        "(started 2099-01-01T00:00:00+00:00)"]
    rows = result_listings.results_index(data)
    assert [r["invalid"] for r in rows] == ["dated in the future (started "
                                            "2099-01-01T00:00:00+00:00)", ""]
    out = fence.results_index_fence("", "results-index", "", {}, None)
    assert "Invalid, not charted: dated in the future (started 2099-01-01T00:00:00+00:00)" in out


@pytest.mark.parametrize("field", ["finished", "submitted"])
def test_a_future_end_or_submission_is_the_future_too(field):
    doc = result(HOST_B, contribution=dict(CONTRIBUTED))
    (doc["contribution"] if field == "submitted" else doc)[field] = "2099-01-01T00:00:00Z"
    assert result_files.future(doc) == f"dated in the future ({field} 2099-01-01T00:00:00Z)"
    assert result_files.future(result(HOST_B)) is None


def test_the_build_warns_about_future_dated_files(tmp_path, monkeypatch, capsys):
    write_result(tmp_path, "doublewrite", result(HOST_A, "2099-01-01T00:00:00+00:00"))
    monkeypatch.setattr(builder.subprocess, "run",
                        lambda *a, **kw: type("Done", (), {"returncode": 0})())
    builder.build(tmp_path / "site", data_dir=tmp_path)
    assert capsys.readouterr().err == (
        "warning: doublewrite/2099-01-01T000000-aaaaaaaa.json: dated in the future (started "
        "2099-01-01T00:00:00+00:00): not charted; listed as such on the Results page\n")


def test_a_contribution_with_the_projects_host_id_is_a_host_of_its_own():
    own = result(PROJECT, "2026-11-21T00:00:00+00:00")
    posing = forged(result(PROJECT, "2026-11-22T10:00:00+00:00", contribution=CONTRIBUTED))
    hosts = result_files.latest_per_host([own, posing])
    assert hosts == [own, posing]
    assert hostviews.shown_by_default([own, posing]) is own
    assert hostviews.key(own) != hostviews.key(posing)
    index = hostviews.index([own, posing])
    assert index["default"] == hostviews.key(own) and len(index["hosts"]) == 2


def test_alike_hosts_of_one_id_are_told_apart_by_who_ran_them():
    own = result(PROJECT, "2026-11-21T00:00:00+00:00")
    twin = result(PROJECT, "2026-11-22T10:00:00+00:00",
                  contribution={**CONTRIBUTED, "description": ""})
    names = [t["name"] for t in charts.results_bars([own, twin], "tps")["data"]]
    name = "AMD EPYC, 2 cores, 24 GiB, VM, virtio disk, mariadb 10.11.19"
    assert names == [name, f"contributed: {name}"]


# --- format characters --------------------------------------------------------------------------

BIDI = "\u202e\u2066\u200b"


def test_format_characters_are_shown_never_rendered(data):
    doc = result(HOST_B, contribution={**CONTRIBUTED, "description": f"fast{BIDI}box"})
    doc["host"]["cpu_model"] = f"AMD{BIDI}EPYC"
    doc["points"][0]["value"] = f"ON{BIDI}"
    write_result(data, "doublewrite", doc)
    shown = "[U+202E][U+2066][U+200B]"
    [row] = result_listings.results_index(data)
    assert row["description"] == f"fast{shown}box" and row["host"].startswith(f"AMD{shown}EPYC")
    pages = [fence.results_index_fence("", "results-index", "", {}, None),
             fence.plotly_fence(spec(kind="results", recipe="doublewrite"), "plotly", "", {},
                                None)]
    docs = result_files.results_for("doublewrite", data_dir=data)
    pages += [json.dumps(hostviews.views(docs[0])), json.dumps(hostviews.index(docs))]
    for page in pages:
        assert not any(c in html.unescape(page) for c in BIDI)
    assert shown in html.unescape(pages[0]) and shown in html.unescape(pages[1])


def test_esc_and_plain_show_format_characters():
    assert plain(f"a{BIDI}b\u00e9") == "a[U+202E][U+2066][U+200B]b\u00e9"
    assert describe.esc(f"<{BIDI[0]}>") == "&lt;[U+202E]&gt;"
    assert plain("\U000e0001") == "[U+E0001]"  # a tag, beyond the first plane


def test_a_file_the_site_cannot_read_is_named(data):
    """data.check refuses it; a build that meets it anyway stops naming the file."""
    path = data / "doublewrite" / "20261122T000000Z-c0ffee00-quick.json"
    path.parent.mkdir()
    path.write_text('{"plan": {"seed": ' + "9" * 5000 + "}}")
    with pytest.raises(ValueError, match=rf"{path}: not a result file the site can read .*"
                                         r"`invoke data.check --path"):
        result_files.results_for("doublewrite", data_dir=data)


# --- verdicts -----------------------------------------------------------------------------------

def test_a_verdict_names_the_margin_its_file_records_and_the_interval_that_decided_it(data):
    """The site recomputes each verdict with the margin the file records: an equivalence says
    how wide it is ("within ±50%", which data.check refuses unless the recipe names it) and
    shows the 90% interval beside the 95% one."""
    wide = result(HOST_B, contribution=CONTRIBUTED)
    wide["plan"]["smallest_effect_pct"] = 50
    write_result(data, "doublewrite", wide)
    [r] = result_files.results_for("doublewrite", data_dir=data)
    ratio = r.points[1].stats["ratio"]
    assert ratio["verdict_kind"] == "equivalent"
    text = describe.verdict_text(r.points[1])
    assert text == (f"ratio {ratio['ratio']:.2f} [{ratio['ci_low']:.2f}, {ratio['ci_high']:.2f}]"
                    f": equivalent within ±50% (90% CI [{ratio['tost_low']:.3f}, "
                    f"{ratio['tost_high']:.3f}])")
    assert html.escape(text) in result_tables.verdicts(r)


def test_a_noisy_verdict_reads_too_noisy_to_tell():
    point = REAL["points"][1]
    assert point["stats"]["ratio"]["verdict_kind"] == "too noisy to tell"
    assert describe.verdict_text(point).endswith("]: too noisy to tell")


@pytest.mark.parametrize("words", ["\u0410\u041cD \u0415\u0420Y\u0421, 2 cores (project)",
                                   "Intel Xeon, 2 cores, 24 GiB, mariadb 10.11.19"])
def test_a_contribution_named_like_the_projects_host_is_still_marked(words):
    """Issue 57: a description in look-alike (Cyrillic) letters, or a fleet host's name, read
    as the project's own series: a contribution's name now always says so."""
    doc = result(PROJECT, "2026-11-22T10:00:00+00:00",
                 contribution={**CONTRIBUTED, "description": words})
    assert describe.host_name(doc) == f"contributed: {words}"
    doc = result(PROJECT, "2026-11-22T10:00:00+00:00", contribution={**CONTRIBUTED})
    doc["fleet"] = {"host": "project-reference-host"}
    assert describe.host_name(doc).startswith("contributed: project-reference-host: ")
