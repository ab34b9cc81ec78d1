"""data.check and a run's loop-device fields (engine/storage/loop.py): loop_direct_io and the
loop's logical sector are accepted, a loop_direct_io that is not a bool, or claimed by a run
without a loop device's backing file, is refused with its path."""

import json

from helpers import DATA, result_problems

SANDBOXED = DATA / "read-ahead" / "20261124T050608Z-48806fd0-quick-oltp-e992a41d.json"


def doc_with(**fields) -> dict:
    doc = json.loads(SANDBOXED.read_text())
    doc["points"][0]["runs"][0]["storage"].update(fields)
    return doc


def test_the_loop_fields_are_accepted(tmp_path):
    _, problems = result_problems(tmp_path, doc_with(loop_direct_io=True, logical_block_size=512))
    assert problems == []


def test_loop_direct_io_must_be_a_bool(tmp_path):
    path, problems = result_problems(tmp_path, doc_with(loop_direct_io="yes"))
    assert problems == [f"{path}: points/0/runs/0/storage/loop_direct_io: 'yes' is not of "
                        "type 'boolean'"]


def test_only_a_loop_device_claims_direct_io(tmp_path):
    path, problems = result_problems(tmp_path, doc_with(loop_direct_io=True, backing_file=None))
    assert problems == [f"{path}: points/0/runs/0/storage/backing_file: None is not of type "
                        "'string'"]


def test_a_logical_sector_is_a_whole_number_of_bytes(tmp_path):
    path, problems = result_problems(tmp_path, doc_with(logical_block_size=100))
    assert problems == [f"{path}: points/0/runs/0/storage/logical_block_size: 100 is less "
                        "than the minimum of 512"]
