"""The hosts of a fleet command: the user's own Ansible inventory (INI, YAML, a directory, a
script, or `db1,db2,`), read by `ansible-inventory` as Ansible reads it, with --limit. Ansible
connects (ansible_host, ansible_user, become, SSH config, keys and known_hosts); the fleet
reads the variables that say what a recipe may do on a host, and checks them before any host
is contacted (places.py says which directories and devices a host may be given):

    tuninglab_workdir       the fleet's directory there (default: tuninglab-fleet in the home)
    tuninglab_devices       block devices the recipe erases instead of a loop device: a list,
                            or /dev/X,/dev/Y; only with tuninglab_destroy_data: true
    tuninglab_destroy_data  confirms that every run erases those devices
    tuninglab_project       the project's own machine: its results are the project's, not
                            contributions (which a contribution can never pose as)

These, and ansible_host, ansible_user and ansible_port (where the fleet says a host is), are
data, never templates: a value holding Jinja's '{{', '{%' or '{#' is refused here, before
Ansible runs anything, since the check would see the text and the host would get what Ansible
made of it ("{{ '/etc' }}/tl" is /etc/tl there, and a lookup runs a command here). The
playbooks take the four as checked here (places.playbook_vars), not from the inventory. A
tuninglab_* variable the fleet does not know is refused: misspelt, it would be ignored.
"""

import json
import os
import re
import subprocess
from dataclasses import dataclass

from tuninglab.errors import UserError
from tuninglab.fleet import places, playbook
from tuninglab.visible import visible

# A name is a directory name on this side (fetched files) and what result files show of it.
NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,62}")
FLEET_VARS = ("tuninglab_workdir", "tuninglab_devices", "tuninglab_destroy_data",
              "tuninglab_project")
WHERE_VARS = ("ansible_host", "ansible_user", "ansible_port")   # the target the fleet shows
TEMPLATE = re.compile(r"\{[{%#]")   # where Jinja begins an expression, a statement, a comment
TRUE, FALSE = {"true", "yes", "on", "1"}, {"false", "no", "off", "0", ""}
# ansible-inventory's words (ansible-core 2.19) for a source a plugin could not parse, and for
# one that no plugin could.
FAILED_PLUGIN = re.compile(r"\[WARNING\]: Failed to parse inventory with '([^']+)' plugin: (.*)")
WHOLE_SOURCE = re.compile(r"Completely failed to parse inventory source (.+)$")


@dataclass(frozen=True)
class Host:
    name: str                  # its inventory_hostname
    target: str                # where Ansible connects, as the inventory says
    workdir: str = places.DEFAULT_WORKDIR
    devices: tuple = ()
    project: bool = False


def load(inventory: str | None, limit: str | None = None) -> list[Host]:
    """The inventory's hosts (within --limit), their variables checked; UserError naming the
    inventory, the host and the variable."""
    if inventory and inventory.endswith(".toml"):
        raise UserError(f"{inventory}: fleet.toml inventories are no longer read; fleet "
                        "commands take an Ansible inventory (INI or YAML): docs/fleet.md "
                        "shows the line that replaces each [hosts.NAME] table")
    if inventory and "," not in inventory and not os.path.exists(inventory):
        raise UserError(f"{inventory}: no such file or directory; expected an Ansible "
                        "inventory (INI or YAML, a directory or a script), or host names as "
                        "db1,db2,")
    args = ["--list"] + (["-i", inventory] if inventory else []) + \
           (["--limit", limit] if limit else [])
    # Verbosity (the user's ANSIBLE_VERBOSITY or ansible.cfg) would print a banner before the JSON.
    done = subprocess.run([playbook.tool("ansible-inventory"), *args], capture_output=True,
                          text=True, env={**playbook.environment(), "ANSIBLE_VERBOSITY": "0"})
    if done.returncode:
        raise UserError(unparsed(done.stderr, inventory))
    return hosts_of(json.loads(done.stdout), inventory or "the inventory")


def unparsed(stderr: str, inventory: str | None) -> str:
    """One line for an inventory ansible-inventory could not read: the file (and its line
    where Ansible's message gives one) and the reason of the plugin its name calls for (YAML
    for .yml, .yaml and .json, else INI), instead of each plugin's attempt. A source no
    plugin parses fails (playbook.environment) rather than reading as one without hosts."""
    failures = []   # (plugin, reason, origin) as Ansible's warnings give them
    lines = stderr.splitlines()
    for i, line in enumerate(lines):
        said = FAILED_PLUGIN.match(line)
        if said:
            origin = next((o.removeprefix("Origin: ") for o in lines[i + 1:]
                           if o.startswith("Origin: ")), "")
            failures.append((said[1], said[2].removeprefix("Failed to parse inventory: "),
                             origin))
    source = next((m[1] for m in map(WHOLE_SOURCE.search, lines) if m), inventory or "")
    if not failures:
        last = ([line.strip() for line in lines if line.strip()] or ["no message"])[-1]
        return f"ansible-inventory {inventory or '(Ansible default)'}: {visible(last)}"
    wanted = ("auto", "yaml") if source.endswith((".yml", ".yaml", ".json")) else ("ini",)
    plugin, reason, origin = next((f for f in failures if f[0] in wanted), failures[0])
    at = re.fullmatch(r"(.+?):(\d+)(?::\d+)?", origin)
    where = f"{at[1]} line {at[2]}" if at and at[1] == source else source
    kind = "an INI" if plugin == "ini" else "a YAML" if plugin in ("auto", "yaml") \
        else f"a {plugin}"
    return f"{visible(where)}: not {kind} inventory Ansible can read: {visible(reason)}"


def hosts_of(listing: dict, where: str) -> list[Host]:
    """The hosts of `ansible-inventory --list` output, by name, each checked."""
    hostvars = listing.get("_meta", {}).get("hostvars", {})
    names = []
    for group, body in listing.items():
        for name in (body.get("hosts", []) if isinstance(body, dict) else []):
            if name not in names and group != "_meta":
                names.append(name)
    if not names:
        raise UserError(f"{where}: no hosts (within --limit); expected at least one")
    return [host_of(name, hostvars.get(name, {}), where) for name in sorted(names)]


def host_of(name: str, hv: dict, where: str) -> Host:
    def fail(key, expected):
        raise UserError(f"{where}: host {name}: {key}: expected {expected}, got {hv.get(key)!r}")

    if not NAME.fullmatch(name):
        raise UserError(f"{where}: host {name!r}: a fleet host's name is letters, digits, '.', "
                        "'_' and '-' (at most 63): give it one and set ansible_host")
    data_only(name, hv, where)
    workdir = hv.get("tuninglab_workdir", places.DEFAULT_WORKDIR)
    problem = places.workdir_problem(workdir) if isinstance(workdir, str) \
        else "expected a directory"
    if problem:
        fail("tuninglab_workdir", problem.removeprefix("expected "))
    devices = hv.get("tuninglab_devices", [])
    if isinstance(devices, str):
        devices = [d.strip() for d in devices.split(",") if d.strip()]
    bad = [d for d in devices if places.device_problem(d)] if isinstance(devices, list) \
        else [devices]
    if bad:
        fail("tuninglab_devices", places.device_problem(bad[0]))
    if devices and not flag(hv, "tuninglab_destroy_data", fail):
        raise UserError(f"{where}: host {name}: tuninglab_devices names {', '.join(devices)}: "
                        "every run erases them; set tuninglab_destroy_data: true for it to "
                        "confirm")
    user = hv.get("ansible_user")
    target = f"{user + '@' if user else ''}{hv.get('ansible_host', name)}" \
             f"{':' + str(hv['ansible_port']) if 'ansible_port' in hv else ''}"
    return Host(name, visible(target), workdir, tuple(devices),
                flag(hv, "tuninglab_project", fail))


def data_only(name: str, hv: dict, where: str) -> None:
    """UserError for a variable the fleet reads that holds a template, or a tuninglab_*
    variable the fleet does not read."""
    for key, value in hv.items():
        if key.startswith("tuninglab_") and key not in FLEET_VARS:
            raise UserError(f"{where}: host {name}: {visible(key)}: not a variable of the "
                            f"fleet's; expected one of {', '.join(FLEET_VARS)}")
        if key in FLEET_VARS + WHERE_VARS and templated(value):
            raise UserError(f"{where}: host {name}: {key}: {value!r} holds a Jinja template "
                            "('{{', '{%' or '{#'); the fleet reads it as data, never as a "
                            "template: write the value itself")


def templated(value) -> bool:
    """Whether a variable's value (a string, or a list or mapping of them) holds Jinja."""
    if isinstance(value, str):
        return TEMPLATE.search(value) is not None
    if isinstance(value, dict):
        return any(templated(k) or templated(v) for k, v in value.items())
    if isinstance(value, list):
        return any(templated(v) for v in value)
    return False


def flag(hv: dict, key: str, fail) -> bool:
    """A yes/no variable: a YAML boolean, or as INI's group variables give it (a string)."""
    value = hv.get(key, False)
    if isinstance(value, bool):
        return value
    if isinstance(value, str) and value.strip().lower() in TRUE | FALSE:
        return value.strip().lower() in TRUE
    fail(key, "true or false")
