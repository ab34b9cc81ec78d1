"""The costs per transaction on a page (issue 17, item 4): beside a result's throughput verdicts,
each cost's median with its interval and its ratio to the baseline with the verdict, recomputed
from the runs like every statistic a page shows; a result without costs looks as before."""

import html
import re

import pytest

from helpers import HOST_B, REAL, SCRIPT, result, spec, with_costs, write_result
from tuninglab.evidence import result_files
from tuninglab.results import stats
from tuninglab.results.metrics import COST, METRICS
from tuninglab.results.result import Result
from tuninglab.site import fence, hostviews, result_tables

ON, OFF = (p["id"] for p in REAL["points"])
CHEAPER = {OFF: {"server_cpu_us_per_trx": 0.8, "fsyncs_per_trx": 0.0}}


@pytest.fixture
def data(tmp_path, monkeypatch):
    monkeypatch.setattr(result_files, "DATA_DIR", tmp_path)
    return tmp_path


def loaded(data, doc: dict) -> Result:
    """doc as the site reads it: written to the data directory, its statistics recomputed."""
    write_result(data, "doublewrite", doc)
    [shown] = result_files.results_for("doublewrite", data_dir=data)
    return shown


def text(cell: str) -> str:
    return html.unescape(cell.replace("<br>", " | ").replace("<wbr>", ""))


def cost_rows(table: str) -> list[list[str]]:
    """The cost table's rows, one per cost: lists of cell texts (<br> as " | ")."""
    part = table[table.index('class="tl-verdicts tl-costs"'):]
    body = part[part.index("<tbody>"):part.index("</tbody>")]
    return [[text(c) for c in re.findall(r"<td[^>]*>(.*?)</td>", row)]
            for row in re.findall(r"<tr>(.*?)</tr>", body)]


def cells(table: str) -> list[list[str]]:
    """Each point's column of the cost table (a column per point): its setting, then its
    cells."""
    part = table[table.index('class="tl-verdicts tl-costs"'):]
    settings = [text(h) for h in re.findall(r"<th>(.*?)</th>", part[:part.index("</thead>")])]
    rows = cost_rows(table)
    return [[setting] + [row[i] for row in rows] for i, setting in enumerate(settings[1:], 1)]


def test_a_result_with_costs_shows_them_below_its_throughput(data):
    doc = loaded(data, with_costs(result(HOST_B), CHEAPER))
    out = result_tables.verdicts(doc)
    assert out.index("geometric mean tps") < out.index("tl-costs")  # the throughput table first
    assert [row[0] for row in cost_rows(out)] == [METRICS[k].label for k in COST]
    on, off = cells(out)
    assert on[0] == "ON" and off[0] == "OFF"
    assert re.fullmatch(r"0\.850 ms \(0\.84\d to 0\.85\d\) \| baseline", on[1])
    assert re.fullmatch(r"0\.680 ms \(0\.67\d to 0\.68\d\) \| ratio 0\.80 \[0\.79, 0\.8\d\]: "
                        r"less", off[1])
    assert re.fullmatch(r"2\.34 KiB \(2\.3\d to 2\.3\d\) \| ratio 1\.00 \[0\.99, 1\.01\]: "
                        r"equivalent within ±3% \(90% CI \[0\.99\d, 1\.0\d\d\]\)", off[7])
    assert off[COST.index("fsyncs_per_trx") + 1] == \
        f"0.0 fsyncs (0.0 to 0.0) | {stats.ZERO_COST}"
    assert "lower being cheaper" in out and html.escape(stats.COST_METHOD) in out


def test_a_ratio_far_from_one_keeps_its_digits(data):
    doc = with_costs(result(HOST_B), {OFF: {"log_fsyncs_per_trx": 0.025,
                                            "server_write_bytes_per_trx": 40.0}})
    off = cells(result_tables.verdicts(loaded(data, doc)))[1]
    assert re.search(r"\| ratio 0\.0250 \[0\.024\d, 0\.025\d\]: less$",
                     off[COST.index("log_fsyncs_per_trx") + 1])
    assert re.search(r"\| ratio 40\.0 \[39\.\d, 40\.\d\]: more$",
                     off[COST.index("server_write_bytes_per_trx") + 1])


def test_the_page_shows_the_costs_the_runs_give_not_the_stored_ones(data):
    forged = with_costs(result(HOST_B), CHEAPER)
    forged["points"][1]["stats"]["cost"] = {"server_cpu_us_per_trx": {
        "n": 5, "median": 1.0, "mean": 1.0, "stdev": 0.0, "ci_low": 1.0, "ci_high": 1.0,
        "ratio": {"ratio": 0.001, "ci_low": 0.001, "ci_high": 0.001, "verdict": "less",
                  "verdict_kind": "less", "tost_low": 0.001, "tost_high": 0.001}}}
    off = cells(result_tables.verdicts(loaded(data, forged)))[1]
    assert off[1].startswith("0.680 ms") and "0.001" not in off[1]


def test_a_cost_the_baseline_did_not_measure_is_a_dash(data):
    doc = with_costs(result(HOST_B), CHEAPER)
    for run in doc["points"][0]["runs"]:
        del run["summary"]["cost"]["log_fsyncs_per_trx"]
    for run in doc["points"][1]["runs"]:
        del run["summary"]["cost"]["host_cpu_us_per_trx"]
    out = result_tables.verdicts(loaded(data, doc))
    assert "redo log fsyncs per transaction" not in out  # no point has it: no column
    on, off = cells(out)
    column = [k for k in COST if k != "log_fsyncs_per_trx"].index("host_cpu_us_per_trx") + 1
    assert on[column].endswith("| baseline") and off[column] == "-"


def test_the_costs_are_in_the_fence_and_the_host_views(data):
    doc = with_costs(result(HOST_B), CHEAPER)
    write_result(data, "doublewrite", doc)
    out = fence.plotly_fence(spec(kind="results", recipe="doublewrite"), "plotly", "", {}, None)
    assert "tl-costs" in out and "ratio 0.80 [0.79, 0.8" in out
    [shown] = result_files.results_for("doublewrite", data_dir=data)
    assert "tl-costs" in hostviews.views(shown)["verdicts"]["html"]


def test_a_setting_from_the_file_is_escaped_in_the_cost_table(data):
    doc = with_costs(result(HOST_B), CHEAPER)
    doc["points"][1]["value"] = SCRIPT
    out = result_tables.costs(loaded(data, doc))
    assert SCRIPT not in out and html.escape(SCRIPT) in out


def test_a_result_without_costs_looks_as_before():
    assert result_tables.costs(REAL) == ""
    out = result_tables.verdicts(REAL)
    assert out.count("<table>") == 1 and "tl-costs" not in out and out.endswith("</p>")
    assert "tl-costs" not in hostviews.views(REAL)["verdicts"]["html"]


def test_a_cost_table_of_many_points_is_set_smaller_to_fit(data):
    doc = loaded(data, with_costs(result(HOST_B), CHEAPER)).raw
    assert "tl-many" not in result_tables.costs(doc)
    doc["points"] = doc["points"] * 3  # six columns
    assert 'class="tl-verdicts tl-costs tl-many"' in result_tables.costs(doc)
