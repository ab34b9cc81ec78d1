"""The sandbox benchmark: one sandboxed point set up per filesystem (loop device, mkfs, mount,
the disk-bound template copied onto it)."""

import time

from tuninglab import files
from tuninglab.bench import template
from tuninglab.engine.host import workdir
from tuninglab.engine.run import preflight, runner
from tuninglab.engine.server import datadir
from tuninglab.engine.storage.sandbox import Sandbox, Spec, require_root


def run(say=print):
    """Setting up one sandboxed point: loop device, mkfs, mount, and the disk-bound template
    copied onto it (target: at most 5 s for a 2 GB sandbox), per filesystem."""
    require_root("the sandbox benchmark")
    plan, binary, _ = preflight.prepare_named("filesystems", runner.Options(profile="quick"))
    data = template.ensure(plan, binary, say)
    with workdir.held(files.default_workdir()) as wd:
        for fs in ("ext4", "xfs", "btrfs"):
            started = time.monotonic()
            with Sandbox(wd, Spec(filesystem=fs, size="2G"), name=f"bench-{fs}") as box:
                datadir.clone(data, box.mountpoint / "data")
                seconds = time.monotonic() - started
            say(f"{fs} sandbox setup with the {workdir.dir_bytes(data) / 2**20:.0f} MiB datadir: "
                f"{seconds:.2f}s, {seconds / 5:.2f} of the 5 s target")
