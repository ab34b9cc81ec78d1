"""The work directory's state file is untrusted input (issue 57): a file the lab did not write
stops lab.clean with one line and nothing undone, and an entry the lab could not have made in
this work directory (another device's queue setting, a cgroup outside the cgroup tree, a file
outside sandboxes/) is refused before anything is undone."""

import hashlib
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from helpers import REPO
from tuninglab import cli
from tuninglab.engine.host import workdir
from tuninglab.engine.host.ledger import FILE_NAME, Ledger
from tuninglab.engine.run.leftovers import undo_recorded
from tuninglab.engine.server import memory
from tuninglab.engine.storage import sandbox
from tuninglab.errors import UserError


@pytest.fixture
def wd(tmp_path):
    workdir.claim(tmp_path)
    return tmp_path


def write_state(wd: Path, content) -> bytes:
    raw = content if isinstance(content, bytes) else json.dumps(content).encode()
    (wd / FILE_NAME).write_bytes(raw)
    return raw


@pytest.mark.parametrize("content, why", [
    (b"{", "not JSON"),
    (b"\xff\xfe{}", "not JSON"),
    ([], 'an object with a "resources" list'),
    ({"resources": {"kind": "file"}}, 'an object with a "resources" list'),
    ({"resources": [3]}, "entry 1: expected an object"),
    ({"resources": [{"kind": "bomb", "path": "/"}]}, "entry 1: kind 'bomb' is not one of"),
    ({"resources": [{"kind": "file"}]}, "entry 1: a file entry needs a text 'path'"),
    ({"resources": [{"kind": "loop", "device": "/dev/loop0", "backing": 7}]},
     "entry 1: a loop entry needs a text 'backing'"),
    ({"resources": [{"kind": "dir", "path": "/x", "pid": "12"}]}, "pid is not a whole number"),
], ids=["truncated", "not utf-8", "a list", "resources not a list", "entry not an object",
        "unknown kind", "missing field", "field not text", "pid not a number"])
def test_a_malformed_state_file_is_one_line_and_kept(wd, content, why):
    raw = write_state(wd, content)
    with pytest.raises(UserError) as caught:
        cli.lab_clean(str(wd), say=lambda line: None)
    message = str(caught.value)
    assert str(wd / FILE_NAME) in message and why in message and "Nothing was undone" in message
    assert "\n" not in message
    assert (wd / FILE_NAME).read_bytes() == raw, "the file is kept for the user to look at"


def test_a_huge_state_file_is_refused_without_reading_it_whole(wd):
    (wd / FILE_NAME).write_bytes(b" " * (2 << 20))
    with pytest.raises(UserError, match="larger than 1024 KiB"):
        Ledger(wd).entries()


def test_lab_clean_prints_one_line_for_a_malformed_state_file(wd):
    write_state(wd, b'{"resources": [{"kind": "queue"}]}')
    out = subprocess.run([sys.executable, "-m", "invoke", "lab.clean", "--workdir", str(wd)],
                         capture_output=True, text=True, cwd=REPO)
    assert out.returncode != 0 and "Traceback" not in out.stderr
    assert "a queue entry needs a text 'path'" in out.stderr


def some_disk() -> str:
    """A block device of this host that is not a loop device (the root disk, say)."""
    disks = [d.name for d in Path("/sys/block").iterdir()
             if not d.name.startswith(("loop", "ram", "zram"))]
    if not disks:
        pytest.skip("no block device here but loop devices")
    return disks[0]


def test_a_queue_setting_of_a_device_the_ledger_did_not_attach_is_refused(wd):
    """An entry for the root disk's read-ahead wrote any device's setting."""
    disk = some_disk()
    setting = Path(f"/sys/block/{disk}/queue/read_ahead_kb")
    before = setting.read_text()
    write_state(wd, {"resources": [{"kind": "queue", "path": str(setting), "previous": "4"}]})
    with pytest.raises(UserError, match=rf"entry 1 \(queue\).*/dev/{disk} is not a device this "
                                        "ledger mounted .*. Nothing was undone"):
        undo_recorded(wd)
    assert setting.read_text() == before and len(Ledger(wd).entries()) == 1


def test_a_cgroup_outside_the_cgroup_tree_is_refused(wd, tmp_path_factory):
    """The containment check was lexical: /sys/fs/cgroup/../../<dir> passed."""
    place = hashlib.sha256(str(wd.resolve()).encode()).hexdigest()[:8]
    victim = tmp_path_factory.mktemp("victim") / f"tuninglab-{place}-run"
    victim.mkdir()
    sneaky = "/sys/fs/cgroup/../../.." + str(victim)
    assert Path(os.path.realpath(sneaky)) == victim
    write_state(wd, {"resources": [{"kind": "cgroup", "path": sneaky}]})
    with pytest.raises(UserError, match="is not directly under /sys/fs/cgroup/memory or "
                                        "/sys/fs/cgroup"):
        undo_recorded(wd)
    assert victim.is_dir()
    with pytest.raises(UserError, match="not a cgroup the lab made"):
        memory.remove(Path(sneaky))
    assert victim.is_dir()


def test_one_forged_entry_and_nothing_is_undone(wd, tmp_path_factory):
    """The good entries before it are kept too: the file is refused whole."""
    image = wd / "sandboxes" / "box.img"
    image.parent.mkdir()
    image.write_bytes(b"a sandbox's image")
    precious = tmp_path_factory.mktemp("elsewhere") / "precious.img"
    precious.write_bytes(b"keep me")
    write_state(wd, {"resources": [{"kind": "file", "path": str(image)},
                                   {"kind": "file", "path": str(precious)}]})
    with pytest.raises(UserError, match=rf"entry 2 \(file\).*{precious} is not directly in"):
        undo_recorded(wd)
    assert image.exists() and precious.read_bytes() == b"keep me"


@pytest.mark.parametrize("entry, why", [
    ({"kind": "file", "path": "{wd}/sandboxes/../../etc.img"}, "is not directly in"),
    ({"kind": "file", "path": "{wd}/sandboxes/notes.txt"}, "is not a sandbox's image"),
    ({"kind": "dir", "path": "{wd}"}, "is not directly in"),
    ({"kind": "mount", "path": "/home", "device": "/dev/sda1"}, "is not directly in"),
    ({"kind": "mount", "path": "{wd}/sandboxes/box", "device": "tmpfs"},
     "tmpfs is not a device under /dev"),
    ({"kind": "loop", "device": "/dev/sda", "backing": "{wd}/sandboxes/box.img"},
     "/dev/sda is not a loop device"),
    ({"kind": "queue", "path": "/sys/block/loop0/queue/nr_requests", "previous": "1"},
     "is not a block queue setting"),
    ({"kind": "queue", "path": "/sys/block/loop0/queue/scheduler", "previous": "none\nx"},
     "is not a scheduler value"),
], ids=["dotdot out of sandboxes", "not an image", "the work directory itself",
        "a mount elsewhere", "a mount of no device", "a loop entry for a disk",
        "another queue file", "a scheduler that is not a name"])
def test_what_a_sandbox_could_not_have_made_is_refused(wd, entry, why):
    entry = {k: v.replace("{wd}", str(wd)) for k, v in entry.items()}
    assert why in sandbox.refusal(entry, [entry], wd)


def test_what_a_sandbox_makes_passes(wd):
    box = wd / "sandboxes" / "storage.filesystem=ext4-r1"
    entries = [{"kind": "file", "path": f"{box}.img"},
               {"kind": "loop", "device": "/dev/loop7", "backing": f"{box}.img"},
               {"kind": "dir", "path": str(box)},
               {"kind": "mount", "path": str(box), "device": "/dev/loop7"},
               {"kind": "queue", "path": "/sys/block/loop7/queue/scheduler",
                "previous": "mq-deadline"},
               {"kind": "queue", "path": "/sys/block/loop7/queue/read_ahead_kb",
                "previous": "128"}]
    assert [sandbox.refusal(e, entries, wd) for e in entries] == [None] * len(entries)
    place = hashlib.sha256(str(wd.resolve()).encode()).hexdigest()[:8]
    assert memory.refusal(f"/sys/fs/cgroup/tuninglab-{place}-run", wd) is None
    assert "not named for this work directory" in memory.refusal(
        "/sys/fs/cgroup/tuninglab-00000000-run", wd)
