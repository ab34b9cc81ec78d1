import json
import os
import subprocess
from pathlib import Path

import pytest

from helpers import FIXTURES
from tuninglab.engine.host import devices
from tuninglab.engine.host.devices import DiskCounters
from tuninglab.errors import UserError


@pytest.fixture
def diskstats_text():
    return (FIXTURES / "diskstats.txt").read_text()


def test_diskstats_20_fields(diskstats_text):
    vda = devices.read_diskstats(["vda"], diskstats_text)["vda"]
    assert vda == DiskCounters(reads=53640, read_bytes=2922074 * 512, writes=320460,
                               write_bytes=9835336 * 512, flushes=38176, io_ms=13768)


def test_diskstats_14_and_18_fields_have_no_flushes(diskstats_text):
    stats = devices.read_diskstats(["sda", "sda1", "nvme0n1"], diskstats_text)
    assert stats["sda"] == DiskCounters(1200, 96000 * 512, 3400, 272000 * 512, 0, 4100)
    assert stats["sda1"].io_ms == 3900
    assert stats["nvme0n1"].flushes == 0
    assert stats["nvme0n1"].write_bytes == 56000 * 512


def test_diskstats_unknown_name(diskstats_text):
    with pytest.raises(KeyError, match="sdz"):
        devices.read_diskstats(["vda", "sdz"], diskstats_text)


def test_diskstats_live_and_delta():
    name = next(line.split()[2] for line in open("/proc/diskstats"))
    before = devices.read_diskstats([name])[name]
    after = devices.read_diskstats(name)[name]
    delta = after - before
    assert all(v >= 0 for v in vars(delta).values())
    assert DiskCounters(5, 10, 3, 6, 2, 9) - DiskCounters(1, 2, 1, 2, 1, 4) == \
        DiskCounters(4, 8, 2, 4, 1, 5)


def test_parse_scheduler():
    assert devices.parse_scheduler("none [mq-deadline] kyber bfq") == "mq-deadline"
    assert devices.parse_scheduler("[none] mq-deadline") == "none"
    assert devices.parse_scheduler("none") == "none"
    assert devices.parse_scheduler(None) is None


MOUNTINFO = r"""27 1 254:0 / / rw,relatime - ext4 /dev/vda rw,discard
40 27 8:1 / /data rw,noatime shared:5 - xfs /dev/sda1 rw,attr2
41 27 8:1 /mysql /srv/my\040db rw,noatime - xfs /dev/sda1 rw,attr2
25 24 0:23 / /dev/shm rw,relatime - tmpfs tmpfs rw,size=1k
30 25 0:27 / /dev/shm rw,relatime - tmpfs tmpfs rw,size=2k
"""


def test_find_mount_prefix_bind_and_stacked():
    mounts = devices.parse_mountinfo(MOUNTINFO)
    assert mounts[1]["options"] == "rw,noatime,attr2"
    assert devices.find_mount(mounts, "/data2/x", (254, 0))["mount_point"] == "/"
    assert devices.find_mount(mounts, "/data/x", (8, 1))["source"] == "/dev/sda1"
    bind = devices.find_mount(mounts, "/srv/my db/ibdata1", (8, 1))
    assert bind["mount_point"] == "/srv/my db"
    # Over-mounted /dev/shm: the later (visible) mount wins.
    assert devices.find_mount(mounts, "/dev/shm/x", (0, 27))["options"].endswith("2k")


def _findmnt(path):
    out = subprocess.run(["findmnt", "-J", "-T", str(path), "-o",
                          "TARGET,SOURCE,FSTYPE,OPTIONS"],
                         capture_output=True, text=True, check=True).stdout
    return json.loads(out)["filesystems"][-1]


@pytest.mark.integration  # runs findmnt
@pytest.mark.parametrize("where", ["tmp_path", "/"])
def test_storage_info_matches_findmnt(where, tmp_path):
    path = tmp_path if where == "tmp_path" else Path("/")
    info = devices.storage_info(path)
    expected = _findmnt(path)
    assert info["path"] == os.path.realpath(path)
    assert info["mount_point"] == expected["target"]
    assert info["source"] == expected["source"]
    assert info["filesystem"] == expected["fstype"]
    assert set(info["mount_options"].split(",")) == set(expected["options"].split(","))
    if info["device"] is None:  # e.g. overlay in a container
        assert info["disk"] is None and info["scheduler"] is None
        return
    assert os.path.exists(f"/sys/class/block/{info['device']}")
    assert os.path.exists(f"/sys/block/{info['disk']}")
    assert info["logical_block_size"] in (512, 1024, 2048, 4096)
    assert isinstance(info["rotational"], bool)
    assert info["read_ahead_kb"] >= 0
    if expected["source"].startswith("/dev/"):
        assert os.path.basename(os.path.realpath(expected["source"])) in \
            (info["device"], "root")


def test_storage_info_tmpfs_has_no_device():
    if not os.path.ismount("/dev/shm"):
        pytest.skip("no /dev/shm mount")
    info = devices.storage_info("/dev/shm")
    assert info["filesystem"] == "tmpfs"
    assert info["device"] is None and info["disk"] is None
    assert info["scheduler"] is None and info["rotational"] is None


def test_storage_info_missing_path(tmp_path):
    with pytest.raises(UserError, match="does not exist"):
        devices.storage_info(tmp_path / "nope")
