"""invoke fleet.check: for each host, through ansible/fleet-check.yml, its hardware and
system, whether this checkout's revision is set up there, and what it can run (lab.check's
answers, from that revision's tree). With --setup, the revision is shipped and set up first
where it is not."""

import json
import tempfile
from pathlib import Path

from tuninglab import files
from tuninglab.fleet import playbook, ship
from tuninglab.fleet.run import reason
from tuninglab.results.report import table
from tuninglab.visible import visible


def survey(hosts, inventory, say=print, repo: Path = files.PROJECT_DIR, setup: bool = False,
           workdir: Path | None = None, forks: int = 5) -> dict:
    """{host name: its facts, or {"error": reason}}; prints a block per host and a table."""
    rev = ship.revision(repo) if setup else ship.head(repo)
    base = (workdir or files.default_workdir()) / "fleet"
    with tempfile.TemporaryDirectory(prefix="tuninglab-check-") as tmp:
        for host in hosts:
            (Path(tmp) / host.name).mkdir()
        extra = {"rev": rev, "setup": setup, "fetch_dir": tmp,
                 "archive": str(ship.archive_in(repo, rev, base)) if setup else ""}
        failed = playbook.run("fleet-check.yml", inventory, hosts, extra, say, forks)
        found = {h.name: _facts(Path(tmp) / h.name / "check.json", failed.get(h.name))
                 for h in hosts}
    for host in hosts:
        say(_block(host, found[host.name], rev))
    say(_summary(hosts, found))
    return found


def _facts(path: Path, failure) -> dict:
    """The host's answers, each line of its text made visible (no terminal escapes)."""
    if failure or not path.is_file():
        return {"error": reason(failure) if failure else "the playbook ended before it"}
    report = json.loads(path.read_text())
    facts = dict(visible(line).split("=", 1) for line in report["probe"] if "=" in line)
    return {**facts, "ready": report["ready"],
            "lab_check": "\n".join(visible(line) for line in report["lab_check"])}


def _block(host, facts: dict, rev: str) -> str:
    head = f"== {host.name} ({host.target}, work directory {host.workdir})"
    if "error" in facts:
        return f"{head}\n  {facts['error']}\n"   # reason()'s line: unreachable, or a task's
    memory = int(facts.get("memory_kib") or 0) / 2**20
    lines = [head,
             f"  system: {facts.get('os')}, kernel {facts.get('kernel')}, "
             f"virtualization {facts.get('virtualization')}",
             f"  CPU: {facts.get('cores')} x {facts.get('cpu') or 'unknown'}; "
             f"memory {memory:.1f} GiB",
             f"  disks: {facts.get('disks') or 'none listed'}",
             f"  devices named for it: {', '.join(host.devices) or 'none'}"]
    if facts["ready"]:
        lines.append(f"  revision {rev[:12]}: set up; lab.check says:")
        lines += [f"    {line}" for line in facts["lab_check"].rstrip().splitlines()]
    else:
        lines.append(f"  revision {rev[:12]}: not set up there (`invoke fleet.run` or "
                     "`invoke fleet.check --setup` ships it; lab.check runs from it)")
    return "\n".join(lines) + "\n"


def _summary(hosts, found: dict) -> str:
    rows = [["host", "reachable", "cores", "memory GiB", "revision set up"]]
    for host in hosts:
        facts = found[host.name]
        if "error" in facts:
            rows.append([host.name, "no", "-", "-", "-"])
            continue
        rows.append([host.name, "yes", facts.get("cores", "?"),
                     f"{int(facts.get('memory_kib') or 0) / 2**20:.1f}",
                     "yes" if facts["ready"] else "no"])
    return table(rows)
