"""Running the repository's playbooks (ansible/) with the project's own ansible-core: Ansible's
output line by line to `say`, with the fleet's callback (ansible/callback_plugins/tuninglab.py),
which adds each host's progress and records why a host failed. Everything else is the user's
own Ansible: their ansible.cfg, SSH config, agent and known_hosts. The playbooks get each
host's work directory and devices as the fleet checked them (places.playbook_vars)."""

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

from tuninglab import files
from tuninglab.errors import Interrupted, UserError
from tuninglab.fleet import places
from tuninglab.visible import visible

PLAYBOOKS = files.PROJECT_DIR / "ansible"


def tool(name: str) -> str:
    """An Ansible command beside this Python (the virtualenv setup.sh made)."""
    path = Path(sys.executable).parent / name
    if not path.exists():
        raise UserError(f"{path}: not found; fleet commands need ansible-core: run ./setup.sh")
    return str(path)


def environment(outcomes: Path | None = None) -> dict:
    """This environment with the fleet's callback as Ansible's output; the user's own callback
    directories are still searched."""
    env = dict(os.environ, ANSIBLE_NOCOWS="1", ANSIBLE_RETRY_FILES_ENABLED="false",
               ANSIBLE_STDOUT_CALLBACK="tuninglab", ANSIBLE_LOCALHOST_WARNING="false",
               # An inventory source no plugin can parse (a broken INI line) is an error
               # naming it, not a warning and an inventory short of its hosts.
               ANSIBLE_INVENTORY_ANY_UNPARSED_IS_FAILED="true")
    own = os.environ.get("ANSIBLE_CALLBACK_PLUGINS", "~/.ansible/plugins/callback:"
                         "/usr/share/ansible/plugins/callback")
    env["ANSIBLE_CALLBACK_PLUGINS"] = f"{PLAYBOOKS / 'callback_plugins'}:{own}"
    # ansible-core 2.19 imports cryptography's DSA, which warns on every command it runs.
    env["PYTHONWARNINGS"] = ",".join(filter(None, [os.environ.get("PYTHONWARNINGS"),
                                                   "ignore:DSA is deprecated"]))
    if outcomes:
        env["TUNINGLAB_FLEET_OUTCOMES"] = str(outcomes)
    return env


def run(name: str, inventory: str | None, hosts: list, extra: dict, say, forks: int = 5,
        stopped: str = "stopped") -> dict:
    """ansible-playbook ansible/NAME on the hosts (their names, as --limit); {host name: why it
    failed} for those that did not finish (the callback's record)."""
    with tempfile.TemporaryDirectory(prefix="tuninglab-fleet-") as tmp:
        extra_file, outcomes = Path(tmp) / "vars.json", Path(tmp) / "outcomes.json"
        extra_file.write_text(json.dumps({**extra, **places.playbook_vars(hosts)}))
        args = [tool("ansible-playbook"), str(PLAYBOOKS / name), "--forks", str(forks),
                "--limit", ",".join(h.name for h in hosts), "-e", f"@{extra_file}"]
        if inventory:
            args[2:2] = ["-i", inventory]
        proc = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                stdin=subprocess.DEVNULL, text=True, errors="replace",
                                env=environment(outcomes))
        try:
            for line in proc.stdout:
                say(visible(line.rstrip("\n")))   # a host's text cannot drive the terminal
            code = proc.wait()
        except KeyboardInterrupt:
            proc.terminate()
            proc.wait()
            raise Interrupted(stopped) from None
        failed = json.loads(outcomes.read_text()) if outcomes.exists() else {}
    if code and not failed:
        raise UserError(f"ansible-playbook {name} failed (exit {code}) before any host: see "
                        "its output above")
    return failed
