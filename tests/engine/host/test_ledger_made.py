"""The state file names only what the same ledger made (issue 77, item 3): a `mount` entry naming
any /dev/* made a `queue` entry for that device pass, and lab.clean "restored
/sys/block/loop0/queue/read_ahead_kb to 4096" on a loop device the lab never attached (or the
host's own disk). A mount's device must be a loop device a loop entry of the same ledger
attached to an image in sandboxes/, or a disk named with --device that the kernel has mounted
on the entry's mount point now; a queue entry only for such a device.

Crafted state files and mount tables only: no loop device is attached, nothing is mounted, and
a device named where lab.clean itself runs does not exist, so nothing can be written even if
a check failed."""

import json
from pathlib import Path

import pytest

from tuninglab import cli
from tuninglab.engine.host import workdir
from tuninglab.engine.host.ledger import FILE_NAME, Ledger
from tuninglab.engine.run.leftovers import undo_recorded
from tuninglab.engine.storage import sandbox
from tuninglab.errors import UserError

NOTHING_MOUNTED = ""


@pytest.fixture
def wd(tmp_path):
    workdir.claim(tmp_path)
    return tmp_path


def write_state(wd: Path, content) -> bytes:
    raw = json.dumps(content).encode()
    (wd / FILE_NAME).write_bytes(raw)
    return raw


def absent_loop() -> str:
    """A loop device this host does not have: a setting lab.clean wrongly restored on it would
    be written nowhere."""
    name = next((f"loop{n}" for n in range(4093, 4000, -1)
                 if not Path(f"/sys/block/loop{n}").exists()), None)
    if name is None:
        pytest.skip("every loop number tried exists here")
    return name


def mount_line(source: str, mount_point: Path, number: int = 40) -> str:
    """One /proc/self/mountinfo line (the kernel's format, no optional fields)."""
    return f"{number} 1 7:{number} / {mount_point} rw,relatime - ext4 {source} rw"


def loop_box(wd: Path, device: str = "/dev/loop7") -> list[dict]:
    """What a sandbox records, in its order: image, loop device, mount point, mount, queue."""
    box = wd / "sandboxes" / "box"
    return [{"kind": "file", "path": f"{box}.img"},
            {"kind": "loop", "device": device, "backing": f"{box}.img"},
            {"kind": "dir", "path": str(box)},
            {"kind": "mount", "path": str(box), "device": device},
            {"kind": "queue", "path": f"/sys/block/{Path(device).name}/queue/read_ahead_kb",
             "previous": "4096"}]


def forged(wd: Path, device: str) -> list[dict]:
    """The issue's file: a mount of any device in sandboxes/ and its read-ahead, no loop entry."""
    box = wd / "sandboxes" / "box"
    return [{"kind": "mount", "path": str(box), "device": device},
            {"kind": "queue", "path": f"/sys/block/{Path(device).name}/queue/read_ahead_kb",
             "previous": "4096"}]


def refusals(entries: list[dict], wd: Path, mountinfo: str = NOTHING_MOUNTED) -> list:
    return [sandbox.refusal(e, entries, wd, mountinfo) for e in entries]


@pytest.mark.parametrize("device", ["/dev/loop0", "/dev/vda"])
def test_a_mount_of_a_device_the_ledger_did_not_attach_is_refused_with_its_queue(wd, device):
    entries = forged(wd, device)
    mount_why, queue_why = refusals(entries, wd)
    assert mount_why == (f"{device} is neither a loop device this ledger attached (a loop "
                         f"entry) nor mounted on {wd}/sandboxes/box now (a disk named with "
                         "--device)")
    assert queue_why.startswith(f"{device} is not a device this ledger mounted")


def test_lab_clean_refuses_the_forged_file_in_one_line_and_writes_nothing(wd):
    """As the issue ran it, on a loop device this host lacks: one line, nothing undone."""
    entries = forged(wd, f"/dev/{absent_loop()}")
    raw = write_state(wd, {"resources": entries})
    with pytest.raises(UserError) as caught:
        cli.lab_clean(str(wd), say=lambda line: None)
    message = str(caught.value)
    assert message.startswith(f"{wd / FILE_NAME}: entry 1 (mount) is not one the lab makes in ")
    assert "is neither a loop device this ledger attached" in message
    assert "Nothing was undone" in message and "\n" not in message
    assert (wd / FILE_NAME).read_bytes() == raw
    assert len(Ledger(wd).entries()) == 2


def test_a_queue_entry_needs_the_mount_of_its_own_device(wd):
    """A loop device the ledger attached does not license another device's queue."""
    entries = loop_box(wd) + [{"kind": "queue", "path": "/sys/block/vda/queue/scheduler",
                               "previous": "none"}]
    assert refusals(entries, wd)[:-1] == [None] * 5
    assert refusals(entries, wd)[-1].startswith("/dev/vda is not a device this ledger mounted")


def test_a_loop_entry_needs_the_image_the_same_ledger_made(wd):
    entries = loop_box(wd)[1:]  # no file entry for its image
    why = refusals(entries, wd)[0]
    assert why == (f"this ledger made no image {wd}/sandboxes/box.img (a file entry) for "
                   "/dev/loop7")


def test_a_mount_of_a_loop_device_another_ledger_entry_names_is_still_refused(wd):
    """The loop entry must name the mount's own device."""
    entries = loop_box(wd, "/dev/loop7")
    entries[3] = {**entries[3], "device": "/dev/loop0"}
    entries[4] = {**entries[4], "path": "/sys/block/loop0/queue/read_ahead_kb"}
    assert refusals(entries, wd)[3].startswith("/dev/loop0 is neither a loop device")
    assert refusals(entries, wd)[4].startswith("/dev/loop0 is not a device this ledger mounted")


def test_what_a_loop_sandbox_records_passes(wd):
    assert refusals(loop_box(wd), wd) == [None] * 5


def test_a_named_disk_mounted_on_the_sandbox_now_passes(wd):
    """--device runs record no loop entry (sandbox._claim_device): the kernel's mount table is
    what shows the run mounted that disk there, and its queue settings are the run's."""
    box = wd / "sandboxes" / "dev"
    entries = [{"kind": "dir", "path": str(box)},
               {"kind": "mount", "path": str(box), "device": "/dev/sdb"},
               {"kind": "queue", "path": "/sys/block/sdb/queue/scheduler",
                "previous": "mq-deadline"}]
    table = "\n".join([mount_line("/dev/vda", Path("/")), mount_line("/dev/sdb", box, 41)])
    assert refusals(entries, wd, table) == [None] * 3
    elsewhere = mount_line("/dev/sdb", Path("/mnt/sdb"), 41)
    assert refusals(entries, wd, elsewhere)[1].startswith("/dev/sdb is neither")
    assert refusals(entries, wd, elsewhere)[2].startswith("/dev/sdb is not a device")


@pytest.mark.parametrize("lines, expected", [
    ([("/dev/sdb", "box")], True),
    ([("/dev/sdc", "box")], False),                      # another disk there
    ([("/dev/sdb", "box"), ("tmpfs", "box")], False),    # covered by a later mount
    ([("tmpfs", "box"), ("/dev/sdb", "box")], True),     # the topmost is the disk
    ([("/dev/sdb", "other")], False),                    # the disk mounted elsewhere
    ([], False),
])
def test_mounted_from_reads_the_topmost_mount(tmp_path, lines, expected):
    table = "\n".join(mount_line(source, tmp_path / where, 40 + n)
                      for n, (source, where) in enumerate(lines))
    assert sandbox.mounted_from(str(tmp_path / "box"), "/dev/sdb", table) is expected


def test_a_mount_point_with_a_space_is_read_as_the_kernel_escapes_it(tmp_path):
    box = tmp_path / "sand boxes" / "box"
    escaped = str(box).replace(" ", "\\040")
    table = f"40 1 7:40 / {escaped} rw,relatime - ext4 /dev/sdb rw"
    assert sandbox.mounted_from(str(box), "/dev/sdb", table)


def test_undo_recorded_reads_this_hosts_mount_table(wd):
    """Nothing is mounted on the work directory's sandboxes/ here: a named disk's entries are
    refused whole, before anything is undone."""
    entries = forged(wd, f"/dev/{absent_loop()}")
    write_state(wd, {"resources": entries})
    with pytest.raises(UserError, match=r"entry 1 \(mount\)"):
        undo_recorded(wd)
    assert Ledger(wd).entries() == entries
