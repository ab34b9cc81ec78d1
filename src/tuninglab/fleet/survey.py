"""invoke fleet.check: for each host, over SSH, its hardware and system, whether this
checkout's revision is set up there, and what it can run (lab.check's answers, from that
revision's tree). With --setup, the revision is shipped and set up first where it is not."""

from pathlib import Path

from tuninglab import files
from tuninglab.fleet import ship
from tuninglab.fleet.remote import connect, opened
from tuninglab.fleet.run import in_threads, reason
from tuninglab.results.report import table


def survey(hosts, say=print, repo: Path = files.PROJECT_DIR, setup: bool = False,
           workdir: Path | None = None, connector=connect) -> dict:
    """{host name: its facts, or {"error": reason}}; prints a block per host and a table."""
    rev = ship.revision(repo) if setup else ship.head(repo)
    archive = None
    if setup:
        base = (workdir or files.default_workdir()) / "fleet"
        archive = ship.archive_in(repo, rev, base)
    found = {}
    in_threads(hosts, 8, lambda h: found.__setitem__(h.name, _one(h, rev, archive, connector)))
    for host in hosts:
        say(_block(host, found[host.name], rev))
    say(_summary(hosts, found))
    return found


def _one(host, rev: str, archive, connector) -> dict:
    try:
        with opened(host, rev, connector) as remote:
            if archive:
                remote.ship(archive, lambda _line: None)   # a failure says why in its reason
            facts = remote.probe()
            if facts["ready"]:
                facts["lab_check"] = remote.lab_check()
            return facts
    except Exception as exc:  # noqa: BLE001 - one host's failure is its row, not the end
        return {"error": reason(exc)}


def _block(host, facts: dict, rev: str) -> str:
    head = f"== {host.name} ({host.target}, work directory {host.workdir})"
    if "error" in facts:
        return f"{head}\n  unreachable: {facts['error']}\n"
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
