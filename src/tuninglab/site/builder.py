"""Building the guide: a strict MkDocs build (whose hook, mkdocs_hooks.py, vendors plotly.js),
then the static files of the per-host views."""

import functools
import http.server
import os
import subprocess
import sys
import threading
from contextlib import contextmanager
from pathlib import Path

from tuninglab import files
from tuninglab.errors import UserError
from tuninglab.evidence import result_files
from tuninglab.files import PROJECT_DIR
from tuninglab.site import site_dir as site_dir_rules

SITE_DIR = PROJECT_DIR / "site"
# Debian's chromium, headless, kept off the network (the machine has none to offer).
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update",
                 "--disable-sync"]


def _mkdocs(*args) -> list[str]:
    return [sys.executable, "-m", "mkdocs", *args, "-f", str(PROJECT_DIR / "mkdocs.yml")]


def _env(site_url=None, data_dir=None) -> dict:
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1"}
    if site_url:
        env["SITE_URL"] = site_url  # instant navigation only works on the site_url's origin
    if data_dir:
        env["TUNINGLAB_DATA_DIR"] = str(data_dir)  # result_files.DATA_DIR: another set of results
    return env


def build(site_dir: Path = SITE_DIR, site_url: str | None = None, data_dir=None) -> Path:
    """A strict build: a broken link, a missing data file or a bad fence fails it. It empties
    site_dir first, so a folder that holds what no build made is refused (site_dir.py)."""
    site_dir_rules.check(site_dir, SITE_DIR)
    out = subprocess.run(_mkdocs("build", "--strict", "--clean", "-d", str(site_dir)),
                         capture_output=True, text=True, env=_env(site_url, data_dir),
                         cwd=PROJECT_DIR)
    if out.returncode != 0:
        if why := site_dir_rules.write_failure(out.stderr, site_dir):
            raise UserError(why)  # a full or read-only disk: one line, not MkDocs' traceback
        problems = [line for line in out.stderr.splitlines()
                    if line.startswith(("WARNING", "ERROR")) or "Aborted" in line]
        detail = "\n".join(problems[-20:]) or out.stderr.strip()[-2000:]
        raise UserError(f"the site did not build:\n{detail}")
    data_dir = data_dir or os.environ.get("TUNINGLAB_DATA_DIR") or files.DATA_DIR
    # Said, not failed on: time only moves on, so such a file passed no data.check (or came
    # from a clock running ahead) and is already left out of every chart.
    for line in result_files.future_dated(data_dir):
        print(f"warning: {line}: not charted; listed as such on the Results page",
              file=sys.stderr)
    for line in result_files.unread(data_dir):  # a link, a FIFO: neither charted nor served
        print(f"warning: {line}", file=sys.stderr)
    site_dir_rules.mark(site_dir)
    return Path(site_dir)


def serve(address: str = "127.0.0.1:8000") -> None:
    subprocess.run(_mkdocs("serve", "--dev-addr", address), env=_env(), cwd=PROJECT_DIR)


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


@contextmanager
def local_site(root: Path):
    """Serve root on 127.0.0.1 at a free port and yield its URL (ending in /). The URL is
    known before anything is built, so a build inside the block can use it as site_url."""
    handler = functools.partial(_QuietHandler, directory=str(root))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_port}/"
    finally:
        server.shutdown()
