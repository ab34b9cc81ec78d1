"""Unit tests for engine.workdir.check_place and held(): a work directory that cannot be one
is named with what it is, not with the errno mkdir or open gives."""

from pathlib import Path

import pytest

from tuninglab.engine.host import workdir
from tuninglab.errors import UserError

MOUNTINFO = """\
22 27 0:21 / /proc rw,relatime - proc proc rw
23 27 0:22 / /sys rw,relatime - sysfs sysfs rw
27 1 8:1 / / rw,relatime - ext4 /dev/sda1 rw
30 27 0:25 / /tmp rw,nosuid shared:5 - tmpfs tmpfs rw
31 30 7:0 / /tmp/my\\040disk rw - xfs /dev/loop0 rw
32 27 0:26 / /srv rw - ext4 /dev/sdb1 rw
33 27 0:27 / /srv rw - btrfs /dev/sdc1 rw
"""


@pytest.mark.parametrize("path, kind", [
    ("/", "ext4"), ("/home/me/work", "ext4"), ("/proc", "proc"), ("/proc/self", "proc"),
    ("/sys/kernel", "sysfs"), ("/tmp/x", "tmpfs"), ("/tmp/my disk/work", "xfs"),
    ("/tmp/my diskette", "tmpfs"), ("/srv/w", "btrfs"),  # the latest mount over /srv
])
def test_filesystem_type(path, kind):
    assert workdir.filesystem_type(Path(path), MOUNTINFO) == kind


@pytest.mark.parametrize("path", ["/proc", "/proc/sys/kernel", "/sys", "/sys/new/dir"])
def test_a_virtual_filesystem_is_refused(path):
    with pytest.raises(UserError) as info:
        workdir.check_place(path)
    assert str(info.value).startswith(f"work directory {path}: a virtual filesystem (")
    assert "expected a directory on a real filesystem you can write" in str(info.value)


def test_a_file_is_refused(tmp_path):
    (tmp_path / "f").write_text("x")
    with pytest.raises(UserError, match=r"work directory .*/f: is a file, expected a directory"):
        workdir.check_place(tmp_path / "f")


def test_a_path_below_a_file_is_refused(tmp_path):
    (tmp_path / "f").write_text("x")
    with pytest.raises(UserError, match=r"/f/sub/dir: is below the file .*/f, expected a "
                                        r"directory"):
        workdir.check_place(tmp_path / "f" / "sub" / "dir")


def test_a_new_or_existing_directory_passes(tmp_path):
    workdir.check_place(tmp_path)
    workdir.check_place(tmp_path / "new" / "deeper")


@pytest.mark.parametrize("place", ["/proc", "file"])
def test_held_says_what_the_place_is(tmp_path, place):
    if place == "file":
        (tmp_path / "file").write_text("")
        place = tmp_path / "file"
    with pytest.raises(UserError) as info, workdir.held(place):
        pass
    assert "No such file" not in str(info.value) and "File exists" not in str(info.value)
    assert str(info.value).startswith(f"work directory {place}: ")


def test_held_still_locks_a_good_directory(tmp_path):
    with workdir.held(tmp_path / "w") as path:
        assert (path / ".lock").is_file()
