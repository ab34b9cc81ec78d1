"""The lab VM benchmark: image build cold and cached, an empty boot, and one RAID run's overhead."""

import shutil
import tempfile
import time
from pathlib import Path

from tuninglab import files
from tuninglab.bench import template
from tuninglab.engine.run import preflight, runner
from tuninglab.engine.lab import image, qemu


def run(say=print):
    """The lab VM: image build cold (in a scratch directory) and cached, an empty boot, and
    one RAID run's overhead over its workload (boot, array, copy, server start)."""
    scratch = Path(tempfile.mkdtemp(prefix="bench-vm-", dir=files.default_workdir()))
    try:
        started = time.monotonic()
        image.ensure(scratch, say=lambda _line: None)
        cold = time.monotonic() - started
        started = time.monotonic()
        built = image.ensure(scratch)
        cached = time.monotonic() - started
        say(f"image build: cold {cold:.0f}s ({cold / 180:.2f} of a 3 min target), "
            f"cached {cached:.3f}s")
        accel = qemu.accelerator(built, scratch, say)
        boot = qemu.probe(built, accel, scratch / "vm")
        if boot:
            say(f"empty boot under {accel}: kernel to init {boot.boot_seconds:.1f}s, power-on to "
                f"power-off {boot.seconds:.1f}s ({boot.seconds / 10:.2f} of a 10 s target)")
        else:
            say(f"empty boot under {accel}: did not finish")
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    opts = runner.Options(profile="quick", repeats=1,
                          data_dir=Path(tempfile.mkdtemp(prefix="bench-data-")))
    plan, binary, _ = preflight.prepare_named("raid-chunk", opts)
    template.ensure(plan, binary, say)
    m = plan.experiment.measure
    started = time.monotonic()
    runner.run("raid-chunk", opts, say=lambda _line: None)
    per_run = (time.monotonic() - started) / len(plan.runs)
    overhead = per_run - m.warmup - m.duration
    say(f"raid-chunk --quick, one run in the VM: {per_run:.0f}s for {m.warmup + m.duration:.0f}s "
        f"of workload; overhead {overhead:.0f}s per run ({overhead / 30:.2f} of a 30 s target)")
