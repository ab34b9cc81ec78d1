"""The variants and regime checks issue 37's corrected claims rest on (recipes kernels:pti,
io-schedulers:scan, logs-separate, swap:cpu-bound, native-aio:buffered): each loads, plans
and holds its points to the conditions the claim needs; the [lab] pti key is checked as
mitigations is."""

import pytest

from helpers import load_error, recipe_text
from tuninglab.recipes import plan
from tuninglab.recipes.lab import lab_problem
from tuninglab.recipes.load import load


def conditions(recipe) -> list[dict]:
    return [dict(c) for c in recipe.regime]


def test_the_pti_variant_boots_pti_on_against_off_and_checks_isolation_at_both():
    r = load("kernels", variant="pti")
    assert (r.sweep.setting, r.sweep.values, r.sweep.baseline) == ("lab.pti", ("on", "off"), "on")
    points = {p.id: p for p in plan.build(r.experiment("quick")).points}
    assert {pid: p.lab["pti"] for pid, p in points.items()} == {"lab.pti=on": "on",
                                                                 "lab.pti=off": "off"}
    pti = [c for c in conditions(r) if c["metric"] == "guest_pti"]
    assert [(c["of"], c.get("at_least"), c.get("at_most")) for c in pti] == [
        ("baseline", 1.0, None), ("point", None, 0.0)]
    # the main experiment's checks stay: the data in the pool, the throughput steady
    assert {"server_read_bytes_per_trx", "tps"} <= {c["metric"] for c in conditions(r)}


def test_pti_takes_the_kernels_values_only_and_never_on_with_mitigations_off(tmp_path):
    assert lab_problem("pti", "on") is None and lab_problem("pti", "auto") is None
    assert "expected one of auto, on, off, got 'yes'" in lab_problem("pti", "yes")
    lab = '[lab]\nkernel = "cloud-amd64"\nmitigations = "off"\npti = "on"\n'
    message = load_error(tmp_path, recipe_text() + "\n" + lab)
    assert "lab.pti: pti = \"on\" with mitigations = \"off\"" in message
    message = load_error(tmp_path, recipe_text() + '\n[lab]\npti = "maybe"\n')
    assert "lab.pti: expected one of auto, on, off, got 'maybe'" in message


def test_the_scheduler_scan_must_read_its_table_from_the_device_for_a_minute():
    r = load("io-schedulers", variant="scan")
    device, minute = conditions(r)
    assert (device["metric"], device["at_least"], device["of"], device["statistic"]) == (
        "scan_device_read_pct", 90.0, "each", "value")
    assert (minute["metric"], minute["at_least"], minute["of"]) == ("scan_seconds", 60.0, "each")
    assert conditions(load("io-schedulers"))[0]["metric"] == "server_read_bytes_per_trx"


def test_logs_separate_holds_the_separate_point_to_two_physical_disks():
    r = load("logs-separate")
    [c] = [c for c in conditions(r) if c["metric"] == "logs_shared_disk"]
    assert (c["at_most"], c["of"], c["point"]) == (0.0, "point", "separate")


def test_the_cpu_bound_swap_variant_keeps_the_memory_short_and_the_data_in_the_pool():
    r = load("swap", variant="cpu-bound")
    e = r.experiment("quick")
    assert e.dataset.shape == "cpu-bound" and r.sweep.setting == "lab.swap"
    assert dict(r.lab)["memory"] == "768M"
    assert dict(r.server_settings)["innodb_flush_method"] == "fsync"
    found = {c["metric"]: c for c in conditions(r)}
    assert found["swap_out_per_s"]["of"] == "baseline"
    assert found["server_read_bytes_per_trx"]["at_most"] == 1.0


def test_native_aio_over_buffered_io_sets_fsync_on_both_points():
    r = load("native-aio", variant="buffered")
    points = plan.build(r.experiment("quick")).points
    assert [p.settings["innodb_use_native_aio"] for p in points] == ["ON", "OFF"]
    assert {p.settings["innodb_flush_method"] for p in points} == {"fsync"}
    main = plan.build(load("native-aio").experiment("quick")).points
    assert all("innodb_flush_method" not in p.settings for p in main)


@pytest.mark.parametrize("name, variant", [("kernels", "pti"), ("io-schedulers", "scan"),
                                           ("swap", "cpu-bound"), ("native-aio", "buffered"),
                                           ("logs-separate", "")])
def test_each_plans_for_both_profiles(name, variant):
    r = load(name, variant=variant)
    for profile in ("full", "quick"):
        assert len(plan.build(r.experiment(profile)).points) == 2 or name == "io-schedulers"
