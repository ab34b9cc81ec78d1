"""The pooled estimates' coverage check, small: fixed seeds, few trials, loose bounds (a check of
the arithmetic, not timed)."""

import json
import random

from helpers import make_doc
from tuninglab.bench import pooling_coverage, sitting_coverage
from tuninglab.results import calibrations


def aa_record(host_id: str, i: int) -> dict:
    """A restart A/A record of that host, its repeats varied by i."""
    doc = make_doc(on_tps=[1000.0, 1100.0 - i, 900.0 + 3 * i],
                   off_tps=[1000.0 + 2 * i, 1050.0, 950.0 - i])
    record = calibrations.record_of({"restart": doc}, "2026-11-24T04:30:08+00:00", True)
    return record | {"host": {**record["host"], "id": host_id}}


def test_the_committed_results_give_noise_of_both_designs(committed_data):
    noises = pooling_coverage.committed_noise(committed_data)
    assert len(noises) > 50
    assert any(n.paired for n in noises) and any(not n.paired for n in noises)
    assert all(n.sd_point > 0 and n.n_point >= 2 for n in noises)


def test_a_simulated_aa_pooled_holds_1_about_95_percent_of_the_time(committed_data):
    noises = pooling_coverage.committed_noise(committed_data)
    for calibrated in (True, False):
        c = pooling_coverage.simulated_coverage(noises, 3, 0.03, calibrated, trials=150)
        assert 0.88 <= c <= 1.0


def test_precise_results_are_shown_by_the_class_calibration_sittings(committed_data):
    noises = pooling_coverage.committed_noise(committed_data)
    paired = next(n for n in noises if n.paired)
    assert pooling_coverage.standard_error(paired) == paired.sd_point / paired.n_point ** 0.5
    lines = []
    pooling_coverage.precise(lines.append, noises, trials=60)
    assert "standard error under 2%" in lines[0]
    assert len(lines) == 3 and all("2 sittings 0." in line and "6 sittings" in line
                                   for line in lines[1:])


def test_the_issues_cases_come_from_the_committed_files(committed_data):
    dio = pooling_coverage.case_estimates("direct-io", "innodb_flush_method=O_DIRECT",
                                          committed_data)
    assert len(dio) >= 3 and not all(capped for _, capped in dio)
    btrfs = pooling_coverage.case_estimates("filesystems", "storage.filesystem=btrfs",
                                            committed_data)
    assert len(btrfs) >= 2


def test_real_records_are_checked_leaving_each_trials_sittings_out(tmp_path):
    records = [aa_record(f"{i:016x}", i) for i in range(6)]
    c = pooling_coverage.record_coverage(records, 2, trials=40)
    assert 0.8 <= c <= 1.0
    (tmp_path / calibrations.DIR).mkdir()
    (tmp_path / calibrations.DIR / "x.json").write_text(json.dumps(records[0]))
    assert calibrations.load_all(tmp_path) == [records[0]]


def test_the_sitting_models_figures_and_old_ones_come_from_the_same_trials(committed_data):
    noises = pooling_coverage.committed_noise(committed_data)
    c = sitting_coverage.model_coverage(noises, 3, 0.03, 2, trials=40)
    assert 0.8 <= c.coverage <= 1.0 and 0.8 <= c.old_coverage <= 1.0
    assert 0 < c.half_width < 0.5 and 0 < c.old_half_width and len(c.seconds) == 40
    estimates, paired = pooling_coverage.aa_calibration(random.Random(1), noises, 0.03, 2,
                                                        excess=0.03)
    assert len(estimates) == 4 and paired == [False, True, False, True]
    assert {e.sitting for e in estimates} == {"cal0", "cal1"}


def test_the_sitting_models_table_names_every_figure_and_the_speed(committed_data):
    noises = pooling_coverage.committed_noise(committed_data)
    lines = []
    missed = sitting_coverage.sitting_model_check(lines.append, noises, trials=2)
    assert "2 trials per figure" in lines[0] and "0.90 up to a true spread of 10%" in lines[0]
    rows = [line for line in lines if line.startswith("    spread")]
    assert len(rows) == 16 and all(row.count(" old ") == 3 for row in rows)
    assert lines[-2].startswith("  targets: ") and "ms target" in lines[-1]
    assert all("calibration sittings, spread" in m for m in missed)
    # a figure under its target is drawn again, 4 times as often, and judged on all 10 trials
    assert all(m.endswith("of 10 trials") for m in missed)
    assert all(("[10 trials]" in row) == (row.count("[") > 0) for row in rows)


def test_the_sitting_model_on_real_records_uses_record_coverages_draws(tmp_path):
    records = [aa_record(f"{i:016x}", i) for i in range(6)]
    new, old = sitting_coverage.record_model_coverage(records, 2, trials=40)
    assert old == pooling_coverage.record_coverage(records, 2, trials=40)
    assert 0.8 <= new <= 1.0
