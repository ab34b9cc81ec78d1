"""The hosts of a fleet command: the user's own Ansible inventory (INI, YAML, a directory, a
script, or `db1,db2,`), read by `ansible-inventory` as Ansible reads it, with --limit. Ansible
connects (ansible_host, ansible_user, become, SSH config, keys and known_hosts); the fleet
reads the variables that say what a recipe may do on a host, and checks them before any host
is contacted:

    tuninglab_workdir       the fleet's directory there (default: tuninglab-fleet in the home)
    tuninglab_devices       block devices the recipe erases instead of a loop device: a list,
                            or /dev/X,/dev/Y; only with tuninglab_destroy_data: true
    tuninglab_destroy_data  confirms that every run erases those devices
    tuninglab_project       the project's own machine: its results are the project's, not
                            contributions (which a contribution can never pose as)
"""

import json
import posixpath
import re
import subprocess
from dataclasses import dataclass

from tuninglab.errors import UserError
from tuninglab.fleet import playbook

# A name is a directory name on this side (fetched files) and what result files show of it.
NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,62}")
DEFAULT_WORKDIR = "tuninglab-fleet"   # under the SSH user's home
# The system's own directories: a fleet work directory is never one of them nor below one.
SYSTEM_TREES = ("/etc", "/usr", "/bin", "/sbin", "/boot", "/dev", "/proc", "/sys", "/lib",
                "/lib32", "/lib64", "/libx32", "/run")
# Directories shared by everything on the host: one below them is the fleet's own, they are not.
SHARED_DIRS = {"/", "/var", "/var/lib", "/var/log", "/var/cache", "/var/spool", "/var/mail",
               "/var/backups", "/var/tmp", "/tmp", "/home", "/root", "/opt", "/srv", "/mnt",
               "/media", "/snap"}
HOME_ITSELF = re.compile(r"/(?:home|Users)/[^/]+")
TRUE, FALSE = {"true", "yes", "on", "1"}, {"false", "no", "off", "0", ""}


@dataclass(frozen=True)
class Host:
    name: str                  # its inventory_hostname
    target: str                # where Ansible connects, as the inventory says
    workdir: str = DEFAULT_WORKDIR
    devices: tuple = ()
    project: bool = False


def load(inventory: str | None, limit: str | None = None) -> list[Host]:
    """The inventory's hosts (within --limit), their variables checked; UserError naming the
    inventory, the host and the variable."""
    if inventory and inventory.endswith(".toml"):
        raise UserError(f"{inventory}: fleet.toml inventories are no longer read; fleet "
                        "commands take an Ansible inventory (INI or YAML): docs/fleet.md "
                        "shows the line that replaces each [hosts.NAME] table")
    args = ["--list"] + (["-i", inventory] if inventory else []) + \
           (["--limit", limit] if limit else [])
    # Verbosity (the user's ANSIBLE_VERBOSITY or ansible.cfg) would print a banner before the JSON.
    done = subprocess.run([playbook.tool("ansible-inventory"), *args], capture_output=True,
                          text=True, env={**playbook.environment(), "ANSIBLE_VERBOSITY": "0"})
    if done.returncode:
        last = (done.stderr.strip().splitlines() or ["no message"])[-1]
        raise UserError(f"ansible-inventory {inventory or '(Ansible default)'}: {last}")
    return hosts_of(json.loads(done.stdout), inventory or "the inventory")


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
    workdir = hv.get("tuninglab_workdir", DEFAULT_WORKDIR)
    problem = workdir_problem(workdir) if isinstance(workdir, str) else "expected a directory"
    if problem:
        fail("tuninglab_workdir", problem.removeprefix("expected "))
    devices = hv.get("tuninglab_devices", [])
    if isinstance(devices, str):
        devices = [d.strip() for d in devices.split(",") if d.strip()]
    if not isinstance(devices, list) or not all(
            isinstance(d, str) and re.fullmatch(r"/dev/[A-Za-z0-9._/-]+", d) for d in devices):
        fail("tuninglab_devices", "block devices as /dev/NAME (a list, or separated by commas)")
    if devices and not flag(hv, "tuninglab_destroy_data", fail):
        raise UserError(f"{where}: host {name}: tuninglab_devices names {', '.join(devices)}: "
                        "every run erases them; set tuninglab_destroy_data: true for it to "
                        "confirm")
    user = hv.get("ansible_user")
    target = f"{user + '@' if user else ''}{hv.get('ansible_host', name)}" \
             f"{':' + str(hv['ansible_port']) if 'ansible_port' in hv else ''}"
    return Host(name, target, workdir, tuple(devices), flag(hv, "tuninglab_project", fail))


def flag(hv: dict, key: str, fail) -> bool:
    """A yes/no variable: a YAML boolean, or as INI's group variables give it (a string)."""
    value = hv.get(key, False)
    if isinstance(value, bool):
        return value
    if isinstance(value, str) and value.strip().lower() in TRUE | FALSE:
        return value.strip().lower() in TRUE
    fail(key, "true or false")


def workdir_problem(workdir: str) -> str | None:
    """Why a host's work directory is not one of the fleet's own, or None. It holds the trees,
    runs and work directories the fleet writes and removes: never / nor a directory the system
    or everyone uses, nor a home directory itself (/home/NAME), nor in a hidden directory (a
    name beginning with '.': ~/.ssh, ~/.config and their like hold keys and settings), and
    spelt as the one directory it is (absolute or under the SSH user's home, ~/DIR or DIR; no
    '//', '.' or '..' that would make it another)."""
    own = "expected a directory of its own for the fleet"
    relative = workdir[2:] if workdir.startswith("~/") else workdir
    path = relative.rstrip("/") or "/"  # a trailing '/' names the same directory
    if not relative.strip() or relative != relative.strip() or "\n" in workdir or path == ".":
        return own
    if path.startswith("~") or posixpath.normpath(path) != path or path.startswith("//") \
            or path.split("/")[0] == "..":
        return (f"{own}, written as an absolute path, ~/DIR or DIR (under the SSH user's home) "
                "without '//', '.' or '..'")
    if path in SHARED_DIRS or path.startswith(tuple(d + "/" for d in SYSTEM_TREES)) \
            or path in SYSTEM_TREES:
        return f"{own}, not / or a system directory ({path})"
    if HOME_ITSELF.fullmatch(path):
        return f"{own}, not a home directory itself ({path}; a directory in it is)"
    if any(part.startswith(".") for part in path.split("/")):
        return (f"{own}, not in a hidden directory ({path}): ~/.ssh, ~/.config and their like "
                "hold keys and settings")
    return None
