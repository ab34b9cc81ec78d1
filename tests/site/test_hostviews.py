"""One host at a time: which result a page shows first, the per-host files the build writes
beside the site, and the picker the fences put on a page with several hosts."""

import json
import re

from helpers import HOST_A, HOST_B, result, spec, write_result
from tuninglab.evidence import result_files
from tuninglab.site import charts, fence, hostviews
from tuninglab.results.result import Result

CONTRIBUTED = {"description": "host B", "submitted": "2026-11-22T00:00:00Z",
               "tool": "data.submit"}
HOST_C = "cccccccccccccccc"


def test_the_projects_latest_run_is_shown_before_a_newer_contribution():
    own_old = result(HOST_A, "2026-11-20T00:00:00+00:00")
    own = result(HOST_A, "2026-11-21T00:00:00+00:00")
    contributed = result(HOST_B, "2026-11-22T00:00:00+00:00", contribution=CONTRIBUTED)
    assert hostviews.shown_by_default([own_old, contributed, own]) is own
    # Only contributions: the newest host's latest.
    other = result(HOST_C, "2026-11-21T00:00:00+00:00", contribution=CONTRIBUTED)
    assert hostviews.shown_by_default([contributed, other]) is contributed


def test_a_host_whose_latest_result_is_contributed_is_not_the_default():
    own = result(HOST_A, "2026-11-20T00:00:00+00:00")
    a_contributes = result(HOST_A, "2026-11-22T00:00:00+00:00", contribution=CONTRIBUTED)
    c = result(HOST_C, "2026-11-21T00:00:00+00:00")
    assert hostviews.shown_by_default([own, a_contributes, c]) is c


def test_a_newer_duet_is_a_host_to_pick_not_the_default():
    # each of a duet's servers had half the machine: the whole-machine result stays the reference
    own = result(HOST_A, "2026-11-20T00:00:00+00:00")
    duet = result(HOST_A, "2026-11-22T00:00:00+00:00")
    duet["plan"]["design"] = "duet"
    assert hostviews.shown_by_default([own, duet]) is own
    assert hostviews.shown_by_default([duet]) is duet


def test_views_hold_every_measured_series_and_the_tables():
    doc = result()
    views = hostviews.views(doc)
    assert {"series:tps", "series:checkpoint_fill_pct", "series:history_list_length",
            "trends", "verdicts"} <= set(views)
    assert "series:resync_pct" not in views  # not measured here
    assert [t["name"] for t in views["io"]["figure"]["data"]] == [
        "writes at the members (sum)", "reads at the members (sum)"]  # no array: no md
    assert views["series:tps"]["figure"] == charts.series_lines(doc, "tps")
    assert "<table>" in views["verdicts"]["html"]


def test_the_build_writes_an_index_and_one_file_per_host_and_variant(tmp_path):
    data, site = tmp_path / "data", tmp_path / "site"
    write_result(data, "doublewrite", result(HOST_A, "2026-11-20T00:00:00+00:00"))
    write_result(data, "doublewrite", result(HOST_A, "2026-11-21T00:00:00+00:00"))
    write_result(data, "doublewrite", result(HOST_B, "2026-11-22T00:00:00+00:00",
                                      contribution=CONTRIBUTED))
    write_result(data, "doublewrite", result(HOST_C, "2026-11-22T01:00:00+00:00", variant="tpcc"))
    counts = hostviews.write(site, data)
    main = site / "assets" / "hosts" / "doublewrite" / "_main"
    index = json.loads((main / "index.json").read_text())
    assert [h["name"] for h in index["hosts"]][1] == "contributed: host B"
    assert [h["contributed"] for h in index["hosts"]] == [False, True]
    assert index["default"] == index["hosts"][0]["key"]
    files = sorted(p.name for p in main.glob("*.json"))
    assert len(files) == 3 and all(re.fullmatch(r"[0-9a-f]{16}\.json|index\.json", f)
                                   for f in files)
    host_a = json.loads((main / f"{index['default']}.json").read_text())
    assert host_a["views"]["series:tps"]["figure"]["data"]
    assert (site / "assets" / "hosts" / "doublewrite" / "tpcc" / "index.json").is_file()
    assert counts["hosts"] == 3 and counts["largest_bytes"] > 1000


def _fence(kind, monkeypatch, docs, **kw):
    monkeypatch.setattr(result_files, "results_for",
                        lambda name, variant="": [Result(d) for d in docs])
    return fence.plotly_fence(spec(kind=kind, recipe="doublewrite", **kw), "plotly", "", {},
                              None)


def test_one_host_gets_no_picker(monkeypatch):
    out = _fence("series", monkeypatch, [result(HOST_A)], metric="tps")
    assert "tl-hostview" not in out and 'class="tl-chart"' in out


def test_several_hosts_get_a_picker_naming_the_shown_host(monkeypatch):
    own = result(HOST_A, "2026-11-20T00:00:00+00:00")
    docs = [own, result(HOST_B, "2026-11-22T00:00:00+00:00", contribution=CONTRIBUTED)]
    out = _fence("series", monkeypatch, docs, metric="tps")
    assert 'data-group="assets/hosts/doublewrite/_main" data-view="series:tps"' in out
    assert f'<option value="{hostviews.key(own)}" selected>' in out
    assert "2 hosts" in out
    for kind, view in (("trends", "trends"), ("results", "verdicts")):
        assert f'data-view="{view}"' in _fence(kind, monkeypatch, docs)
    # A results chart of another metric has no verdicts, so no picker.
    assert "tl-hostview" not in _fence("results", monkeypatch, docs,
                                       metric="write_bytes_per_trx")
