"""The loop device's direct IO (engine/storage/loop.py) without attaching one: the sector size
chosen for it, what is read back, the sandbox's record of it, and the buffered fallback."""

from pathlib import Path

import pytest

from tuninglab.engine.storage import loop, sandbox


@pytest.mark.parametrize("alignment, sector", [
    (512, 512), (4096, 4096), (1024, 1024),
    (None, 512),    # unknown (tmpfs): the default; the kernel says whether it takes direct IO
    (0, 512),       # the filesystem has no O_DIRECT: the kernel will refuse it
    (8192, 512)])   # more than a loop device's sector can be: refused too
def test_the_sector_is_the_smallest_direct_io_accepts(monkeypatch, alignment, sector):
    monkeypatch.setattr(loop, "dio_alignment", lambda path: alignment)
    assert loop.sector_size(Path("x.img")) == sector


def test_the_alignment_of_a_real_file_is_its_filesystems(tmp_path):
    path = tmp_path / "f.img"
    path.write_bytes(b"")
    assert loop.dio_alignment(path) in (None, 0, *loop.SECTORS)


def test_direct_io_and_its_sector_are_asked_of_losetup_and_buffered_is_as_before():
    assert loop.attach_command(Path("/w/s.img"), 512) == [
        "losetup", "--find", "--show", "--direct-io=on", "--sector-size=512", "/w/s.img"]
    assert loop.attach_command(Path("/w/s.img"), None) == [
        "losetup", "--find", "--show", "/w/s.img"]


def fake_sys_block(root: Path, name="loop7", dio="1", sector=512, disk=True) -> Path:
    (root / name / "loop").mkdir(parents=True)
    (root / name / "queue").mkdir()
    (root / name / "loop" / "dio").write_text(f"{dio}\n")
    (root / name / "queue" / "logical_block_size").write_text(f"{sector}\n")
    (root / name / "queue" / "nr_requests").write_text("128\n")
    return root


def test_what_the_kernel_has_in_force_is_read_back(tmp_path):
    fake_sys_block(tmp_path, dio="0", sector=4096)
    assert loop.read_back("/dev/loop7", tmp_path) == {"direct_io": False,
                                                      "logical_block_size": 4096}


def a_box(tmp_path, monkeypatch, device=None, direct_io=True) -> sandbox.Sandbox:
    sys_block = fake_sys_block(tmp_path / "sys")
    monkeypatch.setattr(sandbox, "SYS_BLOCK", sys_block)
    monkeypatch.setattr(sandbox, "storage_info", lambda mount: {
        "disk": "loop7", "device": "loop7", "logical_block_size": 512})
    monkeypatch.setattr(sandbox.backing, "physical_disks", lambda device: ["vda"])
    monkeypatch.setattr(sandbox, "_device_bytes", lambda device: 2**30)
    box = sandbox.Sandbox(tmp_path / "wd", sandbox.Spec(), device=device)
    box.device = device or "/dev/loop7"
    box.direct_io = None if device else direct_io
    return box


def test_a_loop_sandbox_records_its_direct_io_and_sector(tmp_path, monkeypatch):
    box = a_box(tmp_path, monkeypatch)
    state = box.state()
    assert state["loop_direct_io"] is True and state["logical_block_size"] == 512
    assert state["backing_file"] == str(box.image) and not box.host_cached


def test_a_buffered_loop_is_host_cached_and_says_so(tmp_path, monkeypatch):
    box = a_box(tmp_path, monkeypatch, direct_io=False)
    (tmp_path / "sys" / "loop7" / "loop" / "dio").write_text("0\n")
    assert box.state()["loop_direct_io"] is False and box.host_cached


def test_a_named_device_records_neither_loop_field(tmp_path, monkeypatch):
    box = a_box(tmp_path, monkeypatch, device="/dev/sdz")
    state = box.state()
    assert "loop_direct_io" not in state and state["backing_file"] is None
    assert not box.host_cached  # a real disk: no second cache to drop


def test_direct_io_refused_falls_back_to_a_buffered_loop_said_once(tmp_path, monkeypatch,
                                                                     capsys):
    commands, undone = [], []
    monkeypatch.setattr(sandbox, "_run", lambda cmd, what: commands.append(cmd) or
                        f"/dev/loop{len(commands)}")
    monkeypatch.setattr(loop, "read_back", lambda device, *a: {"direct_io": False,
                                                               "logical_block_size": 512})
    monkeypatch.setattr(loop, "sector_size", lambda path: 512)
    monkeypatch.setattr(sandbox, "undo", lambda entry, wd: undone.append(entry["device"]))
    monkeypatch.setattr(loop, "_said", set())
    monkeypatch.delenv(loop.BUFFERED_ENV, raising=False)
    for name in ("a", "b"):
        box = sandbox.Sandbox(tmp_path, sandbox.Spec(size="64M"), name=name)
        box._attach_loop()
        assert box.direct_io is False and box.host_cached
    assert [c[3] for c in commands] == ["--direct-io=on", str(tmp_path / "sandboxes" / "a.img"),
                                        "--direct-io=on", str(tmp_path / "sandboxes" / "b.img")]
    assert undone == ["/dev/loop1", "/dev/loop3"] and box.device == "/dev/loop4"
    loops = [e for e in box.ledger.entries() if e["kind"] == "loop"]
    assert [e["device"] for e in loops] == ["/dev/loop2", "/dev/loop4"]  # the refused: forgotten
    out = capsys.readouterr().out
    assert out.count("the kernel refused direct IO") == 1 and out.count("\n") == 1


def test_the_buffered_switch_attaches_as_before(tmp_path, monkeypatch, capsys):
    commands = []
    monkeypatch.setattr(sandbox, "_run", lambda cmd, what: commands.append(cmd) or "/dev/loop1")
    monkeypatch.setattr(loop, "_said", set())
    monkeypatch.setenv(loop.BUFFERED_ENV, "1")
    box = sandbox.Sandbox(tmp_path, sandbox.Spec(size="64M"))
    box._attach_loop()
    assert commands == [["losetup", "--find", "--show", str(box.image)]]
    assert box.direct_io is False and loop.BUFFERED_ENV in capsys.readouterr().out
