"""The "Check your server" page's examples (`invoke advise --examples`): each of the guide's
servers started as a throwaway instance with deliberately dated settings, read by an account
that may only log in, its facts and its host's written to docs/examples/advise/<server>.json.
The site computes the reports from them at build time (site/server_check.py), with the
evidence of the day. The integration tests start the same servers (dated_server).

The same command starts each server again at its own defaults and writes its global variables
to docs/examples/defaults/<server>.json, so that a topic page states each server's default as
the server reports it (evidence/server_defaults.py reads them)."""

import json
import re
import secrets
import tempfile
from contextlib import contextmanager
from datetime import date
from pathlib import Path

from tuninglab import files
from tuninglab.advise import host_facts, server_facts
from tuninglab.engine.host import hostinfo
from tuninglab.engine.server import mysqld
from tuninglab.evidence import servers
from tuninglab.evidence.host_class import server_name
from tuninglab.recipes.server_list import NAMES

# Settings a 2012 configuration carries: a small redo log, the fsync flush method and the IO
# capacity of one rotating disk.
DATED = {"innodb_buffer_pool_size": "64M", "innodb_log_file_size": "48M",
         "innodb_flush_method": "fsync", "innodb_io_capacity": "200"}
ADVISOR = "advisor"
# Variables that name the machine rather than the server's configuration.
IDENTIFYING = ("hostname", "report_host", "server_uuid", "wsrep_node_name")
EXAMPLES = files.PROJECT_DIR / "docs" / "examples" / "advise"
DEFAULTS = files.PROJECT_DIR / "docs" / "examples" / "defaults"


@contextmanager
def scratch():
    """A directory for one throwaway server under the work directory, removed after."""
    files.default_workdir().mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="advise-", dir=files.default_workdir()) as tmp:
        yield Path(tmp)


@contextmanager
def throwaway_server(name: str, base: Path, settings: dict, workdir: Path | None = None,
                     say=print):
    """One of the guide's servers (--server NAME) on a new datadir under base, with these
    settings beyond those mysqld.Server gives every throwaway instance; stopped however the
    block ends."""
    binary = mysqld.find(server=name, workdir=workdir or files.default_workdir(), say=say)
    mysqld.initialize(binary, base / "data", base / "install.log")
    with mysqld.Server(binary, base / "run", base / "data", settings) as server:
        yield server


@contextmanager
def dated_server(name: str, base: Path, workdir: Path | None = None, say=print):
    """A started server with DATED settings and an account (ADVISOR) that may only log in; yields
    (the server, the account's password). Stopped however the block ends."""
    password = secrets.token_hex(8)
    with throwaway_server(name, base, DATED, workdir, say) as server:
        server.query(f"CREATE USER '{ADVISOR}'@'localhost' IDENTIFIED BY '{password}'")
        yield server, password


def about(name: str, flavor: str, version: str) -> str:
    label = servers.label(server_name(flavor, version))
    settings = ", ".join(f"{k} = {v}" for k, v in DATED.items())
    return (f"{label} ({name}), started by `invoke advise --examples` on {date.today()} with "
            f"{settings}, read by an account with no privilege beyond logging in")


def capture(name: str, workdir: Path | None = None, say=print) -> dict:
    """One server's facts and its host's, as `invoke advise --json` gives them."""
    with scratch() as base, dated_server(name, base, workdir, say) as (server, password):
        s = server_facts.read(server_facts.Target(socket=str(server.socket), user=ADVISOR,
                                                  password=password))
        h = host_facts.read(s.variables, local=True)
    facts = s.as_dict()
    facts["variables"] = {k: v for k, v in facts["variables"].items() if k not in IDENTIFYING}
    return {"about": about(name, s.flavor, facts["version"]), "server": facts, "host": h}


def given_options(cnf: str) -> dict:
    """The options of the my.cnf a throwaway server read (mysqld.Server writes it: its datadir,
    socket, pid and error log files, no TCP port, and on MySQL no binary log, no X protocol and
    a secure_file_priv of its own), a path shown as its place rather than this run's name."""
    given = {}
    for line in cnf.splitlines()[1:]:   # after [mysqld]
        name, _, raw = line.partition("=")
        value = re.sub(r"\\(.)", r"\1", raw[1:-1]) if raw else None   # cnf_line's quoting
        given[name] = "(the run's own)" if value and value.startswith("/") else value
    return given


def defaults_about(name: str, label: str, given: dict, host: dict) -> str:
    return (f"{label} ({name}) at its own defaults: started by `invoke advise --examples` on "
            f"{date.today()} with no option but those every throwaway server of the lab gets "
            f"(\"given\": {', '.join(given)}), its global variables read as it reports them. "
            f"Some defaults are sized from the machine (thread counts from its cores, some "
            f"buffers from its memory, caches from its open-file limit): these are from a host "
            f"of {host['cores']} cores and {host['memory_bytes'] / 2**30:.1f} GiB.")


def capture_defaults(name: str, workdir: Path | None = None, say=print) -> dict:
    """One server's global variables at its own defaults, with its version and the host's cores
    and memory: what docs/examples/defaults/<server>.json holds."""
    with scratch() as base, throwaway_server(name, base, {}, workdir, say) as server:
        variables = {k.lower(): v for k, v in server.query("SHOW GLOBAL VARIABLES")}
        given = given_options(server.cnf.read_text(encoding="utf-8"))
        binary = server.binary
    version = ".".join(map(str, binary.version))
    info = hostinfo.host_info(secrets.token_hex(8))   # its id is not kept: a throwaway salt
    host = {"cores": info["cores"], "memory_bytes": info["memory_bytes"]}
    return {"about": defaults_about(name, binary.label, given, host),
            "server": server_name(binary.flavor, version), "version": version,
            "version_text": binary.version_text, "date": str(date.today()), "host": host,
            "given": given,
            "variables": {k: v for k, v in sorted(variables.items()) if k not in IDENTIFYING}}


def write(path: Path, capture: dict) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(capture, indent=1, sort_keys=True, default=str) + "\n")
    return path


def write_defaults(names=NAMES, workdir: Path | None = None, say=print) -> list[Path]:
    """Each server's defaults (capture_defaults) into docs/examples/defaults/<server>.json."""
    return [_captured(name, "at its own defaults", DEFAULTS, capture_defaults, workdir, say)
            for name in names]


def write_all(names=NAMES, workdir: Path | None = None, say=print) -> list[Path]:
    """Both kinds of capture for each server: its dated settings, then its own defaults."""
    written = []
    for name in names:
        written += [_captured(name, "with dated settings", EXAMPLES, capture, workdir, say),
                    *write_defaults([name], workdir, say)]
    return written


def _captured(name: str, how: str, folder: Path, made, workdir, say) -> Path:
    """One server's capture (made: capture or capture_defaults) written into folder."""
    say(f"{name}: starting a throwaway server {how}")
    path = write(folder / f"{name}.json", made(name, workdir, say))
    say(f"{name}: wrote {path.relative_to(files.PROJECT_DIR)}")
    return path
