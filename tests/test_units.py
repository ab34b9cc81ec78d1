"""Unit tests for tuninglab.units: durations, sizes and the human-readable time."""

import re

import pytest

from tuninglab import units


@pytest.mark.parametrize("value,expected", [
    ("30s", 30.0), ("2m", 120.0), ("1.5h", 5400.0), ("250ms", 0.25), ("45", 45.0),
    (" 10 s ", 10.0), ("0", 0.0), (0, 0.0), (12, 12.0), (2.5, 2.5), ("0.5m", 30.0),
    ("1h30m", 5400.0), ("2m05s", 125.0), ("1h02m30s", 3750.0), ("2h10m", 7800.0),
    ("1h30s", 3630.0),
])
def test_seconds(value, expected):
    result = units.seconds(value)
    assert result == expected
    assert isinstance(result, float)


@pytest.mark.parametrize("value", ["", "s", "soon", "-5s", "5 min", "1d", "1,5s", "5S", "1e3",
                                   "1m1h", "1h30ms", "1.5h30m", "h", "1h 30m", True, False, -1, -0.5, None])
def test_seconds_rejects(value):
    with pytest.raises(ValueError):
        units.seconds(value)


@pytest.mark.parametrize("value,expected", [
    ("48M", 48 * 2**20), ("2G", 2 * 2**30), ("1T", 2**40), ("16K", 16384), ("16k", 16384),
    ("64MB", 64 * 2**20), ("64mb", 64 * 2**20), ("4096", 4096), (4096, 4096), ("512B", 512),
    (" 8M ", 8 * 2**20), ("0", 0),
])
def test_size_bytes(value, expected):
    assert units.size_bytes(value) == expected


@pytest.mark.parametrize("value", ["", "M", "1.5G", "-1M", "64 megabytes", "2P", True, None, 1.5])
def test_size_bytes_rejects(value):
    with pytest.raises(ValueError):
        units.size_bytes(value)


def test_size_bytes_rejects_negative_int():
    with pytest.raises(ValueError):
        units.size_bytes(-5)


def test_human_seconds_reads_back():
    """What the tools print (an estimate, a time left) can be typed back as a --budget."""
    for total in (45, 185, 3600, 5400, 9240):
        assert units.seconds(units.human_seconds(total)) == total


@pytest.mark.parametrize("total,expected", [
    (0, "0s"), (45, "45s"), (59.4, "59s"), (59.6, "1m00s"), (60, "1m00s"), (185, "3m05s"),
    (3599, "59m59s"), (3599.6, "1h00m"), (3600, "1h00m"), (3720, "1h02m"), (3779, "1h02m"),
    (90000, "25h00m"),
])
def test_human_seconds(total, expected):
    assert units.human_seconds(total) == expected


def test_human_seconds_matches_its_format():
    for total in range(0, 8000, 37):
        assert re.fullmatch(r"\d+s|\d+m\d\ds|\d+h\d\dm", units.human_seconds(total))


@pytest.mark.parametrize("value,expected", [
    (100663296, "96M"), (1073741824, "1G"), (16777216, "16M"), (3 * 1024**4, "3T"),
    (1536, "1536"), (1000, "1000"), (0, "0"), ("48M", "48M"),
])
def test_human_size(value, expected):
    assert units.human_size(value) == expected
    assert units.size_bytes(units.human_size(value)) == units.size_bytes(value)


@pytest.mark.parametrize("value,like,expected", [
    ("67108864", "16M", "64M"), (67108864, "16M", "64M"), ("10000", "200", "10000"),
    ("O_DIRECT", "fsync", "O_DIRECT"), ("1000", "1G", "1000"), ("ON", "16M", "ON"),
])
def test_shown_like(value, like, expected):
    """A size read back in bytes is written as the size it is compared with; nothing else is
    touched (a count beside a count stays a count)."""
    assert units.shown_like(value, like) == expected
