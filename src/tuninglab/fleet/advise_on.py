"""`invoke advise --on HOST`: the same read-only report for a server on another machine of the
inventory, run there through ansible/advise-on.yml, so that its host (the datadir's
filesystem, device, scheduler, ...) is read where it is. This revision is shipped and set up
there first if it is not yet (once per revision); the report comes back as the remote command
printed it, with its exit status. The password (MYSQL_PWD here) reaches the remote command
on its standard input, never a command line (nor Ansible's output: no_log)."""

import json
import tempfile
from pathlib import Path

from tuninglab import files
from tuninglab.errors import UserError
from tuninglab.fleet import inventory, playbook, ship
from tuninglab.fleet.run import reason
from tuninglab.visible import visible


def remote_args(socket, host, port, user, defaults_file, form: str) -> list[str]:
    """`invoke advise`'s arguments for the remote side (its own --socket, --host, ...)."""
    args = []
    for flag, value in (("--socket", socket), ("--host", host), ("--user", user),
                        ("--defaults-file", defaults_file)):
        if value:
            args += [flag, str(value)]
    if host:
        args += ["--port", str(port)]
    return args + ({"json": ["--json"], "markdown": ["--markdown"]}.get(form, []))


def advise_on(name: str, inventory_path: str | None, args: list[str], say, progress,
              repo: Path = files.PROJECT_DIR) -> int:
    """Run `invoke advise ARGS` on one host of the inventory; print its report; its exit
    status (0, 1 when advice applies; an error there is a UserError naming the host)."""
    hosts = inventory.load(inventory_path, name)
    if len(hosts) != 1:
        raise UserError(f"--on {name}: expected one host of the inventory, got "
                        f"{', '.join(h.name for h in hosts)}")
    host, rev = hosts[0], ship.revision(repo)
    archive = ship.archive_in(repo, rev, files.default_workdir() / "fleet")
    with tempfile.TemporaryDirectory(prefix="tuninglab-advise-") as tmp:
        (Path(tmp) / host.name).mkdir()
        extra = {"rev": rev, "archive": str(archive), "fetch_dir": tmp, "advise_args": args}
        failed = playbook.run("advise-on.yml", inventory_path, hosts, extra, progress)
        report = Path(tmp) / host.name / "advise.json"
        if failed or not report.is_file():
            why = reason(failed[host.name]) if failed else "the playbook ended before it"
            raise UserError(f"--on {host.name} ({host.target}): {why}")
        result = json.loads(report.read_text())
    if result["stdout"]:   # the host's report, each line made visible (no terminal escapes)
        say("\n".join(visible(line) for line in result["stdout"].rstrip("\n").split("\n")))
    if result["rc"] not in (0, 1):
        last = (result["stderr"] or "").strip().splitlines()[-1:] or ["no message"]
        raise UserError(f"on {host.name}: {visible(last[0].removeprefix('error: '))}")
    return result["rc"]
