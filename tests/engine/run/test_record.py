"""The result document's record of the command line: --repeats, --duration and --warmup, where
they change what the profile gives, are kept in plan/overrides (data.check accepts a plan other
than the profile's only there)."""

from tuninglab.engine.run import record
from tuninglab.recipes.load import load


def test_only_what_the_command_line_changed_is_recorded():
    recipe = load("doublewrite")  # quick: 20 s warm-up, 20 s measured, 5 repeats
    assert record._overrides(recipe.experiment("quick")) == {}
    assert record._overrides(recipe.experiment("quick", repeats=5, warmup="20s")) == {}
    assert record._overrides(recipe.experiment("quick", repeats=3, duration="30s")) == {
        "overrides": {"repeats": 3, "duration_s": 30.0}}
    assert record._overrides(recipe.experiment("full", warmup="1s")) == {
        "overrides": {"warmup_s": 1.0}}


def test_a_scan_takes_no_seconds_from_the_command_line():
    scan = load("read-ahead")  # its main experiment: a cold full scan, timed once per run
    assert record._overrides(scan.experiment("quick", duration="30s", warmup="1s")) == {}


def test_a_fallback_to_restart_is_recorded_with_the_settings_it_names():
    assert record.fallback("MariaDB 10.11 reads innodb_doublewrite only at startup",
                           ["innodb_doublewrite"]) == {
        "from": "switchback", "reason": "MariaDB 10.11 reads innodb_doublewrite only at startup",
        "startup_only": ["innodb_doublewrite"]}
    assert record.fallback("x" * 400, []) == {"from": "switchback", "reason": "x" * 300}


def test_a_lab_vm_run_records_where_its_images_kernel_came_from():
    finished = {"lab": {"kernel": "6.12.95+deb12-cloud-amd64"}}
    record.lab_image(finished, {"suite": "bookworm", "backports": True, "flavour": "cloud-amd64"})
    assert finished["lab"]["kernel_from"] == "bookworm-backports"
    record.lab_image(finished, {"suite": "bookworm", "backports": False})
    assert finished["lab"]["kernel_from"] == "bookworm"
