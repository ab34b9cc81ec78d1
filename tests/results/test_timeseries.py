"""Unit tests for tuninglab.timeseries: slopes, throughput dips and a run's summary."""

import random
import subprocess
import sys

import pytest
from scipy import stats as scipy_stats

from tuninglab.results import timeseries as ts

# --- slope --------------------------------------------------------------------------------------

def test_linear_series_gives_the_exact_slope_and_a_ci_containing_it():
    result = ts.slope([3 * t + 7 for t in range(1, 21)])
    assert result["per_s"] == 3.0
    low, high = result["ci95"]
    assert low <= 3.0 <= high and high - low < 1e-9   # no residuals: a zero-width interval
    assert result["n"] == 20 and result["growing"] is True


def test_interval_is_students_t_on_the_slope_standard_error():
    rng = random.Random(3)
    values = [5 + 0.5 * t + rng.gauss(0, 4) for t in range(1, 31)]
    ref = scipy_stats.linregress(range(1, 31), values)
    half = scipy_stats.t.ppf(0.975, 28) * ref.stderr
    result = ts.slope(values)
    assert result["per_s"] == pytest.approx(ref.slope, rel=1e-12)
    assert result["ci95"] == pytest.approx([ref.slope - half, ref.slope + half], rel=1e-9)


def test_flat_noisy_series_is_not_growing():
    rng = random.Random(42)
    result = ts.slope([1000 + rng.gauss(0, 20) for _ in range(60)])
    low, high = result["ci95"]
    assert low < 0 < high
    assert result["growing"] is False


def test_clearly_growing_series_is_growing():
    rng = random.Random(7)
    result = ts.slope([2 * t + rng.gauss(0, 5) for t in range(1, 61)])
    assert result["growing"] is True
    assert result["ci95"][0] > 0 and result["ci95"][0] <= 2 <= result["ci95"][1]


def test_falling_series_is_not_growing():
    result = ts.slope([500 - 4 * t + (-1) ** t for t in range(1, 31)])
    assert result["per_s"] < 0 and result["ci95"][1] < 0
    assert result["growing"] is False


def test_none_values_are_skipped_but_keep_their_seconds():
    # y = 2t + 1 at t = 2, 4, 5; squeezing out the gaps would give slope 3 instead
    result = ts.slope([None, 5, None, 9, 11, None])
    assert result["per_s"] == pytest.approx(2.0)
    assert result["n"] == 3


def test_explicit_times_and_none_times():
    assert ts.slope([0, 5, 10], t=[0, 10, 20])["per_s"] == pytest.approx(0.5)
    assert ts.slope([0, 99, 5, 10], t=[0, None, 10, 20])["n"] == 3


@pytest.mark.parametrize("values", [[], [5], [5, 6], [1, None, 2], [None, None, None, 4]])
def test_fewer_than_three_points_is_none(values):
    assert ts.slope(values) is None


def test_all_points_at_one_second_is_none():
    assert ts.slope([1, 2, 3], t=[4, 4, 4]) is None


# --- dips ---------------------------------------------------------------------------------------

def steady(n=10, tps=100.0):
    return [tps] * n


def test_no_dips():
    assert ts.dips([100, 98, 103, 101, 99]) == {
        "count": 0, "depth_pct": 0, "seconds": 0, "near_capacity": None}


def test_dips_count_seconds_and_worst_depth():
    tps = steady()
    tps[2], tps[3], tps[7] = 40.0, 30.0, 45.0   # one two-second dip, one one-second dip
    assert ts.dips(tps) == {"count": 2, "depth_pct": 70.0, "seconds": 3, "near_capacity": None}


def test_consecutive_dip_seconds_are_one_dip():
    tps = steady(12)
    tps[4:8] = [20.0, 5.0, 40.0, 10.0]
    result = ts.dips(tps)
    assert result["count"] == 1 and result["seconds"] == 4
    assert result["depth_pct"] == 95.0


def test_a_dip_is_strictly_below_drop_times_median():
    tps = steady()
    tps[5] = 50.0
    assert ts.dips(tps)["count"] == 0
    assert ts.dips(tps, drop=0.6)["count"] == 1


def test_depth_is_relative_to_the_median_not_the_mean():
    tps = steady(9) + [10_000.0]   # one outlier second would drag a mean up
    tps[2] = 25.0
    assert ts.dips(tps)["depth_pct"] == 75.0


def test_a_none_second_is_no_dip_and_ends_the_dip():
    tps = steady()
    tps[3], tps[4], tps[5] = 40.0, None, 30.0
    result = ts.dips(tps)
    assert result["count"] == 2 and result["seconds"] == 2


def test_none_seconds_do_not_move_the_median():
    # padding at the end (sysbench stopped before the sampler) is not zero throughput
    tps = steady(6) + [None] * 6
    tps[1] = 40.0
    assert ts.dips(tps) == {"count": 1, "depth_pct": 60.0, "seconds": 1, "near_capacity": None}


def test_all_none_throughput_has_no_dips():
    assert ts.dips([None, None, None])["count"] == 0


def test_near_capacity_counts_dips_that_start_with_the_redo_log_nearly_full():
    tps = steady()
    tps[2], tps[3], tps[6], tps[8] = 10.0, 10.0, 10.0, 10.0   # dips start at 2, 6 and 8
    capacity = [100] * 10
    age = [50, 60, 80, 95, 40, 40, 79, 50, 90, 50]    # 80 % at 2: counted; 79 % at 6: not
    assert ts.dips(tps, age, capacity)["near_capacity"] == 2
    assert ts.dips(tps, age, capacity, near=0.9)["near_capacity"] == 1
    assert ts.dips(tps, age, capacity, near=0.5)["near_capacity"] == 3


def test_near_capacity_looks_at_the_first_second_of_a_dip():
    tps = steady()
    tps[2], tps[3] = 10.0, 10.0
    assert ts.dips(tps, [0, 0, 10, 99, 0, 0, 0, 0, 0, 0], [100] * 10)["near_capacity"] == 0


def test_near_capacity_skips_dips_whose_start_is_unknown():
    tps = steady()
    tps[2], tps[6] = 10.0, 10.0
    age = [90, 90, None, 90, 90, 90, 90, 90, 90, 90]
    capacity = [100, 100, 100, 100, 100, 100, None, 100, 100, 100]
    assert ts.dips(tps, age, capacity)["near_capacity"] == 0


def test_near_capacity_is_none_without_age_and_capacity():
    tps = steady()
    tps[2] = 10.0
    assert ts.dips(tps)["near_capacity"] is None
    assert ts.dips(tps, age=[90] * 10)["near_capacity"] is None
    assert ts.dips(tps, [None] * 10, [None] * 10)["near_capacity"] is None   # absent metric
    assert ts.dips(steady(), [90] * 10, [100] * 10)["near_capacity"] == 0   # known: no dips


# --- summarize_run ------------------------------------------------------------------------------

def run_series(n=10, **overrides):
    series = {"t": list(range(1, n + 1)), "tps": steady(n), "latency_p95_ms": [2.0] * n,
              "history_list_length": [100 + 10 * t for t in range(1, n + 1)],
              "checkpoint_age_bytes": [40] * n, "checkpoint_max_age_bytes": [100] * n,
              "dirty_pages": [5] * n, "pages_flushed": [1] * n}
    series.update(overrides)
    return series


def test_summary_keys_and_values():
    tps = steady()
    tps[4] = 10.0
    age = [40, 40, 40, 40, 85, 70, None, 40, 40, 40]
    capacity = [100, 100, 100, 100, 100, 100, 100, 100, 100, None]
    summary = ts.summarize_run(run_series(tps=tps, checkpoint_age_bytes=age,
                                          checkpoint_max_age_bytes=capacity))
    assert set(summary) == {"history_slope", "dips", "checkpoint_fill_max"}
    assert summary["history_slope"]["per_s"] == pytest.approx(10.0)
    assert summary["history_slope"]["growing"] is True
    assert summary["dips"] == {"count": 1, "depth_pct": 90.0, "seconds": 1, "near_capacity": 1}
    assert summary["checkpoint_fill_max"] == 0.85


def test_fill_uses_only_seconds_where_both_are_known_and_rounds():
    summary = ts.summarize_run(run_series(4, checkpoint_age_bytes=[2, 95, None, 1],
                                          checkpoint_max_age_bytes=[3, None, 100, 3]))
    assert summary["checkpoint_fill_max"] == 0.667


def test_summary_of_a_scan_without_throughput_or_innodb_metrics():
    series = {"t": [1, 2, 3], "history_list_length": [None] * 3,
              "checkpoint_age_bytes": [None] * 3, "checkpoint_max_age_bytes": [None] * 3}
    assert ts.summarize_run(series) == {
        "history_slope": None, "dips": None, "checkpoint_fill_max": None}
    assert ts.summarize_run({"t": []}) == {
        "history_slope": None, "dips": None, "checkpoint_fill_max": None}


def test_summary_with_tps_all_none_has_no_dips_entry():
    assert ts.summarize_run(run_series(3, tps=[None] * 3))["dips"] is None


def test_summary_history_with_gaps_uses_the_run_seconds():
    history = [None, 20, None, 40, 50]   # 10 per second at t = 2, 4, 5
    summary = ts.summarize_run(run_series(5, history_list_length=history))
    assert summary["history_slope"]["per_s"] == pytest.approx(10.0)


# --- imports ------------------------------------------------------------------------------------

@pytest.mark.integration  # runs python
def test_importable_without_scipy():
    # The lab VM has no scipy: importing the module (and finding dips) must not need it.
    code = ("import sys; sys.modules['scipy'] = None\n"
            "from tuninglab.results import timeseries as ts\n"
            "assert ts.dips([100, 100, 10, 100])['count'] == 1\n"
            "assert 'tuninglab.results.stats' not in sys.modules\n")
    subprocess.run([sys.executable, "-c", code], check=True)


# --- a point's trends ---------------------------------------------------------------------------

def _run(history, tps=None, age=None, capacity=None):
    n = len(history)
    return {"series": {"t": list(range(1, n + 1)), "history_list_length": history,
                       "tps": tps or [100.0] * n, "checkpoint_age_bytes": age,
                       "checkpoint_max_age_bytes": capacity}}


def test_point_trends_count_the_runs_whose_history_keeps_growing():
    growing = _run([10 * t for t in range(20)])
    flat = _run([500 + (-1) ** t for t in range(20)])
    trends = ts.point_trends([growing, growing, flat])
    assert trends["runs"] == 3 and trends["history_growing_runs"] == 2
    assert trends["history_slope_per_s"] == 10.0 and trends["history_end"] == 190
    assert trends["dips"] == 0 and trends["checkpoint_fill_max"] is None


def test_point_trends_report_dips_near_a_full_redo_log():
    tps = [100.0] * 8 + [10.0, 12.0] + [100.0] * 8
    age = [50] * 7 + [95] * 4 + [50] * 7
    trends = ts.point_trends([_run([0] * 18, tps, age, [100] * 18)] * 2)
    assert trends["dips"] == 1 and trends["dip_depth_pct"] == 90.0
    assert trends["dips_near_capacity"] == 2 and trends["checkpoint_fill_max"] == 0.95


def test_point_trends_without_series_is_none_and_fill_needs_both_series():
    assert ts.point_trends([{"summary": {}}]) is None
    assert ts.fill_pct({"checkpoint_age_bytes": [1, None]}) is None
    assert ts.fill_pct({"checkpoint_age_bytes": [25, None, 5],
                        "checkpoint_max_age_bytes": [100, 100, 0]}) == [25.0, None, None]
