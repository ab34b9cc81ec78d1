import subprocess
from types import SimpleNamespace

import pytest

from helpers import FIXTURES
from tuninglab.engine.measure import device_baseline
from tuninglab.errors import UserError


def test_parse_fsync_json():
    result = device_baseline.parse_fio_json((FIXTURES / "fio_fsync.json").read_text())
    assert result["fio_version"] == "3.33"
    assert result["error"] == 0
    assert result["write_ios"] > 0
    # every write is followed by an fsync
    assert result["fsync_per_s"] == pytest.approx(result["write_iops"], rel=0.01)


def test_parse_randwrite_json_with_leading_warning():
    text = (FIXTURES / "fio_randwrite.json").read_text()
    result = device_baseline.parse_fio_json("fio: some warning\n" + text)
    assert result["write_iops"] > 0 and result["write_bw_bytes"] > 0
    assert result["fsync_per_s"] == 0


def test_parse_rejects_non_json():
    with pytest.raises(ValueError):
        device_baseline.parse_fio_json("fio: failed to load engine")


def test_fio_missing(tmp_path, monkeypatch):
    monkeypatch.setenv("PATH", "/nonexistent")
    with pytest.raises(UserError, match="apt-get install fio"):
        device_baseline.device_baseline(tmp_path, seconds=1, size_mb=1)
    assert list(tmp_path.iterdir()) == []


def test_fio_failure_reports_stderr(tmp_path, monkeypatch):
    def failing_run(argv, **kwargs):
        return subprocess.CompletedProcess(argv, 1, "", "fio: engine libaio not loadable\n")
    monkeypatch.setattr(device_baseline.subprocess, "run", failing_run)
    with pytest.raises(UserError, match="libaio not loadable"):
        device_baseline.device_baseline(tmp_path, seconds=1, size_mb=1)
    assert list(tmp_path.iterdir()) == []


def test_file_removed_on_keyboard_interrupt(tmp_path, monkeypatch):
    def interrupted(argv, **kwargs):
        raise KeyboardInterrupt
    monkeypatch.setattr(device_baseline.subprocess, "run", interrupted)
    with pytest.raises(KeyboardInterrupt):
        device_baseline.device_baseline(tmp_path, seconds=1, size_mb=1)
    assert list(tmp_path.iterdir()) == []


def test_falls_back_to_buffered_when_o_direct_refused(tmp_path, monkeypatch):
    calls = []

    def fake_run(argv, **kwargs):
        calls.append(argv)
        return subprocess.CompletedProcess(argv, 0, (FIXTURES / "fio_randwrite.json").read_text(), "")
    monkeypatch.setattr(device_baseline.subprocess, "run", fake_run)
    monkeypatch.setattr(device_baseline, "_accepts_o_direct", lambda path: False)
    result = device_baseline.device_baseline(tmp_path, seconds=1, size_mb=1)
    assert result["direct"] is False
    assert "--direct=0" in calls[1]


def test_not_enough_space(tmp_path, monkeypatch):
    usage = SimpleNamespace(free=10 * 1024 * 1024)
    monkeypatch.setattr(device_baseline.shutil, "disk_usage", lambda directory: usage)
    with pytest.raises(UserError, match=f"{tmp_path} has 10 MiB free"):
        device_baseline.device_baseline(tmp_path, seconds=1, size_mb=64)


def test_missing_directory(tmp_path):
    with pytest.raises(UserError, match="not a directory"):
        device_baseline.device_baseline(tmp_path / "nope")


def test_bad_arguments(tmp_path):
    with pytest.raises(ValueError):
        device_baseline.device_baseline(tmp_path, seconds=0)


@pytest.mark.integration
def test_device_baseline_real(tmp_path):
    result = device_baseline.device_baseline(tmp_path, seconds=1, size_mb=16)
    assert result["tool"] == "fio" and result["fio_version"]
    assert result["fsync_per_s"] > 0
    assert result["randwrite_16k_iops"] > 0
    assert isinstance(result["direct"], bool)
    assert result["seconds"] == 1 and result["size_mb"] == 16
    assert list(tmp_path.iterdir()) == []
