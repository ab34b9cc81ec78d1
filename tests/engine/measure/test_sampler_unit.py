"""Unit tests for the pure parts of tuninglab.sampler (no server, no thread)."""


import pytest

from helpers import FIXTURES
from tuninglab.engine.measure import sampler
from tuninglab.engine.host.devices import DiskCounters
from tuninglab.engine.workloads.sysbench import Interval


@pytest.fixture(scope="module")
def mariadb_status():
    lines = (FIXTURES / "mariadb_10.11_global_status.tsv").read_text().splitlines()
    assert lines[0] == "Variable_name\tValue"
    return dict(line.split("\t", 1) for line in lines[1:] if line)


# --- innodb_metrics -----------------------------------------------------------------------------

def test_mariadb_metrics_from_global_status(mariadb_status):
    metrics = sampler.innodb_metrics(mariadb_status, {}, "mariadb")
    assert metrics == {"history_list_length": 0, "checkpoint_age_bytes": 21693253,
                       "checkpoint_max_age_bytes": 80819529, "dirty_pages": 742,
                       "pages_flushed": 0}


def test_mariadb_ignores_innodb_metrics_table(mariadb_status):
    metrics = sampler.innodb_metrics(mariadb_status, {"trx_rseg_history_len": "99"}, "mariadb")
    assert metrics["history_list_length"] == 0


@pytest.mark.parametrize("flavor", ["mysql", "percona"])
def test_mysql_metrics_from_status_and_innodb_metrics(flavor):
    status = {"Innodb_buffer_pool_pages_dirty": "42", "Innodb_buffer_pool_pages_flushed": "7",
              "Innodb_history_list_length": "999", "Innodb_checkpoint_age": "999"}
    metrics = {"trx_rseg_history_len": "12", "log_lsn_checkpoint_age": "3456"}
    assert sampler.innodb_metrics(status, metrics, flavor) == {
        "history_list_length": 12, "checkpoint_age_bytes": 3456,
        "checkpoint_max_age_bytes": None,  # not among the enabled metrics: absent, not guessed
        "dirty_pages": 42, "pages_flushed": 7}


def test_missing_or_non_numeric_values_are_none():
    metrics = sampler.innodb_metrics({"Innodb_buffer_pool_pages_dirty": "n/a"}, {}, "mysql")
    assert metrics == dict.fromkeys(sampler.STATUS_METRICS["mysql"])
    assert sampler.innodb_metrics({}, {}, "mariadb") == dict.fromkeys(
        sampler.STATUS_METRICS["mariadb"])


def test_integer_values_pass_through():
    # pymysql returns INNODB_METRICS.count as an int
    metrics = sampler.innodb_metrics({}, {"trx_rseg_history_len": 5}, "mysql")
    assert metrics["history_list_length"] == 5


# --- cpu_times ----------------------------------------------------------------------------------

def test_cpu_times_captured_line():
    line = "cpu  10237 0 9135 97635 2389 0 539 32 0 0\n"
    busy, total = sampler.cpu_times(line)
    assert total == 10237 + 9135 + 97635 + 2389 + 539 + 32
    assert busy == total - 97635 - 2389  # idle and iowait are not busy


def test_cpu_times_old_kernel_four_fields():
    assert sampler.cpu_times("cpu 100 5 50 845") == (155, 1000)


def test_cpu_times_live():
    busy, total = sampler.cpu_times()
    assert 0 <= busy <= total and total > 0


def test_cpu_times_counts_guest_time_once():
    # user 300 of which guest 200; the guest time must not be counted again
    assert sampler.cpu_times("cpu 300 0 100 500 100 0 0 0 200 0") == (400, 1000)


# --- _sample ------------------------------------------------------------------------------------

def disk(reads, read_bytes, writes, write_bytes):
    return DiskCounters(reads, read_bytes, writes, write_bytes, flushes=0, io_ms=0)


def reading(time, cpu, flushed, dirty, disks):
    return {"time": time, "cpu": cpu,
            "innodb": {"history_list_length": 10, "checkpoint_age_bytes": 500,
                       "checkpoint_max_age_bytes": None, "dirty_pages": dirty,
                       "pages_flushed": flushed},
            "disk": disks}


def test_sample_deltas_per_second():
    prev = reading(100.0, (200, 1000), 1000, 50,
                   {"vda": disk(10, 4096, 20, 8192), "vdb": disk(0, 0, 5, 1000)})
    cur = reading(102.0, (300, 1200), 1400, 60,
                  {"vda": disk(14, 4096 + 8000, 40, 8192 + 30000), "vdb": disk(2, 4000, 9, 3000)})
    s = sampler._sample(prev, cur)
    assert s["cpu_busy_pct"] == 50.0
    assert s["pages_flushed"] == 200  # a counter: (1400 - 1000) / 2 s
    assert s["dirty_pages"] == 60  # a gauge: the current value
    assert s["history_list_length"] == 10
    assert s["checkpoint_max_age_bytes"] is None
    assert s["disk_reads"] == (4 + 2) / 2
    assert s["disk_writes"] == (20 + 4) / 2
    assert s["disk_read_bytes"] == (8000 + 4000) / 2
    assert s["disk_write_bytes"] == (30000 + 2000) / 2


def test_sample_without_devices_or_cpu_ticks():
    prev = reading(10.0, (5, 50), 0, 1, {})
    cur = reading(11.0, (5, 50), 30, 1, {})
    s = sampler._sample(prev, cur)
    assert s["cpu_busy_pct"] is None
    assert s["pages_flushed"] == 30
    for field in sampler.DISK_FIELDS:
        assert s[f"disk_{field}"] is None


def test_sample_counter_missing_on_either_side_is_none():
    prev = reading(0.0, (0, 100), None, 1, {})
    cur = reading(1.0, (10, 200), 500, 1, {})
    assert sampler._sample(prev, cur)["pages_flushed"] is None
    assert sampler._sample(cur, reading(2.0, (20, 300), None, 1, {}))["pages_flushed"] is None


def test_sample_rounds_rates():
    prev = reading(0.0, (0, 300), 0, 1, {"vda": disk(0, 0, 0, 0)})
    cur = reading(3.0, (100, 600), 10, 1, {"vda": disk(1, 0, 0, 0)})
    s = sampler._sample(prev, cur)
    assert s["cpu_busy_pct"] == 33.3
    assert s["pages_flushed"] == 3
    assert s["disk_reads"] == 0


def test_disk_delta():
    delta = sampler.disk_delta(disk(5, 500, 7, 700), disk(1, 100, 2, 200))
    assert delta == {"reads": 4, "writes": 5, "read_bytes": 400, "write_bytes": 500}


# --- merge_series -------------------------------------------------------------------------------

def interval(t, tps, lat):
    return Interval(float(t), 2, tps, tps * 6, lat, 0.0, 0.0)


def test_merge_pads_samples():
    intervals = [interval(1, 100.0, 1.5), interval(2, 110.0, 1.4), interval(3, 90.0, 1.9)]
    samples = [{"cpu_busy_pct": 50.0, "dirty_pages": 7}, {"cpu_busy_pct": 60.0, "dirty_pages": 8}]
    series = sampler.merge_series(intervals, samples)
    assert series == {"t": [1, 2, 3], "tps": [100.0, 110.0, 90.0],
                      "latency_p95_ms": [1.5, 1.4, 1.9],
                      "cpu_busy_pct": [50.0, 60.0, None], "dirty_pages": [7, 8, None]}


def test_merge_pads_intervals():
    intervals = [interval(1, 100.0, 1.5)]
    samples = [{"dirty_pages": 1}, {"dirty_pages": 2}, {"dirty_pages": 3}]
    series = sampler.merge_series(intervals, samples)
    assert series["t"] == [1, 2, 3]
    assert series["tps"] == [100.0, None, None]
    assert series["latency_p95_ms"] == [1.5, None, None]
    assert series["dirty_pages"] == [1, 2, 3]


def test_merge_series_all_same_length():
    intervals = [interval(i, 100.0 + i, 1.0) for i in range(1, 6)]
    samples = [{"a": i, "b": None} for i in range(3)]
    series = sampler.merge_series(intervals, samples)
    assert {len(v) for v in series.values()} == {5}


def test_merge_without_samples():
    series = sampler.merge_series([interval(1, 100.0, 1.5)], [])
    assert series == {"t": [1], "tps": [100.0], "latency_p95_ms": [1.5]}
    assert sampler.merge_series([], []) == {"t": []}  # a scan: no sysbench series


def test_devices_aside_are_left_out_and_extra_gauges_join_each_sample():
    prev = reading(100.0, (200, 1000), 1000, 50, {"vdc": disk(10, 0, 20, 0), "md0": disk(5, 0, 9, 0)})
    cur = reading(101.0, (300, 1200), 1400, 60, {"vdc": disk(14, 0, 40, 0), "md0": disk(9, 0, 19, 0)})
    cur.update(extra={"resync_pct": 12.5})
    s = sampler._sample(prev, cur, summed=["vdc"])
    assert s["disk_reads"] == 4 and s["disk_writes"] == 20   # vdc only, not md0 above it
    assert s["resync_pct"] == 12.5
