"""A scan's dataset sized to the named disk it reads from (recipes/scan_size.py,
engine/run/sizing.py): issue 59, the 2008 scans read 13 GB from one disk for minutes."""

import dataclasses
import json

import pytest

from tuninglab.contrib import experiment as contrib_experiment
from tuninglab.engine.run import record, sizing
from tuninglab.evidence import claim_status, claim_verdicts, claims_map
from tuninglab.errors import UserError
from tuninglab.recipes import plan as planner
from tuninglab.recipes import scan_size
from tuninglab.recipes.load import load

GIB = 2**30


def scan():
    return load("io-schedulers", variant="scan").experiment("full")


def test_the_scan_variant_asks_for_a_90_s_scan_and_is_unsized_until_a_disk_is_named():
    d = scan().dataset
    assert d.read_seconds == 90 and d.device_read_mib_s is None
    assert load("io-schedulers").experiment("full").dataset.read_seconds is None
    assert "only on a named disk" in planner._dataset_text(d)


def test_the_tables_grow_until_a_scan_at_the_disks_rate_lasts_read_seconds():
    d = scan().dataset
    sized = scan_size.sized(d, 150.0)  # a SATA drive
    scanned = sized.tables * sized.table_size * scan_size.SCAN_ROW_BYTES
    assert scanned / (150 * 2**20) == pytest.approx(90, rel=0.001)
    assert 12 * GIB < scanned < 14 * GIB and sized.device_read_mib_s == 150.0
    assert scan_size.sized(d, 0.01).table_size == d.table_size  # never below the shape
    assert "at the device's 150 MiB/s" in planner._dataset_text(sized)


def test_a_sized_scan_fits_the_disk_or_is_refused_naming_what_it_needs():
    e = scan()
    sized = sizing.sized(e, "/dev/sdz", "/nonexistent", mib_s=150.0, capacity=100 * GIB)
    assert sized.dataset.table_size > e.dataset.table_size
    with pytest.raises(UserError, match=r"/dev/sdz: a 90 s scan at its 3000 MiB/s .*"
                                        r"more than 80% of its 100.0 GiB"):
        sizing.sized(e, "/dev/sdz", "/nonexistent", mib_s=3000.0, capacity=100 * GIB)
    plain = load("io-schedulers").experiment("full")
    assert sizing.sized(plain, "/dev/sdz", "/nonexistent", mib_s=3000.0, capacity=1) is plain


def test_the_rate_is_measured_once_per_disk_and_work_directory(tmp_path, monkeypatch):
    monkeypatch.setattr(sizing, "device_bytes", lambda device: 500 * GIB)
    measured = []

    def fio(device):
        measured.append(device)
        return 151.234

    assert sizing.remembered_rate("/dev/sdz", tmp_path, fio) == 151.2
    assert sizing.remembered_rate("/dev/sdz", tmp_path, fio) == 151.2
    assert measured == ["/dev/sdz"]  # a resumed run sizes its tables as the first did
    (tmp_path / sizing.RATES).write_text("not JSON")
    assert sizing.remembered_rate("/dev/sdz", tmp_path, fio) == 151.2 and len(measured) == 2


FIO = {"fio version": "fio-3.33", "jobs": [{"error": 0, "read": {"bw_bytes": 157286400}}]}


def test_fios_read_rate_is_read_from_its_json_report():
    assert sizing.parse_read_mib_s("note: a warning\n" + json.dumps(FIO), "/dev/sdz") == 150.0
    with pytest.raises(UserError, match="holds no read rate"):
        sizing.parse_read_mib_s("fio: oops", "/dev/sdz")
    empty = {"jobs": [{"error": 5, "read": {"bw_bytes": 0}}]}
    with pytest.raises(UserError, match="read nothing from /dev/sdz"):
        sizing.parse_read_mib_s(json.dumps(empty), "/dev/sdz")


def test_a_sized_dataset_is_recorded_and_a_contribution_checked_against_its_rate():
    d = scan_size.sized(scan().dataset, 150.0)
    recorded = record.dataset_description(d)
    assert recorded["table_size"] == d.table_size and recorded["device_read_mib_s"] == 150.0
    assert recorded["read_seconds"] == 90
    assert contrib_experiment.dataset_description(scan().dataset, recorded) == recorded
    unsized = record.dataset_description(scan().dataset)
    assert "device_read_mib_s" not in unsized
    assert contrib_experiment.dataset_description(scan().dataset, unsized) == unsized
    wrong = dataclasses.replace(d, table_size=d.table_size + 1)
    assert record.dataset_description(wrong) != contrib_experiment.dataset_description(
        scan().dataset, recorded)


def test_the_2008_scan_is_answered_only_on_a_named_disk_and_claims_rerun_leaves_it():
    disk = claim_verdicts.named_disk_only("io-schedulers", "scan")
    assert disk.endswith("invoke recipe io-schedulers --variant scan --device /dev/sdX "
                         "--destroy-data")
    assert claim_verdicts.named_disk_only("io-schedulers", "") == ""
    claim = next(c for c in claims_map.load_map()[0] if c.id == "scan2008-cfq-vs-noop")
    found = claim_status.status(claim)
    assert found.block == claim_status.NOT_HERE and not found.open
    assert found.why == f"answered {disk}"
