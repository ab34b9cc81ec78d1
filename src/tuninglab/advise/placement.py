"""Where this host stands among the guide's host classes, and `invoke advise --calibrate`: a
short calibration that gives it one. A host's class is what its results say it is (CPU,
cores, memory, VM, the kind of disk and its band of fsyncs per second, evidence/host_class.py);
the calibration is one quick run of flush-log-at-trx-commit (a few minutes: the device
baseline that every result records, fio's fsyncs per second and 16K random write IOPS, and a
short OLTP load, durable commits against batched ones), written into data/ like any result, so
that it can be contributed (`invoke data.submit`) and that advise then reads evidence of this
host's own class first (evidence.machine_of)."""

import json
from collections import Counter
from pathlib import Path

from tuninglab.engine.measure.provenance import host_id
from tuninglab.engine.run import runner
from tuninglab.evidence import host_class, result_files
from tuninglab.evidence.sets import machine_of
from tuninglab.evidence.answers import differences

RECIPE = "flush-log-at-trx-commit"


def machine():
    """This host's class, from what it measured before; None before it has."""
    return machine_of(host_id())


def classes(data_dir: Path | None = None) -> dict:
    """{class name: (how many of the guide's results, one result of it)}: the project's own
    classes measured on the host itself (neither a lab VM's nor a contribution's)."""
    counts, sample = Counter(), {}
    data = Path(data_dir or result_files.DATA_DIR)
    for path in result_files.result_dirs(data):
        for doc in result_files.results_for(path.name, None, data):
            cls = host_class.host_class(doc)
            if not cls.lab and not cls.contributed:
                counts[cls.name] += 1
                sample.setdefault(cls.name, doc)
    return {name: (n, sample[name]) for name, n in counts.most_common()}


def placement(doc: dict, data_dir: Path | None = None) -> list[str]:
    """Lines saying which of the guide's classes a result's host is of, or the closest."""
    mine = host_class.host_class(doc)
    here = host_class.machine_parts(doc)
    found = classes(data_dir)
    if mine.name in found:
        return [f"this host's class: {mine.name}, which {found[mine.name][0]} of the guide's "
                f"results are of"]
    lines = [f"this host's class: {mine.name}; none of the guide's results are of it yet"]
    ranked = sorted(found.items(), key=lambda kv: len(differences(here, host_class
                                                                  .machine_parts(kv[1][1]))))
    for name, (n, sample) in ranked[:3]:
        differ = differences(here, host_class.machine_parts(sample)) or \
            ["the same machine, another band of fsyncs per second"]
        lines.append(f"  close: {name} ({n} results): {'; '.join(differ)}")
    return lines


def calibrate(server: str | None, workdir: Path | None, say=print, **overrides) -> Path:
    """Run the calibration; the result file's path. overrides: more runner.Options (a test's
    smaller run, another data directory)."""
    opts = runner.Options(profile="quick", server=server, workdir=workdir, **overrides)
    paths = [p for p in runner.run_all(RECIPE, opts, "", say) if p]
    doc = json.loads(paths[0].read_text())
    for line in placement(doc, opts.data_dir):
        say(line)
    say(f"contribute it: invoke data.submit --path {paths[0]}")
    return paths[0]
