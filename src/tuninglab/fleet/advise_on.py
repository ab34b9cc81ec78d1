"""`invoke advise --on HOST`: the same read-only report for a server on another machine, run
there over SSH (Fabric) through the fleet's inventory, so that its host (the datadir's
filesystem, device, scheduler, ...) is read where it is. This checkout's revision is shipped
and set up there first if it is not yet (as fleet.run does, once per revision); the report
comes back as the remote command printed it, and its exit status with it.

The password never travels on a command line: MYSQL_PWD, if set here, is written to the
remote shell's standard input, which reads it into the environment of `invoke advise` alone."""

import io
import shlex
from pathlib import Path

from tuninglab import files
from tuninglab.errors import UserError
from tuninglab.fleet import inventory, ship
from tuninglab.fleet.remote import HostError, connect, opened
from tuninglab.visible import visible

# The remote shell reads the password line (empty: none) from its standard input.
READ_PASSWORD = 'IFS= read -r pw; if [ -n "$pw" ]; then export MYSQL_PWD="$pw"; fi; unset pw; '


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


def advise_on(name: str, inventory_path: str | None, args: list[str], password: str | None,
              say, progress, repo: Path = files.PROJECT_DIR, connector=connect) -> int:
    """Run `invoke advise ARGS` on one host of the inventory; print its report; its exit
    status (0, 1 when advice applies, 2 on an error there, said in one line)."""
    hosts = inventory.hosts(name, inventory_path)
    if len(hosts) != 1:
        raise UserError(f"--on {name}: expected one host, got {len(hosts)}")
    host = hosts[0]
    rev = ship.revision(repo)
    archive = ship.archive_in(repo, rev, files.default_workdir() / "fleet")
    try:
        with opened(host, rev, connector) as remote:
            remote.ship(archive, lambda line: progress(f"{host.name}: {line}"))
            command = (READ_PASSWORD + f"cd {shlex.quote(remote.tree)} && "
                       f".venv/bin/invoke advise {shlex.join(args)}")
            result = remote.conn.run(command, warn=True, hide=True, pty=False,
                                     in_stream=io.StringIO((password or "") + "\n"))
    except HostError as exc:
        raise UserError(f"--on {host.name}: {exc}") from None
    except Exception as exc:  # noqa: BLE001 - SSH's many failures: one line naming the host
        raise UserError(f"--on {host.name} ({host.target}): {type(exc).__name__}: "
                        f"{visible(str(exc).splitlines()[0]) if str(exc) else ''}") from None
    if result.stdout:   # the host's report, each line made visible (no terminal escapes)
        say("\n".join(visible(line) for line in result.stdout.rstrip("\n").split("\n")))
    if result.exited not in (0, 1):
        last = (result.stderr or "").strip().splitlines()[-1:] or ["no message"]
        raise UserError(f"on {host.name}: {visible(last[0].removeprefix('error: '))}")
    return result.exited
