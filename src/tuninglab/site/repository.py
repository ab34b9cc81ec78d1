"""The repository's address, for the header's link and the clone command the pages start from:
REPO_URL where a build sets it (the Pages workflow: "" for none), else the checkout's own
`origin` remote when it is one a browser can open (https, or scp-like ssh as GitHub and GitLab
give it); a local path or no remote gives none, so a page never links to a guessed address."""

import functools
import html
import os
import re
import subprocess

from tuninglab.files import PROJECT_DIR

# git@host:owner/name(.git) and ssh://git@host/owner/name(.git): the forms a forge's "clone"
# button gives, each with an https page of the same path.
_SCP = re.compile(r"^[\w.-]+@([\w.-]+):(?!/)(.+?)(?:\.git)?/?$")
_SSH = re.compile(r"^ssh://(?:[\w.-]+@)?([\w.-]+)(?::\d+)?/(.+?)(?:\.git)?/?$")
_HTTPS = re.compile(r"^(https?://)(?:[^@/]+@)?(.+?)(?:\.git)?/?$")


def address(env=None, remote=None) -> str | None:
    """The repository's web address, or None where the build knows none."""
    env = os.environ if env is None else env
    if "REPO_URL" in env:
        return env["REPO_URL"].strip().rstrip("/") or None
    return web_address(_origin() if remote is None else remote)


def web_address(remote: str) -> str | None:
    """A remote's page in a browser, or None for one a browser cannot open (a local path)."""
    remote = (remote or "").strip()
    if m := _HTTPS.match(remote):
        return m.group(1) + m.group(2)  # credentials in a remote never reach a page
    if m := _SCP.match(remote) or _SSH.match(remote):
        return f"https://{m.group(1)}/{m.group(2)}"
    return None


@functools.lru_cache(maxsize=1)   # one build asks for it once per page that shows it
def _origin() -> str:
    try:
        out = subprocess.run(["git", "-C", str(PROJECT_DIR), "remote", "get-url", "origin"],
                             capture_output=True, text=True, timeout=10)
    except (OSError, subprocess.TimeoutExpired):
        return ""
    return out.stdout.strip() if out.returncode == 0 else ""


def clone_commands(url: str | None) -> str:
    """The commands that give a reader a working checkout: clone, enter it, set it up."""
    where = url or "<this repository's address>"
    folder = url.rstrip("/").rsplit("/", 1)[-1] if url else "innodb-tuning-lab"
    return f"git clone {where}\ncd {folder}\n./setup.sh"


def clone_fence(source, language, css_class, options, md, **kwargs) -> str:
    """```clone```: the clone command as a code block, with this build's address (none
    known: a placeholder and where to find the address)."""
    url = address()
    block = ('<div class="language-sh highlight"><pre><span></span><code>'
             f"{html.escape(clone_commands(url))}</code></pre></div>")
    if url:
        return block
    return block + ("<p>This copy of the guide was built without the repository's address: "
                    "it is the one you got the guide from (a build with <code>REPO_URL</code> "
                    "set, as the published guide is, shows it here).</p>")
