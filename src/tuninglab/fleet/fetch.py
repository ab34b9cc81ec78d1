"""Bringing a host's result files home: each file the recipe wrote there is copied into
data/<recipe>/ under the name a local run would give it, its paths and secret-looking values
scrubbed as data.submit does, marked with the fleet run's id and the host's name (as the user
named it), and checked as data.check checks it. Then the fleet's table of verdicts."""

import json
import tempfile
from pathlib import Path

from tuninglab.contrib import check, submit
from tuninglab.fleet.remote import HostError
from tuninglab.results import document
from tuninglab.results.report import ratio_cells, table
from tuninglab.results.result import Result


def results(remote, run_id: str, data_dir: Path, host_name: str) -> list[Path]:
    """The host's result files of this fleet run, in data_dir; files fetched by an earlier
    attempt are kept as they are."""
    written = remote.written(run_id)
    if not written:
        raise HostError("the recipe finished but its log names no result file")
    kept = []
    for remote_path in written:
        with tempfile.TemporaryDirectory() as tmp:
            local = remote.fetch(remote_path, Path(tmp) / Path(remote_path).name)
            doc, problems = check.load(local)
        if doc is None:
            raise HostError(f"{remote_path} is not a result file: {problems[0]}")
        kept.append(_keep(doc, run_id, host_name, data_dir, remote_path))
    return kept


def _keep(doc: dict, run_id: str, host_name: str, data_dir: Path, remote_path: str) -> Path:
    submit.strip_paths(doc)
    submit.strip_secrets(doc)
    doc["fleet"] = {"run": run_id, "host": host_name}
    target = document.final_path(doc, data_dir)
    if target.exists() and _same_run(target, doc):
        return target
    target = submit.write_new(doc, data_dir)
    problems = check.check_file(target)
    if problems:
        target.unlink()
        raise HostError(f"{remote_path} fails data.check: {problems[0]}")
    return target


def _same_run(path: Path, doc: dict) -> bool:
    try:
        old = json.loads(path.read_text())
    except (OSError, ValueError):
        return False
    return old.get("run_id") == doc.get("run_id") and old.get("fleet") == doc["fleet"]


def verdict_table(hosts, state: dict, data_dir: Path) -> str:
    """Per host, each comparison of each result file with its ratio, 95% interval and
    verdict; a host that did not finish, with its reason."""
    rows = [["host", "experiment", "point", "ratio", "95% CI", "verdict"]]
    for host in hosts:
        entry = state.get(host.name, {})
        if entry.get("status") != "done":
            rows.append([host.name, "-", "-", "-", "-",
                         f"failed: {entry.get('reason', 'not run')}"])
            continue
        for name in entry.get("files", []):
            rows += _file_rows(host.name, Path(name))
    return table(rows)


def _file_rows(host_name: str, path: Path) -> list[list[str]]:
    r = Result(json.loads(path.read_text()))
    rows = [[host_name, r.experiment, p.id, *ratio_cells(p.ratio, 3, grouped=False),
             p.ratio.said]
            for p in r.points if not p.is_baseline and p.ratio and p.ratio.ratio is not None]
    return rows or [[host_name, r.experiment, "-", "-", "-", "no comparison"]]
