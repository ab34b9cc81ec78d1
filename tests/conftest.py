"""Shared fixtures: a tiny recipe writer, a session work directory whose template is reused, and
what storage tests leave behind (loop devices, mounts, ledger) with a loop device of their own."""

import json
import os
import shutil
import struct
import subprocess
import textwrap
import time
from contextlib import contextmanager
from pathlib import Path

import pytest

from tuninglab.storage.ledger import Ledger

TINY_RECIPE = """
title = "Tiny test recipe"
question = "Does the engine run end to end?"

[dataset]
shape = "cpu-bound"
tables = 2
table_size = 2000
buffer_pool_size = "32M"

[workload]
script = "oltp_write_only"
threads = 2

[sweep]
setting = "innodb_doublewrite"
values = ["ON", "OFF"]

[measure]
warmup = "1s"
duration = "2s"
repeats = 2
"""


def write_recipe(recipes_dir: Path, name: str, text: str = TINY_RECIPE) -> Path:
    path = Path(recipes_dir) / name / "recipe.toml"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(textwrap.dedent(text))
    return path


def needs_real_server():
    """Skip with a reason that names what is missing."""
    for tool, hint in (("mariadbd", "mariadb-server"), ("sysbench", "sysbench"), ("fio", "fio")):
        if not (shutil.which(tool) or os.path.exists(f"/usr/sbin/{tool}")):
            pytest.skip(f"needs {tool} (apt-get install {hint})")


def leftovers(wd: Path) -> dict:
    """Loop devices over files in wd, mounts under wd, and the ledger."""
    loops = json.loads(subprocess.run(["losetup", "-J", "-l"], capture_output=True,
                                      text=True).stdout or '{"loopdevices": []}')["loopdevices"]
    with open("/proc/self/mounts") as f:
        mounts = [line.split()[1] for line in f if line.split()[1].startswith(str(wd))]
    return {"loops": [l["name"] for l in loops if str(wd) in (l.get("back-file") or "")],
            "mounts": mounts, "ledger": Ledger(wd).entries()}


NOTHING = {"loops": [], "mounts": [], "ledger": []}


@contextmanager
def attached_loop(backing: Path, size: int = 512 * 2**20, partitioned: bool = False):
    """A loop device the test attaches itself, standing in for a user's disk; detached after.
    partitioned: an MBR with one Linux partition from 1 MiB to the end (the kernel shows it
    as <device>p1)."""
    with open(backing, "wb") as f:
        f.truncate(size)
        if partitioned:
            f.seek(446)
            f.write(struct.pack("<B3sB3sII", 0, b"\0" * 3, 0x83, b"\0" * 3, 2048,
                                size // 512 - 2048))
            f.seek(510)
            f.write(b"\x55\xaa")
    cmd = ["losetup", "--find", "--show"] + (["--partscan"] if partitioned else []) + [str(backing)]
    device = subprocess.run(cmd, capture_output=True, text=True, check=True).stdout.strip()
    try:
        if partitioned and not Path(f"{device}p1").exists():
            # A kernel without the MBR parser (CONFIG_MSDOS_PARTITION) needs partx to add it.
            subprocess.run(["partx", "--add", device], capture_output=True)
        for _ in range(50):  # devtmpfs adds the partition's node a moment later
            if not partitioned or Path(f"{device}p1").exists():
                break
            time.sleep(0.1)
        yield device
    finally:
        subprocess.run(["losetup", "-d", device], capture_output=True)


@contextmanager
def mounted(device: str, where: Path, fs: str = "ext4"):
    """A fresh filesystem on device, mounted at where (made here) until the block ends."""
    subprocess.run([f"mkfs.{fs}", "-q", "-f" if fs in ("xfs", "btrfs") else "-F", device],
                   check=True)
    where.mkdir()
    subprocess.run(["mount", device, str(where)], check=True)
    try:
        yield where
    finally:
        subprocess.run(["umount", str(where)], check=True)


@pytest.fixture(scope="session")
def shared_workdir(tmp_path_factory):
    """One work directory for the session so the tiny template is built once."""
    return tmp_path_factory.mktemp("workdir")


def servers_under(path: Path) -> list[str]:
    """Server processes whose command line points into path."""
    out = subprocess.run(["pgrep", "-af", "mariadbd|mysqld"], capture_output=True, text=True)
    return [line for line in out.stdout.splitlines() if str(path) in line]


@pytest.fixture(scope="session")
def served_site(tmp_path_factory):
    """The site built strictly once per session, served on 127.0.0.1 at the URL it was built
    for (Material's instant navigation works only on the site_url's origin)."""
    from tuninglab import site
    root = tmp_path_factory.mktemp("site") / "site"
    with site.local_site(root) as url:
        site.build(root, site_url=url)
        yield root, url.rstrip("/")


@pytest.fixture(scope="session")
def built(served_site):
    return served_site[0]
