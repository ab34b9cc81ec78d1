"""calibrations: the A/A record lab.noise keeps, its strict check and the between-sitting sd."""

import json
import math

import pytest

from helpers import make_doc
from tuninglab.results import calibrations, pooling


def aa_docs():
    switchback = make_doc(on_tps=[1000.0, 1100.0, 900.0, 1000.0],
                          off_tps=[1010.0, 1089.0, 909.0, 990.0])
    switchback["plan"]["design"] = "switchback"
    restart = make_doc(on_tps=[1000.0, 1100.0, 900.0], off_tps=[1000.0, 1050.0, 950.0])
    return {"switchback": switchback, "restart": restart}


def record(host_id="a" * 16):
    r = calibrations.record_of(aa_docs(), "2026-11-24T04:30:08+00:00", quick=True)
    r["host"] = {**r["host"], "id": host_id}
    return r


def written(tmp_path, rec, name="20261124T043008Z-aaaaaaaa.json"):
    path = tmp_path / name
    path.write_text(json.dumps(rec))
    return path


def test_a_record_holds_the_blocks_and_each_designs_comparison(tmp_path):
    r = record()
    assert set(calibrations.BLOCKS) <= set(r) and set(r["designs"]) == {"switchback", "restart"}
    sb = r["designs"]["switchback"]
    assert sb["paired"] and sb["point_values"] == [1010.0, 1089.0, 909.0, 990.0]
    e = pooling.estimate(sb["point_values"], sb["baseline_values"], paired=True)
    assert sb["log_ratio"] == e.log_ratio and sb["df"] == 3
    assert calibrations.file_name(r) == "20261124T043008Z-aaaaaaaa.json"
    assert calibrations.problems(written(tmp_path, r)) == []


def test_aa_estimates_are_recomputed_and_labelled_with_the_sitting():
    r = record()
    r["designs"]["restart"]["log_ratio"] = 5.0  # a stored number is never read
    found = calibrations.aa_estimates(r)
    assert len(found) == 2 and {e.sitting for e in found} == {"a" * 16}
    assert abs(found[1].log_ratio) < 0.1


def test_the_between_sitting_sd_needs_two_sittings_and_subtracts_the_own_noise():
    assert calibrations.between_sd_of(calibrations.aa_estimates(record())) is None
    both = calibrations.aa_estimates(record()) + calibrations.aa_estimates(record("b" * 16))
    sd, sittings = calibrations.between_sd_of(both)
    assert sittings == 2 and sd == 0.0  # these A/As lie well within their own se
    far = pooling.Estimate(0.3, 0.01, 5.0, "x"), pooling.Estimate(-0.3, 0.01, 5.0, "y")
    sd, _ = calibrations.between_sd_of(list(far))
    assert sd == pytest.approx(math.sqrt(0.09 - 0.0001))


def test_load_all_reads_the_records_and_refuses_a_bad_one(tmp_path):
    (tmp_path / "calibrations").mkdir()
    written(tmp_path / "calibrations", record())
    assert len(calibrations.load_all(tmp_path)) == 1
    assert calibrations.load_all(tmp_path / "none") == []
    bad = record()
    bad["quick"] = "yes"
    written(tmp_path / "calibrations", bad, "20261125T000000Z-aaaaaaaa.json")
    with pytest.raises(ValueError, match="20261125T000000Z-aaaaaaaa.json: quick: "):
        calibrations.load_all(tmp_path)


def one_problem(tmp_path, rec) -> str:
    found = calibrations.problems(written(tmp_path, rec))
    assert len(found) == 1, found
    assert found[0].startswith(f"{tmp_path / '20261124T043008Z-aaaaaaaa.json'}: ")
    return found[0]


def test_an_unknown_key_is_one_line(tmp_path):
    r = record()
    r["designs"]["restart"]["verdict"] = "faster"
    assert "designs/restart/verdict: an unknown key" in one_problem(tmp_path, r)


def test_a_wrong_type_is_one_line(tmp_path):
    r = record()
    r["designs"]["switchback"]["point_values"][2] = "909"
    line = one_problem(tmp_path, r)
    assert "designs/switchback/point_values/2: " in line and "expected a finite number" in line


def test_a_missing_block_is_one_line(tmp_path):
    r = record()
    del r["device_baseline"]
    assert "device_baseline: missing" in one_problem(tmp_path, r)


def test_a_stored_number_the_values_do_not_give_is_refused(tmp_path):
    r = record()
    r["designs"]["restart"]["se"] = 0.001
    assert "designs/restart/se: 0.001, but the values give" in one_problem(tmp_path, r)


def test_a_file_that_is_no_record(tmp_path):
    path = tmp_path / "x.json"
    path.write_text("[1]")
    assert calibrations.problems(path) == [f"{path}: (top): [1] (a list); expected an object"]
    path.write_text("{")
    assert "not JSON" in calibrations.problems(path)[0]
    r = record()
    r["host"]["id"] = "nope"
    assert "host/id: 'nope'" in one_problem(tmp_path, r)


def test_a_design_without_a_comparison_is_left_out_and_none_gives_no_record():
    docs = aa_docs()
    docs["restart"]["points"][1]["runs"][0]["summary"]["tps"] = 0.0  # a stalled run
    assert set(calibrations.record_of(docs, "2026-11-24T04:30:08+00:00", True)["designs"]) \
        == {"switchback"}
    del docs["switchback"]
    assert calibrations.record_of(docs, "2026-11-24T04:30:08+00:00", True) is None


def test_every_committed_calibration_record_is_valid_and_gives_its_estimates():
    from helpers import DATA
    paths = sorted((DATA / calibrations.DIR).glob("*.json"))
    for path in paths:
        assert calibrations.problems(path) == [], path
    for record in calibrations.load_all(DATA):   # a whole machine's A/As, a duet's, or both
        assert calibrations.aa_estimates(record) or calibrations.aa_estimates(record, duet=True)


def test_a_duets_entry_holds_each_halfs_place_and_is_checked(tmp_path):
    from helpers import duet_doc
    from tuninglab.results import document
    doc = document.finish(duet_doc(effect=1.0, halves=4))
    r = calibrations.record_of({**aa_docs(), "duet": doc}, "2026-11-24T04:30:08+00:00", True)
    entry = r["designs"]["duet"]
    assert entry["point_first"] == [True, False, True, False] and entry["df"] == 2
    assert written(tmp_path, r) and calibrations.problems(written(tmp_path, r)) == []
    assert [e.df for e in calibrations.aa_estimates(r, duet=True)] == [2]
    entry["point_first"] = [True, False, True]
    assert "point_first: 3 places against 4 halves" in one_problem(tmp_path, r)
    entry["point_first"] = [True, False, 1, False]
    assert "expected a list of true or false, one per half" in one_problem(tmp_path, r)
    del entry["point_first"]
    assert "designs/duet/point_first: missing" in one_problem(tmp_path, r)
