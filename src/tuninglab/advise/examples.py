"""The "Check your server" page's examples (`invoke advise --examples`): each of the guide's
servers started as a throwaway instance with deliberately dated settings, read by an account
that may only log in, its facts and its host's written to docs/examples/advise/<server>.json.
The site computes the reports from them at build time (site/server_check.py), with the
evidence of the day. The integration tests start the same servers (dated_server)."""

import json
import secrets
import tempfile
from contextlib import contextmanager
from datetime import date
from pathlib import Path

from tuninglab import files
from tuninglab.advise import host_facts, server_facts
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


@contextmanager
def dated_server(name: str, base: Path, workdir: Path | None = None, say=print):
    """A started server with DATED settings and an account (ADVISOR) that may only log in; yields
    (the server, the account's password). Stopped however the block ends."""
    binary = mysqld.find(server=name, workdir=workdir or files.default_workdir(), say=say)
    mysqld.initialize(binary, base / "data", base / "install.log")
    password = secrets.token_hex(8)
    with mysqld.Server(binary, base / "run", base / "data", DATED) as server:
        server.query(f"CREATE USER '{ADVISOR}'@'localhost' IDENTIFIED BY '{password}'")
        yield server, password


def about(name: str, flavor: str, version: str) -> str:
    label = servers.label(server_name(flavor, version))
    settings = ", ".join(f"{k} = {v}" for k, v in DATED.items())
    return (f"{label} ({name}), started by `invoke advise --examples` on {date.today()} with "
            f"{settings}, read by an account with no privilege beyond logging in")


def capture(name: str, workdir: Path | None = None, say=print) -> dict:
    """One server's facts and its host's, as `invoke advise --json` gives them."""
    files.default_workdir().mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="advise-", dir=files.default_workdir()) as tmp, \
            dated_server(name, Path(tmp), workdir, say) as (server, password):
        s = server_facts.read(server_facts.Target(socket=str(server.socket), user=ADVISOR,
                                                  password=password))
        h = host_facts.read(s.variables, local=True)
    facts = s.as_dict()
    facts["variables"] = {k: v for k, v in facts["variables"].items() if k not in IDENTIFYING}
    return {"about": about(name, s.flavor, facts["version"]), "server": facts, "host": h}


def write_all(names=NAMES, workdir: Path | None = None, say=print) -> list[Path]:
    EXAMPLES.mkdir(parents=True, exist_ok=True)
    written = []
    for name in names:
        say(f"{name}: starting a throwaway server with dated settings")
        path = EXAMPLES / f"{name}.json"
        path.write_text(json.dumps(capture(name, workdir, say), indent=1, sort_keys=True,
                                   default=str) + "\n")
        say(f"{name}: wrote {path.relative_to(files.PROJECT_DIR)}")
        written.append(path)
    return written
