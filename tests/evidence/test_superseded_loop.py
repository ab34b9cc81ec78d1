"""A sandboxed result measured on a loop device attached buffered (through the host's page cache,
a second cache outside the memory cap) is superseded; one on a direct-IO loop device, on a named
device (--device), in the lab VM or without a sandbox is not (evidence/superseded.py)."""

import copy
import json

from helpers import DATA
from tuninglab.evidence.superseded import superseded_why

# Capped, of the current experiment: superseded only for its buffered loop device.
BUFFERED = DATA / "read-ahead" / "20261124T050608Z-48806fd0-quick-oltp-e992a41d.json"
NO_SANDBOX = DATA / "doublewrite" / "20261123T083311Z-a1011588-quick-5cbc0881.json"
LAB_VM = DATA / "kernels" / "20261124T062743Z-48806fd0-quick-9ea33d26.json"
REASON = "its loop device went through the host's page cache, a second cache outside the memory cap"


def load(path) -> dict:
    return json.loads(path.read_text())


def with_storage(doc: dict, **fields) -> dict:
    doc = copy.deepcopy(doc)
    for p in doc["points"]:
        for run in p["runs"]:
            run["storage"].update(fields)
    return doc


def test_a_result_on_a_buffered_loop_device_is_superseded_and_says_why():
    doc = load(BUFFERED)
    assert all(r["storage"]["backing_file"] for p in doc["points"] for r in p["runs"])
    assert superseded_why(doc).startswith(REASON)
    assert superseded_why(with_storage(doc, loop_direct_io=False)).startswith(REASON)


def test_a_result_on_a_direct_io_loop_device_is_current():
    assert superseded_why(with_storage(load(BUFFERED), loop_direct_io=True)) is None


def test_one_buffered_run_is_enough():
    doc = with_storage(load(BUFFERED), loop_direct_io=True)
    doc["points"][-1]["runs"][-1]["storage"]["loop_direct_io"] = False
    assert superseded_why(doc).startswith(REASON)


def test_a_named_device_the_lab_vm_and_no_sandbox_are_not_affected():
    assert superseded_why(with_storage(load(BUFFERED), backing_file=None)) is None
    assert superseded_why(load(NO_SANDBOX)) is None
    lab = load(LAB_VM)
    assert superseded_why(lab) is None
    for p in lab["points"]:  # even if a lab VM run carried a loop's storage, its disks are qemu's
        for run in p["runs"]:
            run["storage"] = {"sandbox": True, "backing_file": "/w/sandboxes/x.img"}
    assert superseded_why(lab) is None
