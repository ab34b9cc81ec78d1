"""A real sandbox on a loop device with direct IO: the kernel takes it (sysfs), its record says
so, 16K O_DIRECT reads inside it leave the host's page cache of its backing file as it was (a
buffered loop device, the engine's switch, fills it), and nothing is left behind."""

import json
import os
import subprocess
from pathlib import Path

import pytest

from helpers import NOTHING, leftovers
from tuninglab.engine.run.leftovers import undo_recorded
from tuninglab.engine.server.memory import uncache
from tuninglab.engine.storage import loop, sandbox

pytestmark = pytest.mark.integration
MIB = 2**20


@pytest.fixture
def wd(tmp_path):
    if os.geteuid() != 0:
        pytest.skip("needs root: loop devices, mkfs and mount")
    if not sandbox.have_tool("fio") or not sandbox.have_tool("fincore"):
        pytest.skip("needs fio and fincore (util-linux)")
    yield tmp_path
    undo_recorded(tmp_path)


def fio(*args: str) -> dict:
    out = subprocess.run(["fio", "--output-format=json", "--name=probe", "--bs=16k",
                          "--direct=1", "--ioengine=psync", *args],
                         capture_output=True, text=True, timeout=120, check=True)
    return json.loads(out.stdout[out.stdout.index("{"):])


def cached_bytes(path: Path) -> int:
    """The host's page cache of a file, as fincore counts it."""
    out = subprocess.run(["fincore", "--bytes", "--noheadings", "--output", "RES", str(path)],
                         capture_output=True, text=True, check=True)
    return int(out.stdout.split()[0])


def read_growth(box) -> tuple[int, int]:
    """16K O_DIRECT random reads of a 256M file inside the sandbox for 4 s: the bytes read and
    how much the host's page cache of the backing file grew meanwhile."""
    probe = box.mountpoint / "probe"
    fio(f"--filename={probe}", "--size=256M", "--rw=write")
    uncache(box.image)  # what laying the file out left in the host's cache (a buffered loop)
    before = cached_bytes(box.image)
    job = fio(f"--filename={probe}", "--size=256M", "--rw=randread", "--runtime=4",
              "--time_based")
    return job["jobs"][0]["read"]["io_bytes"], cached_bytes(box.image) - before


def test_a_direct_io_sandbox_keeps_its_file_out_of_the_hosts_page_cache(wd, monkeypatch):
    monkeypatch.delenv(loop.BUFFERED_ENV, raising=False)
    with sandbox.Sandbox(wd, sandbox.Spec(size="1G"), name="dio") as box:
        name = Path(box.device).name
        assert Path(f"/sys/block/{name}/loop/dio").read_text().strip() == "1"
        sector = int(Path(f"/sys/block/{name}/queue/logical_block_size").read_text())
        assert sector == loop.sector_size(box.image)
        state = box.state()
        assert state["loop_direct_io"] is True and state["logical_block_size"] == sector
        assert not box.host_cached
        read, grown = read_growth(box)
    assert read > 64 * MIB and grown < 8 * MIB, (read, grown)
    assert leftovers(wd) == NOTHING and not box.image.exists()


def test_the_buffered_switch_goes_through_the_hosts_page_cache(wd, monkeypatch):
    monkeypatch.setenv(loop.BUFFERED_ENV, "1")
    with sandbox.Sandbox(wd, sandbox.Spec(size="1G"), name="buffered") as box:
        assert box.state()["loop_direct_io"] is False and box.host_cached
        read, grown = read_growth(box)
    assert grown > 32 * MIB, (read, grown)
    assert leftovers(wd) == NOTHING
