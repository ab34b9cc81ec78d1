"""Unit tests for tuninglab.results (and workdir.atomic_write_json): no runs, hand-made documents."""

import copy
import json
import re
from pathlib import Path

import pytest

from helpers import make_doc, make_run
from tuninglab import files
from tuninglab.engine.measure import phase as measure
from tuninglab.engine.run import record
from tuninglab.engine.server.mysqld import ServerBinary
from tuninglab.files import atomic_write_json
from tuninglab.recipes import plan
from tuninglab.recipes.load import load
from tuninglab.results import document, report, stats
from tuninglab.results.result import Result

# --- io_per_transaction -------------------------------------------------------------------------

def totals(**devices):
    """Per-device totals as Sampler.stop() records them; values are (reads, read_bytes, writes,
    write_bytes), the order of DiskCounters."""
    keys = ("reads", "read_bytes", "writes", "write_bytes")
    return {name: dict(zip(keys, values)) for name, values in devices.items()}


def test_io_per_transaction_sums_devices():
    io = measure.io_per_transaction(totals(vda=(10, 4096, 100, 409600), vdb=(0, 0, 50, 204800)),
                                    100)
    assert io == {"reads_per_trx": 0.1, "writes_per_trx": 1.5, "read_bytes_per_trx": 40.96,
                  "write_bytes_per_trx": 6144.0}


def test_io_per_transaction_rounds_to_three_places():
    io = measure.io_per_transaction(totals(vda=(1, 2, 2, 1)), 3)
    assert io["reads_per_trx"] == 0.333 and io["writes_per_trx"] == 0.667


@pytest.mark.parametrize("device_totals,transactions", [
    (totals(vda=(1, 2, 3, 4)), 0),
    ({}, 100),
    (None, 100),
    ({}, 0),
])
def test_io_per_transaction_none(device_totals, transactions):
    assert measure.io_per_transaction(device_totals, transactions) == {
        "reads_per_trx": None, "writes_per_trx": None, "read_bytes_per_trx": None,
        "write_bytes_per_trx": None}


# --- validate -----------------------------------------------------------------------------------

def test_hand_made_document_is_valid():
    assert document.validate(make_doc()) == []


def test_finished_document_is_valid():
    assert document.validate(document.finish(make_doc())) == []


def one_problem(doc):
    problems = document.validate(doc)
    assert len(problems) == 1, problems
    return problems[0]


def test_missing_top_level_key():
    doc = make_doc()
    del doc["host"]
    assert one_problem(doc) == "(top): 'host' is a required property"


def test_missing_nested_key():
    doc = make_doc()
    del doc["points"][1]["runs"][2]["summary"]["latency_p95_ms"]
    problem = one_problem(doc)
    assert problem.startswith("points/1/runs/2/summary: ")
    assert "'latency_p95_ms' is a required property" in problem


def test_negative_tps():
    doc = make_doc()
    doc["points"][0]["runs"][1]["summary"]["tps"] = -5.0
    problem = one_problem(doc)
    assert problem.startswith("points/0/runs/1/summary/tps: ")
    assert "-5.0" in problem


def test_wrong_schema_version():
    doc = make_doc()
    doc["schema_version"] = 3
    assert one_problem(doc).startswith("schema_version: ")


@pytest.mark.parametrize("host_id", ["0123456789ABCDEF", "0123456789abcde", "0123456789abcdef0",
                                     "myhost.example", "g123456789abcdef"])
def test_host_id_not_16_hex(host_id):
    doc = make_doc()
    doc["host"]["id"] = host_id
    assert one_problem(doc).startswith("host/id: ")


@pytest.mark.parametrize("path,value", [
    (("dataset", "shape"), "memory-bound"),
    (("server", "version"), "10.11"),
    (("plan", "duration_s"), -1),
    (("recipe", "name"), "Double Write"),
    (("points", 0, "runs", 0, "series", "tps", 1), "fast"),
    (("points", 0, "settings", "innodb_doublewrite"), True),
    (("points", 1, "runs", 2, "summary", "io", "reads_per_trx"), "many"),
])
def test_other_broken_values_name_their_path(path, value):
    doc = make_doc()
    target = doc
    for key in path[:-1]:
        target = target[key]
    target[path[-1]] = value
    assert one_problem(doc).startswith("/".join(map(str, path)) + ": ")


def test_several_problems_sorted_by_path():
    doc = make_doc()
    doc["schema_version"] = 3
    doc["host"]["id"] = "x"
    problems = document.validate(doc)
    assert [p.split(":")[0] for p in problems] == ["host/id", "schema_version"]


def test_validate_does_not_change_the_document():
    doc = make_doc()
    before = copy.deepcopy(doc)
    document.validate(doc)
    assert doc == before


# --- finish -------------------------------------------------------------------------------------

def test_finish_adds_stats_and_ratio():
    doc = document.finish(make_doc())
    on, off = doc["points"]
    assert on["stats"]["ratio"] is None  # the baseline
    assert on["stats"]["tps"] == stats.summarize([1000.0, 1010.0, 990.0]).to_dict()
    assert on["stats"]["tps"]["median"] == 1000.0
    ratio = off["stats"]["ratio"]
    assert ratio == stats.compare([1500.0, 1510.0, 1490.0], [1000.0, 1010.0, 990.0]).to_dict()
    assert ratio["verdict"] == stats.FASTER
    assert ratio["ratio"] == pytest.approx(1.5, rel=1e-3)
    assert off["stats"]["write_bytes_per_trx"]["median"] == 2048.0
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\+00:00", doc["finished"])


def test_finish_adds_what_the_series_show_and_the_report_prints_it():
    doc = make_doc()
    for run in doc["points"][1]["runs"]:   # OFF: purge falls behind, 25 entries a second
        run["series"].update(t=list(range(1, 11)), tps=[1500.0] * 10,
                             history_list_length=[100 + 25 * t for t in range(10)])
    doc = document.finish(doc)
    assert document.validate(doc) == []
    off = doc["points"][1]["trends"]
    assert off["history_slope_per_s"] == 25.0 and off["history_growing_runs"] == 3
    assert off["history_end"] == 325 and off["dips"] == 0
    assert doc["points"][0]["trends"]["history_slope_per_s"] is None   # not sampled
    table = report.results_table(doc)
    assert "over time" in table
    assert re.search(r"innodb_doublewrite=OFF\s+25\.00\s+3 of 3 runs\s+325", table)


def test_finish_baseline_need_not_be_first():
    doc = make_doc()
    doc["sweep"]["baseline"] = "innodb_doublewrite=OFF"
    doc = document.finish(doc)
    on, off = doc["points"]
    assert off["stats"]["ratio"] is None
    assert on["stats"]["ratio"]["verdict"] == stats.SLOWER


def test_finish_with_too_few_repeats():
    doc = document.finish(make_doc(on_tps=(1000.0,), off_tps=(1500.0,)))
    assert doc["points"][1]["stats"]["ratio"]["verdict"] == stats.TOO_FEW_REPEATS
    assert document.validate(doc) == []


def test_finish_with_zero_throughput():
    doc = document.finish(make_doc(off_tps=(0.0, 0.0, 0.0)))
    ratio = doc["points"][1]["stats"]["ratio"]
    assert ratio == {"ratio": None, "ci_low": None, "ci_high": None,
                     "verdict": "no throughput to compare", "verdict_kind": stats.NO_THROUGHPUT,
                     "tost_low": None, "tost_high": None}
    assert document.validate(doc) == []


# --- the margin of the equivalence verdict ------------------------------------------------------

ALIKE = (1001.0, 1009.0, 992.0)  # beside make_doc's baseline 1000, 1010, 990: 90% CI ±1.6%


def test_the_margin_is_read_from_the_document():
    doc = make_doc(off_tps=ALIKE)
    doc["plan"]["smallest_effect_pct"] = 5.0
    ratio = document.finish(doc)["points"][1]["stats"]["ratio"]
    assert ratio["verdict"] == "equivalent within ±5%"
    assert ratio["verdict_kind"] == stats.EQUIVALENT
    assert ratio == stats.compare(ALIKE, [1000.0, 1010.0, 990.0], margin=0.05).to_dict()
    doc["plan"]["smallest_effect_pct"] = 1.0  # narrower than the 90% interval
    assert document.recompute(doc)["points"][1]["stats"]["ratio"]["verdict"] == stats.TOO_NOISY
    assert document.validate(doc) == []


def test_a_result_from_before_the_margin_was_recorded_takes_3_percent():
    doc = make_doc(off_tps=ALIKE)
    assert "smallest_effect_pct" not in doc["plan"]
    assert Result(doc).smallest_effect == stats.DEFAULT_SMALLEST_EFFECT == 0.03
    assert document.finish(doc)["points"][1]["stats"]["ratio"]["verdict"] == \
        "equivalent within ±3%"
    assert document.validate(doc) == []


def test_a_ratio_stored_before_the_verdict_kinds_still_validates():
    doc = document.finish(make_doc(off_tps=ALIKE))
    doc["points"][1]["stats"]["ratio"] = {"ratio": 1.0, "ci_low": 0.98, "ci_high": 1.02,
                                          "verdict": "no detectable difference"}
    doc["methods"]["ratio"] = "ratio of geometric means; 95% CI: Welch t interval on log values"
    assert document.validate(doc) == []


@pytest.mark.parametrize("pct", [0, 100, 150, -3, "3%"])
def test_the_schema_refuses_a_margin_out_of_range(pct):
    doc = document.finish(make_doc())
    doc["plan"]["smallest_effect_pct"] = pct
    assert [p.split(":")[0] for p in document.validate(doc)] == ["plan/smallest_effect_pct"]


def test_the_schema_knows_every_kind_of_verdict():
    point_stats = document.schema()["$defs"]["point"]["properties"]["stats"]["properties"]
    ratio = point_stats["ratio"]
    assert ratio["properties"]["verdict_kind"]["enum"] == list(stats.RATIO_VERDICTS)
    cost = point_stats["cost"]["additionalProperties"]["properties"]["ratio"]
    assert cost["properties"]["verdict_kind"]["enum"] == list(stats.COST_VERDICTS)
    assert set(stats.RATIO_VERDICTS) | set(stats.COST_VERDICTS) == set(stats.VERDICTS)
    assert ratio["required"] == ["ratio", "ci_low", "ci_high", "verdict"]  # old files validate
    doc = document.finish(make_doc())
    doc["points"][1]["stats"]["ratio"]["verdict_kind"] = "no detectable difference"
    assert [p.split(":")[0] for p in document.validate(doc)] == \
        ["points/1/stats/ratio/verdict_kind"]


def test_the_report_shows_the_deciding_interval_and_what_the_verdicts_mean():
    doc = make_doc(off_tps=ALIKE)
    doc["plan"]["smallest_effect_pct"] = 2.5
    doc = document.finish(doc)
    ratio = doc["points"][1]["stats"]["ratio"]
    table = report.results_table(doc)
    assert (f"equivalent within ±2.5% (90% CI {ratio['tost_low']:.3f} .. "
            f"{ratio['tost_high']:.3f})") in table
    legend = " ".join(table.split("\n"))
    assert "equivalent within ±2.5% when the 90% CI lies inside 0.976 .. 1.025" in legend
    assert "too noisy to tell otherwise" in legend
    noisy = report.results_table(document.finish(make_doc(off_tps=(800.0, 1000.0, 1200.0))))
    assert re.search(r"innodb_doublewrite=OFF .* too noisy to tell  ", noisy)


def test_finish_leaves_out_write_bytes_when_unknown():
    doc = make_doc()
    doc["points"][1]["runs"][0]["summary"]["io"] = measure.io_per_transaction({}, 0)
    doc = document.finish(doc)
    assert "write_bytes_per_trx" not in doc["points"][1]["stats"]
    assert "write_bytes_per_trx" in doc["points"][0]["stats"]
    assert document.validate(doc) == []


def test_new_document_then_finish_is_valid(tmp_path):
    """The real constructor, fed a recipe, a plan and fake provenance, gives a valid file."""
    path = tmp_path / "doublewrite" / "recipe.toml"
    path.parent.mkdir()
    path.write_text('title = "t"\nquestion = "q"\n[dataset]\nshape = "cpu-bound"\n'
                    '[workload]\nscript = "oltp_write_only"\n'
                    '[sweep]\nsetting = "innodb_log_file_size"\nvalues = ["64M", "256M"]\n'
                    '[measure]\nduration = "20s"\nrepeats = 2\n')
    p = plan.build(load("doublewrite", recipes_dir=tmp_path).experiment())
    binary = ServerBinary("/usr/sbin/mysqld", "mysql", (8, 4, 3), "mysqld  Ver 8.4.3 for Linux")
    hand = make_doc()
    provenance = {k: hand[k] for k in ("software", "host", "storage", "device_baseline")}
    doc = record.new_document(p, binary, provenance)
    assert document.validate(doc) == []
    assert doc["points"][0]["settings"]["innodb_redo_log_capacity"] == "64M"
    assert doc["sweep"]["baseline"] == "innodb_log_file_size=64M"
    assert doc["plan"]["order"] == [r.key for r in p.runs]
    for run_ in p.runs:
        document.point(doc, run_.point.id)["runs"].append(
            make_run(run_.repeat, run_.index, 1000.0 + run_.index))
    assert document.done_keys(doc) == {r.key for r in p.runs}
    assert document.validate(document.finish(doc)) == []
    assert doc["plan"]["smallest_effect_pct"] == stats.DEFAULT_SMALLEST_EFFECT_PCT  # none named
    path.write_text(path.read_text().replace('repeats = 2\n',
                                             'repeats = 2\nsmallest_effect = "5%"\n'))
    p = plan.build(load("doublewrite", recipes_dir=tmp_path).experiment())
    doc = record.new_document(p, binary, provenance)
    assert doc["plan"]["smallest_effect_pct"] == 5.0
    assert Result(doc).smallest_effect == 0.05


# --- final_path and writing ---------------------------------------------------------------------

def test_final_path(tmp_path):
    doc = make_doc()
    assert document.final_path(doc, tmp_path) == \
        tmp_path / "doublewrite" / "20261121T232443Z-01234567-quick.json"


def test_final_path_default_data_dir():
    path = document.final_path(make_doc())
    assert path.parent == files.DATA_DIR / "doublewrite"  # named, not read
    assert re.fullmatch(r"\d{8}T\d{6}Z-[0-9a-f]{8}-quick\.json", path.name)


def test_final_path_from_now(tmp_path):
    doc = make_doc()
    doc["started"] = document.now()
    name = document.final_path(doc, tmp_path).name
    assert re.fullmatch(r"\d{8}T\d{6}Z-01234567-quick\.json", name)


def test_write_final_refuses_an_invalid_document(tmp_path):
    doc = make_doc()
    doc["host"]["id"] = "nothex"
    with pytest.raises(ValueError, match="host/id"):
        document.write_final(doc, tmp_path)
    assert list(tmp_path.iterdir()) == []


def test_write_final(tmp_path):
    doc = document.finish(make_doc())
    path = document.write_final(doc, tmp_path)
    assert path == document.final_path(doc, tmp_path)
    assert json.loads(path.read_text()) == doc
    assert [p.name for p in path.parent.iterdir()] == [path.name]


def test_the_run_id_tells_apart_runs_started_in_the_same_second(tmp_path):
    first, second = document.finish(make_doc()), document.finish(make_doc())
    first["run_id"], second["run_id"] = "0000aaaa", "0000bbbb"
    paths = [document.write_final(doc, tmp_path) for doc in (first, second)]
    assert [p.name for p in paths] == ["20261121T232443Z-01234567-quick-0000aaaa.json",
                                       "20261121T232443Z-01234567-quick-0000bbbb.json"]
    assert [json.loads(p.read_text())["run_id"] for p in paths] == ["0000aaaa", "0000bbbb"]


def test_write_final_never_overwrites_a_result(tmp_path):
    doc = document.finish(make_doc())
    path = document.write_final(doc, tmp_path)
    with pytest.raises(FileExistsError, match="exists already"):
        document.write_final({**doc, "finished": document.now()}, tmp_path)
    assert json.loads(path.read_text()) == doc
    assert [p.name for p in path.parent.iterdir()] == [path.name]


def test_atomic_write_json_leaves_no_temp_file(tmp_path):
    target = tmp_path / "progress.json"
    atomic_write_json(target, {"a": 1})
    atomic_write_json(target, {"a": 2, "b": [None, 1.5]})
    assert json.loads(target.read_text()) == {"a": 2, "b": [None, 1.5]}
    assert target.read_text().endswith("\n")
    assert [p.name for p in tmp_path.iterdir()] == ["progress.json"]


def test_atomic_write_json_failure_keeps_the_old_file(tmp_path):
    target = tmp_path / "progress.json"
    atomic_write_json(target, {"a": 1})
    with pytest.raises(TypeError):
        atomic_write_json(target, {"a": object()})
    assert json.loads(target.read_text()) == {"a": 1}
    assert [p.name for p in tmp_path.iterdir()] == ["progress.json"]


def test_atomic_write_json_accepts_str_path(tmp_path):
    atomic_write_json(str(tmp_path / "x.json"), [1, 2])
    assert json.loads(Path(tmp_path / "x.json").read_text()) == [1, 2]
