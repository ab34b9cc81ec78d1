"""Regime checks on captured series: each kind of condition a recipe may declare, on the series
and costs of committed results (or made ones where a case needs them), and what a condition that
fails does to the verdict."""

import copy
import json

import pytest

from helpers import DATA, REPO, load_error, make_doc, recipe_text, with_costs
from tuninglab.contrib import forgery
from tuninglab.recipes.regime import declared
from tuninglab.results import document, regime, stats

# 48M to 2G of redo log on the CPU-bound write-only load: the 48M log fills (99.9%), the 2G
# one reaches 4.6%.
REDO = json.loads((DATA / "redo-size" / "20261122T000515Z-209a4cf4-quick.json").read_text())


def condition(metric, bound=("at_least", 1.0), statistic="median", of="each", why="w"):
    return {"metric": metric, "statistic": statistic, bound[0]: bound[1], "of": of, "why": why,
            "unit": ""}


def with_regime(doc, *conditions):
    doc = copy.deepcopy(doc)
    doc["regime"] = list(conditions)
    return document.recompute(doc)


def verdicts(doc):
    return {p["id"]: p["stats"]["ratio"]["verdict_kind"] for p in doc["points"]
            if p["stats"]["ratio"]}


def test_the_smallest_redo_log_filling_is_a_max_of_the_fill_series():
    fills = condition("checkpoint_fill_pct", ("at_least", 80.0), "max", "baseline")
    doc = with_regime(REDO, fills)
    base = document.point(doc, "innodb_log_file_size=48M")["stats"]["regime"]
    assert base["reached"] and base["checks"][0]["value"] > 99
    # the 2G log need not fill: a "baseline" condition checks the baseline only
    big = document.point(doc, "innodb_log_file_size=2G")["stats"]["regime"]
    assert big == {"reached": True, "checks": []}
    assert verdicts(doc) == verdicts(document.recompute(copy.deepcopy(REDO)))


def test_a_baseline_outside_its_regime_makes_every_comparison_regime_not_reached():
    doc = with_regime(REDO, condition("checkpoint_fill_pct", ("at_least", 100.5), "max",
                                      "baseline"))
    assert set(verdicts(doc).values()) == {stats.REGIME_NOT_REACHED}
    ratio = document.point(doc, "innodb_log_file_size=2G")["stats"]["ratio"]
    assert ratio["ratio"] is not None and ratio["ci_low"] is not None  # kept, not answered


def test_each_point_is_checked_on_its_own_values():
    # the 48M and 256M logs get past 30% full, the 1G and 2G ones do not
    doc = with_regime(REDO, condition("checkpoint_fill_pct", ("at_least", 30.0), "max"))
    assert verdicts(doc)["innodb_log_file_size=256M"] != stats.REGIME_NOT_REACHED
    assert verdicts(doc)["innodb_log_file_size=2G"] == stats.REGIME_NOT_REACHED
    values = {p["id"]: p["stats"]["regime"]["checks"][0]["value"] for p in doc["points"]}
    assert values["innodb_log_file_size=48M"] > values["innodb_log_file_size=2G"]


def test_a_median_and_a_min_of_a_series_in_its_shown_unit():
    run = REDO["points"][0]["runs"][0]
    known = [v for v in run["series"]["dirty_pages"] if v is not None]
    assert regime.run_value(run, condition("dirty_pages")) == pytest.approx(
        sorted(known)[len(known) // 2], rel=0.5)
    assert regime.run_value(run, condition("dirty_pages", statistic="min")) == min(known)
    mib = regime.run_value(run, condition("disk_write_bytes", statistic="max"))
    assert mib == pytest.approx(max(v for v in run["series"]["disk_write_bytes"]
                                    if v is not None) / 2**20)


def test_a_cost_is_one_number_per_run_in_the_unit_pages_show():
    doc = with_costs(make_doc())
    run = doc["points"][0]["runs"][0]
    value = regime.run_value(run, condition("server_read_bytes_per_trx", statistic="value"))
    assert value == pytest.approx(run["summary"]["cost"]["server_read_bytes_per_trx"] / 1024)
    reads = condition("server_read_bytes_per_trx", ("at_least", 16.0), "value")
    assert verdicts(with_regime(doc, reads)) == {"innodb_doublewrite=OFF":
                                                 stats.REGIME_NOT_REACHED}  # 8.8 KiB < 16
    reads["at_least"] = 8.0
    assert verdicts(with_regime(doc, reads)) == {"innodb_doublewrite=OFF": stats.FASTER}


def test_a_growing_history_list_is_a_positive_slope():
    rising = {"t": list(range(1, 31)), "history_list_length": [100 + 50 * i for i in range(30)]}
    flat = {"t": list(range(1, 31)), "history_list_length": [100 + (i % 3) for i in range(30)]}
    grows = condition("history_list_length", ("at_least", 10.0), "slope")
    assert regime.run_value({"series": rising}, grows) == pytest.approx(50)
    assert not regime.met(regime.run_value({"series": flat}, grows), grows)


def test_a_slope_passes_its_bound_only_on_a_trend_its_interval_proves():
    # Swings of hundreds around a small upward drift: the point slope clears 10/s, but its
    # interval reaches below zero, so the run does not show the list growing.
    noisy = [1000 + (400 if i % 2 else -400) + 12 * i for i in range(10)]
    grows = condition("history_list_length", ("at_least", 10.0), "slope")
    stays = condition("history_list_length", ("at_most", 10.0), "slope")
    assert regime.timeseries.slope(noisy)["per_s"] > 10
    assert not regime.met(regime.run_value({"series": {"history_list_length": noisy}}, grows),
                          grows)
    assert not regime.met(regime.run_value({"series": {"history_list_length": noisy}}, stays),
                          stays)
    assert "slope (its 95% interval's low end) at least 10" in regime.describe(grows)


def test_steady_throughput_is_a_small_drift_over_the_measured_phase():
    steady = condition("tps", ("at_most", 10.0), "drift")
    flat = [1000 + (25 if i % 2 else -25) for i in range(20)]
    climbing = [500 + 50 * i for i in range(20)]
    assert regime.drift_pct(flat) < 10
    assert regime.drift_pct(climbing) > 50   # a cold start still warming up
    assert regime.met(regime.run_value({"series": {"tps": flat}}, steady), steady)
    assert not regime.met(regime.run_value({"series": {"tps": climbing}}, steady), steady)


def test_a_metric_no_run_recorded_is_a_regime_not_shown():
    doc = make_doc()   # its runs have no costs
    found = with_regime(doc, condition("server_read_bytes_per_trx", statistic="value"))
    check = found["points"][1]["stats"]["regime"]
    assert check == {"reached": False, "checks": [{"condition": 0, "value": None, "ok": False}]}
    assert verdicts(found) == {"innodb_doublewrite=OFF": stats.REGIME_NOT_REACHED}


def test_a_result_without_conditions_keeps_its_verdicts_and_schema():
    doc = document.recompute(copy.deepcopy(REDO))
    assert all("regime" not in p["stats"] for p in doc["points"])
    found = with_regime(REDO, condition("checkpoint_fill_pct", ("at_least", 80.0), "max",
                                        "baseline"))
    found["regime"][0]["unit"] = "%"
    assert document.validate(found) == []


SMT_LAB = json.loads((DATA / "smt-lab" / "20261124T152606Z-48806fd0-quick-5e27f8a2.json"
                      ).read_text())


def test_a_point_is_held_to_what_its_guest_saw():
    def threads(bound):
        return {**condition("guest_threads_per_core", ("at_least", bound), "value", "point"),
                "point": "threads"}

    doc = with_regime(SMT_LAB, threads(2.0))
    shown = document.point(doc, "lab.topology=threads")["stats"]["regime"]
    assert shown == {"reached": True, "checks": [{"condition": 0, "value": 2.0, "ok": True}]}
    assert document.point(doc, "lab.topology=cores")["stats"]["regime"]["checks"] == []
    doc = with_regime(SMT_LAB, threads(3.0))   # more threads than the guest saw
    assert verdicts(doc)["lab.topology=threads"] == stats.REGIME_NOT_REACHED
    assert regime.describe(threads(2.0)).startswith(
        "the threads point's hardware threads per core the guest saw at least 2")
    lab = {"write_cache": "write through", "fio": {"fsync_per_s": 480.5}}
    assert regime.guest_value(lab, "guest_write_cache") == 0
    assert regime.guest_value(lab, "guest_fsyncs_per_s") == 480.5
    assert regime.guest_value({}, "guest_threads_per_core") is None


def test_a_condition_in_words():
    c = condition("server_read_bytes_per_trx", ("at_least", 16.0), "value", why="reads")
    c["unit"] = "KiB"
    assert regime.describe(c) == ("each point's bytes the server read per transaction at "
                                  "least 16 KiB (reads)")


@pytest.mark.parametrize("table, expected", [
    ('[[regime]]\nmetric = "nope"\nat_least = 1\nwhy = "w"\n',
     "regime[0].metric: 'nope' is not a metric the engine records"),
    ('[[regime]]\nmetric = "fsyncs_per_trx"\nstatistic = "max"\nat_least = 1\nwhy = "w"\n',
     "regime[0].statistic: fsyncs_per_trx is one number per run already"),
    ('[[regime]]\nmetric = "tps"\nstatistic = "mean"\nat_least = 1\nwhy = "w"\n',
     "regime[0].statistic: expected one of median, max, min, slope, drift"),
    ('[[regime]]\nmetric = "tps"\nat_least = 1\nat_most = 2\nwhy = "w"\n',
     "regime[0].at_least: expected exactly one of at_least and at_most"),
    ('[[regime]]\nmetric = "tps"\nat_least = 1\nof = "all"\nwhy = "w"\n',
     "regime[0].of: expected one of each, baseline"),
    ('[[regime]]\nmetric = "tps"\nat_least = 1\n', "regime[0].why: missing"),
    ('regime = "tps"\n', "regime: expected an array of tables"),
    ('[[regime]]\nmetric = "guest_threads_per_core"\nstatistic = "max"\nat_least = 2\n'
     'why = "w"\n', "regime[0].statistic: guest_threads_per_core is one number per run"),
    ('[[regime]]\nmetric = "tps"\nat_least = 1\nof = "each"\npoint = "ON"\nwhy = "w"\n',
     "regime[0].point: give either of or point, not both"),
    ('[[regime]]\nmetric = "tps"\nat_least = 1\npoint = "maybe"\nwhy = "w"\n',
     "regime[0].point: 'maybe' is not a value of the sweep"),
])
def test_a_bad_condition_names_its_key(tmp_path, table, expected):
    # a top-level key goes before the recipe's tables: after one, it would belong to it
    text = recipe_text() + "\n" + table if table.startswith("[[") else table + recipe_text()
    assert expected in load_error(tmp_path, text)


@pytest.mark.parametrize("dataset, expected", [
    ('shape = "disk-bound"\nbuffer_pool_size = "256M"\n',
     "dataset.memory_limit: 192M does not hold the buffer pool (buffer_pool_size = 256M)"),
    ('shape = "cpu-bound"\nmemory_limit = "128M"\n',
     "dataset.memory_limit: 128M does not hold the buffer pool (buffer_pool_size = 256M)"),
    ('shape = "disk-bound"\nmemory_limit = "lots"\n', "dataset.memory_limit:"),
])
def test_a_memory_limit_that_cannot_hold_the_pool_and_the_server_names_its_key(
        tmp_path, dataset, expected):
    assert expected in load_error(tmp_path, recipe_text(dataset="[dataset]\n" + dataset))


def test_a_result_is_held_to_the_conditions_its_recipe_declares():
    text = (REPO / "recipes" / "redo-size" / "recipe.toml").read_text()
    doc = copy.deepcopy(REDO)
    doc["recipe"]["text"] = text
    doc["regime"] = regime_declared = declared(text)
    assert [c["metric"] for c in regime_declared] == ["checkpoint_fill_pct",
                                                      "checkpoint_fill_pct", "tps"]
    assert forgery.check_regime(doc) == []
    doc["regime"] = doc["regime"][1:]   # the fill check dropped: the verdicts would stand
    assert "differ from the 3 its recipe's text declares" in forgery.check_regime(doc)[0]
    doc["variant"] = "tpcc"   # inherits the main experiment's
    doc["regime"] = regime_declared
    assert forgery.check_regime(doc) == []
