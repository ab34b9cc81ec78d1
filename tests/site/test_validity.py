"""What a page says of a result's regime: the memory its server was held to (or that it was
not), and each regime check with every point's value, computed from the runs on load."""

import copy
import json

from helpers import DATA
from tuninglab.results import document
from tuninglab.site import result_tables

REDO = json.loads((DATA / "redo-size" / "20261122T000515Z-209a4cf4-quick.json").read_text())
FILLS = {"metric": "checkpoint_fill_pct", "statistic": "max", "at_least": 80.0, "of": "each",
         "why": "the log fills", "unit": "%"}


def test_a_capped_result_says_its_limit_and_an_uncapped_one_why():
    doc = copy.deepcopy(REDO)
    doc["dataset"]["shape"] = "disk-bound"
    doc["memory"] = {"limit_bytes": 192 * 2**20, "capped": True, "controller": "cgroup v1"}
    assert "held to 192 MiB (cgroup v1)" in result_tables.validity(doc)
    doc["memory"] = {"limit_bytes": 192 * 2**20, "capped": False,
                     "reason": "not root (a memory cgroup needs root)"}
    assert "Memory not capped (not root (a memory cgroup needs root))" in \
        result_tables.validity(doc)
    del doc["memory"]
    assert "measured before the memory model" in result_tables.validity(doc)


def test_a_cpu_bound_result_without_checks_says_nothing_of_its_regime():
    assert result_tables.validity(copy.deepcopy(REDO)) == ""


def test_each_check_shows_every_point_s_value_and_whether_it_met_the_bound():
    doc = copy.deepcopy(REDO)
    doc["regime"] = [FILLS]
    document.recompute(doc)
    html = result_tables.validity(doc)
    assert "each point&#x27;s max checkpoint age / redo capacity at least 80 %" in html
    # each value in the condition's unit, then met or missed
    assert html.count(" %: met</td>") >= 1 and html.count(" %: <strong>missed</strong></td>") >= 1
    assert "regime not reached" in html
    verdicts = result_tables.verdicts(doc)
    assert "regime not reached" in verdicts


def test_a_lab_vm_result_under_tcg_leads_with_the_bytes_written_per_transaction(
        tmp_path, monkeypatch):
    from helpers import spec
    from tuninglab.site import fence
    from tuninglab.evidence import result_files
    [path] = (DATA / "raid-level").glob("*-quick.json")
    (tmp_path / "raid-level").mkdir()
    (tmp_path / "raid-level" / path.name).write_text(path.read_text())
    monkeypatch.setattr(result_files, "DATA_DIR", tmp_path)
    out = fence.plotly_fence(spec(kind="results", recipe="raid-level"), "plotly", "", {}, None)
    lead = out.index("The result: bytes written per transaction")
    assert lead < out.index("Functional: shows the mechanism")
    assert out.count('class="tl-chart"') == 2   # the bytes, then the throughput
