"""Each run's own record of a swept array, lab VM, storage or workload setting is its point's
(contrib/readback.read_back): raid level, state and layout as mdadm read them, the guest's swap,
the booted kernel's source, the mount options in force, the redo log's own sandbox, the
server's COMMITs. A committed result changed one way is refused with a line naming the run."""

import json

import pytest

from helpers import DATA, result_problems as problems_of
from tuninglab.contrib import design, readback

RAID_LEVEL = DATA / "raid-level" / "20261124T063757Z-48806fd0-quick-e12ffdcd.json"
RAID_STATE = DATA / "raid-degraded" / "20261124T072805Z-48806fd0-quick-8c18b80e.json"
NESTED = DATA / "raid10" / "20261124T145943Z-48806fd0-quick-68fa5f20.json"
LAYOUTS = DATA / "raid10" / "20261124T150325Z-48806fd0-quick-layouts-06808c37.json"
SWAP = DATA / "swap" / "20261124T143448Z-48806fd0-quick-dd98161d.json"
MOUNT = DATA / "mount-options" / "20261123T123209Z-341b2f15-quick-dfa56e34.json"
LOGS = DATA / "logs-separate" / "20261123T122834Z-341b2f15-quick-c19822f2.json"
KERNELS = DATA / "kernels" / "20261124T185424Z-48806fd0-quick-versions-89bb6c37.json"
COMMIT = DATA / "commit-batching" / "20261124T045625Z-48806fd0-quick-11930fdc.json"


def doc_of(path):
    return json.loads(path.read_text())


def one_line(tmp_path, doc):
    path, problems = problems_of(tmp_path, doc)
    return [line.removeprefix(f"{path}: ") for line in problems]


@pytest.mark.parametrize("base", [RAID_LEVEL, RAID_STATE, NESTED, LAYOUTS, SWAP, MOUNT, LOGS,
                                  KERNELS, COMMIT])
def test_the_bases_pass(tmp_path, base):
    assert problems_of(tmp_path, doc_of(base))[1] == []


def test_an_array_of_another_level(tmp_path):
    doc = doc_of(RAID_LEVEL)
    doc["points"][1]["runs"][0]["raid"]["level"] = "raid10"  # point raid.level=0
    assert one_line(tmp_path, doc) == [
        "points/1/runs/0/raid/level: 'raid10'; expected 'raid0', what point raid.level=0 ran "
        "with"]


def test_nested_levels_read_as_their_top_array(tmp_path):
    doc = doc_of(NESTED)   # 1+0: a RAID0 over mirrors; 0+1: a mirror of stripes
    doc["points"][0]["runs"][1]["raid"]["level"] = "raid1"
    assert one_line(tmp_path, doc) == [
        "points/0/runs/1/raid/level: 'raid1'; expected 'raid0', what point raid.level=1_0 ran "
        "with"]


def test_a_raid10_layout_as_mdadm_numbers_it(tmp_path):
    assert [readback._raid_layout(v) for v in ("n2", "f2", "o2")] == ["258", "513", "66049"]
    doc = doc_of(LAYOUTS)
    doc["points"][1]["runs"][0]["raid"]["layout"] = "258"   # point f2 read back as n2
    assert one_line(tmp_path, doc) == [
        "points/1/runs/0/raid/layout: '258'; expected '513', what point raid.layout=f2 ran with"]


def test_a_degraded_array_with_no_failed_member(tmp_path):
    doc = doc_of(RAID_STATE)
    doc["points"][1]["runs"][0]["raid"]["after"]["degraded"] = 0   # point degraded
    doc["points"][0]["runs"][0]["raid"]["state"] = "degraded"      # point normal
    assert one_line(tmp_path, doc) == [
        "points/0/runs/0/raid/state: 'degraded'; expected 'normal', what point "
        "raid.state=normal ran with",
        "points/1/runs/0/raid/after/degraded: 0; expected 'at least 1 failed member', what "
        "point raid.state=degraded ran with"]


def test_a_guest_without_the_swap_its_point_gives(tmp_path):
    doc = doc_of(SWAP)
    doc["points"][0]["runs"][1]["lab"]["swap_bytes"] = 0   # point 1G
    assert one_line(tmp_path, doc) == [
        "points/0/runs/1/lab/swap_bytes: 0; expected '1073741824 bytes less the swap header', "
        "what point lab.swap=1G ran with"]


def test_mount_options_not_in_force(tmp_path):
    doc = doc_of(MOUNT)
    doc["points"][2]["runs"][0]["storage"]["mount_options"] = "rw,relatime"  # nobarrier
    doc["points"][0]["runs"][1]["storage"]["mount_options"] = "rw,noatime"   # defaults
    assert one_line(tmp_path, doc) == [
        "points/0/runs/1/storage/mount_options: 'rw,noatime'; expected 'defaults', what point "
        "storage.mount_options=defaults ran with",
        "points/2/runs/0/storage/mount_options: 'rw,relatime'; expected 'nobarrier', what point "
        "storage.mount_options=nobarrier ran with"]


def test_a_separate_redo_log_on_the_datas_device_or_none(tmp_path):
    doc = doc_of(LOGS)
    separate = doc["points"][1]["runs"][0]
    separate["logs_storage"]["device"] = separate["storage"]["device"]
    doc["points"][0]["runs"][0]["logs_storage"] = separate["logs_storage"]
    assert one_line(tmp_path, doc) == [
        "points/0/runs/0/logs_storage: 'a sandbox of its own'; expected 'none (the redo log "
        "beside the data)', what point storage.logs=same ran with",
        "points/1/runs/0/logs_storage/device: 'loop0'; expected 'a device other than "
        "storage/device', what point storage.logs=separate ran with"]


@pytest.fixture
def recorded(monkeypatch):
    """The rules for a file made by today's engine (the committed ones predate them)."""
    monkeypatch.setattr(design, "RECORDS_FALLBACK_FROM", "2026-11-01T00:00:00+00:00")


def test_the_kernels_source_is_required_and_read_back(tmp_path, recorded):
    doc = doc_of(KERNELS)
    lines = one_line(tmp_path, doc)
    assert lines[0] == ("points/0/runs/0/lab/kernel_from: missing (and in 1 more runs of the "
                        "point); expected 'bookworm', what point lab.kernel_from=bookworm ran "
                        "with")
    for point in doc["points"]:
        for run in point["runs"]:
            run["lab"]["kernel_from"] = point["value"]
    assert one_line(tmp_path, doc) == []
    doc["points"][1]["runs"][0]["lab"]["kernel_from"] = "bookworm"
    assert one_line(tmp_path, doc) == [
        "points/1/runs/0/lab/kernel_from: 'bookworm'; expected 'bookworm-backports', what "
        "point lab.kernel_from=bookworm-backports ran with"]


def statements(value, seconds=20.0, clients=1, rate=1000):
    inserts = int(rate * seconds)
    if value == "statement":
        return {"com_commit": 0, "com_insert": inserts, "seconds": seconds}
    if value == "1s":
        return {"com_commit": int(clients * seconds), "com_insert": inserts, "seconds": seconds}
    return {"com_commit": inserts // int(value), "com_insert": inserts, "seconds": seconds}


def test_the_servers_commits_are_required_and_read_back(tmp_path, recorded):
    doc = doc_of(COMMIT)
    assert one_line(tmp_path, doc)[0].startswith("points/0/runs/0/statements: missing")
    for point in doc["points"]:
        for run in point["runs"]:
            run["statements"] = statements(point["value"])
    assert one_line(tmp_path, doc) == []
    doc["points"][1]["runs"][0]["statements"] = statements("statement")   # point 100
    doc["points"][0]["runs"][0]["statements"] = statements("100")         # point statement
    doc["points"][2]["runs"][0]["statements"] = statements("100")         # point 1s
    lines = one_line(tmp_path, doc)
    assert [line.split(":")[0] for line in lines] == [
        "points/0/runs/0/statements", "points/1/runs/0/statements", "points/2/runs/0/statements"]
    assert "expected 'a COMMIT per 100 INSERTs', what point workload.commit=100 ran with" in \
        lines[1]
