"""Bringing a host's result files home. fleet-run.yml fetched each file the recipe wrote
there (Ansible's fetch, checksums checked) once it checked that the file is a regular file
of at most data.check's size in its tree's data/<recipe>/. Here each is checked again and kept
in data/<recipe>/ under the name a local run would give it, its paths and secret-looking
values scrubbed as data.submit does, marked with the fleet run's id and the host's name, and
checked as data.check checks it. Then the fleet's table of verdicts.

A host is trusted with its own results only: a file must be the recipe, variant and profile
the fleet ran, the recipe file and the project revision the fleet shipped (recipe/sha256,
software/project), and carry the host id the host reported before the recipe started. And it is a
contribution, with data.submit's block and rules (never a project host's id), unless the
inventory marks the host as the project's own (`tuninglab_project: true`)."""

import json
import posixpath
import re
from dataclasses import dataclass, replace
from pathlib import Path

from tuninglab import files
from tuninglab.contrib import check, forgery, submit
from tuninglab.visible import visible
from tuninglab.results import document
from tuninglab.results.report import ratio_cells, table
from tuninglab.results.result import Result

RESULT_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]*\.json")


class HostError(Exception):
    """A host's results are refused; the message is the reason the fleet's table shows."""


@dataclass(frozen=True)
class Wanted:
    """What a host's result files must be: the run the fleet asked of that host."""
    recipe: str
    profile: str
    variants: frozenset        # the variants as run ("": the main experiment)
    host: str                  # the host's name in the inventory
    revision: str              # the commit the fleet shipped
    recipe_sha256: str         # the sha256 of the recipe file at that commit
    host_id: str = ""          # as the host reported it at the start of the run
    project: bool = False      # the project's own host: its results are not contributions


def results(fetched: Path, run_id: str, data_dir: Path, wanted: Wanted) -> list[Path]:
    """The host's result files of this fleet run (fetched: its directory of fetched files,
    fleet-run.yml's), each checked and kept in data_dir; files kept by an earlier attempt are
    kept as they are."""
    manifest = json.loads((fetched / "manifest.json").read_text())
    wanted = replace(wanted, host_id=reported_id(fetched))
    kept = []
    for remote_path in manifest.get("written", []):
        name = posixpath.basename(remote_path)
        if not RESULT_NAME.fullmatch(name) or not (fetched / "results" / name).is_file():
            raise HostError(f"{visible(remote_path)}: not a result file fetched from "
                            f"{wanted.host}")
        doc, problems = check.load(fetched / "results" / name)   # bounded: data.check's size
        problems = problems if doc is None else document.validate(doc)
        if problems:
            raise HostError(f"{visible(remote_path)} is not a result file: "
                            f"{check.one_line(problems[0])}")
        mismatch = not_wanted(Result(doc), wanted)
        if mismatch:
            raise HostError(f"{visible(remote_path)}: {check.one_line(mismatch)}; refused")
        kept.append(_keep(doc, run_id, wanted, data_dir, remote_path))
    return kept


def reported_id(fetched: Path) -> str:
    """The host id a host reported at the start of its run (fleet-run.yml's manifest), or ''
    when it reported none."""
    try:
        return str(json.loads((fetched / "manifest.json").read_text()).get("host_id", ""))
    except (OSError, ValueError, AttributeError):
        return ""


def not_wanted(r: Result, wanted: Wanted) -> str | None:
    """How a fetched result differs from the run the fleet asked of the host, or None."""
    if r.recipe != wanted.recipe:
        return f"a result of the recipe {r.recipe!r}; the fleet ran {wanted.recipe!r}"
    if r.variant not in wanted.variants:
        return (f"a result of the variant {r.variant!r}; the fleet ran "
                f"{', '.join(map(repr, sorted(wanted.variants)))}")
    if r.profile != wanted.profile:
        return f"a result of the profile {r.profile!r}; the fleet ran {wanted.profile!r}"
    if r.host_id != wanted.host_id:
        return (f"its host id is {r.host_id!r}; {wanted.host} reported {wanted.host_id!r} at "
                "the start of the run")
    if r.raw["recipe"]["sha256"] != wanted.recipe_sha256:
        return (f"its recipe sha256 is {r.raw['recipe']['sha256']!r}; the recipe file the "
                f"fleet shipped at {wanted.revision[:12]} is {wanted.recipe_sha256!r}")
    project = r.software["project"]   # the schema's: {"revision", "dirty"}
    if project["revision"] != wanted.revision or project["dirty"] is not False:
        return (f"it names the project revision {project['revision']!r}"
                f"{' with changes' if project['dirty'] else ''}; the fleet shipped "
                f"{wanted.revision!r}")
    return None


def _keep(doc: dict, run_id: str, wanted: Wanted, data_dir: Path, remote_path: str) -> Path:
    submit.strip_paths(doc)
    submit.strip_secrets(doc)
    doc["fleet"] = {"run": run_id, "host": wanted.host}
    target = document.final_path(doc, data_dir)
    if target.exists() and _same_run(target, doc):
        return target
    hosts = None
    if not wanted.project:   # a contribution, as data.submit makes one, and held to its rules
        submit.mark_contributed(doc)
        hosts = submit.project_hosts(data_dir, target)
        refused = forgery.check_contribution(doc, hosts)
        if refused:
            raise HostError(f"{visible(remote_path)}: {check.one_line(refused[0])}; if "
                            f"{wanted.host} is one of the project's own machines, mark it "
                            "`tuninglab_project: true` in the inventory")
    target = submit.write_new(doc, data_dir)
    problems = check.check_file(target, project_hosts=hosts)
    if problems:
        target.unlink()
        raise HostError(f"{visible(remote_path)} fails data.check: {problems[0]}")
    return target


def _same_run(path: Path, doc: dict) -> bool:
    try:  # data/ is read as everywhere else: a FIFO or link in its place must not hang or count
        old = json.loads(files.read_regular(path, files.MAX_DATA_BYTES))
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
