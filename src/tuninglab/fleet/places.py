"""Where a fleet host's files may live and what a recipe may erase there, as the inventory
names them: the work directory (tuninglab_workdir), which the fleet fills, removes and
rewrites, and the devices (tuninglab_devices), which every run erases. inventory.py checks
both over the inventory's text before any host is contacted; the host checks the work
directory again once resolved there (ansible/where.sh, with the refused directories the
playbooks get from playbook_vars), where a relative directory lands under the SSH user's home
and a symlink may lead elsewhere, neither of which this side can see."""

import posixpath
import re

from tuninglab.visible import visible

DEFAULT_WORKDIR = "tuninglab-fleet"   # under the SSH user's home
# The system's own directories: a fleet work directory is never one of them nor below one.
SYSTEM_TREES = ("/etc", "/usr", "/bin", "/sbin", "/boot", "/efi", "/dev", "/proc", "/sys",
                "/lib", "/lib32", "/lib64", "/libx32", "/run", "/var/run", "/var/lock",
                "/lost+found")
# Below the shared /var/lib: live servers' data (a running MySQL or MariaDB datadir, whatever
# its server) and the state of the host's packages and containers, which a removed or
# rewritten work directory would destroy.
DATA_TREES = ("/var/lib/mysql", "/var/lib/mysql-files", "/var/lib/mysql-keyring",
              "/var/lib/mariadb", "/var/lib/postgresql", "/var/lib/dpkg", "/var/lib/apt",
              "/var/lib/rpm", "/var/lib/docker", "/var/lib/containers")
# Directories shared by everything on the host: one below them is the fleet's own, they are not.
SHARED_DIRS = ("/", "/var", "/var/lib", "/var/log", "/var/cache", "/var/spool", "/var/mail",
               "/var/backups", "/var/tmp", "/tmp", "/home", "/root", "/opt", "/srv", "/mnt",
               "/media", "/snap")
HOME_ITSELF = re.compile(r"/(?:home|Users)/[^/]+")
# /dev/NAME or /dev/DIR/NAME: each part begins with a letter, digit, '_' or '-', so none is
# '.' or '..' and no '//' hides another path (/dev/../etc/passwd is /etc/passwd).
DEVICE = re.compile(r"/dev(?:/[A-Za-z0-9_-][A-Za-z0-9._-]*)+")


def workdir_problem(workdir: str) -> str | None:
    """Why a host's work directory is not one of the fleet's own, or None. It holds the trees,
    runs and work directories the fleet writes and removes: never / nor a directory the system
    or everyone uses, nor a live server's data (DATA_TREES), nor a home directory itself
    (/home/NAME), nor in a hidden directory (a name beginning with '.': ~/.ssh, ~/.config and
    their like hold keys and settings), and spelt as the one directory it is (absolute or
    under the SSH user's home, ~/DIR or DIR; no '//', '.' or '..' that would make it another,
    so the text compared here is the directory the host uses)."""
    own = "expected a directory of its own for the fleet"
    relative = workdir[2:] if workdir.startswith("~/") else workdir
    path = relative.rstrip("/") or "/"  # a trailing '/' names the same directory
    if not relative.strip() or relative != relative.strip() or visible(workdir) != workdir \
            or path == ".":
        return own
    if path.startswith("~") or posixpath.normpath(path) != path or path.startswith("//") \
            or path.split("/")[0] == "..":
        return (f"{own}, written as an absolute path, ~/DIR or DIR (under the SSH user's home) "
                "without '//', '.' or '..'")
    if path in SHARED_DIRS or under(path, SYSTEM_TREES):
        return f"{own}, not / or a system directory ({path})"
    if under(path, DATA_TREES):
        return (f"{own}, not in {under(path, DATA_TREES)} (a live server's data, or the "
                "system's package state)")
    if HOME_ITSELF.fullmatch(path):
        return f"{own}, not a home directory itself ({path}; a directory in it is)"
    if any(part.startswith(".") for part in path.split("/")):
        return (f"{own}, not in a hidden directory ({path}): ~/.ssh, ~/.config and their like "
                "hold keys and settings")
    return None


def under(path: str, trees) -> str | None:
    """The one of trees that path is or lies below, or None."""
    return next((t for t in trees if path == t or path.startswith(t + "/")), None)


def device_problem(device) -> str | None:
    """Why a host's device is not a block device path the fleet may name, or None."""
    if isinstance(device, str) and DEVICE.fullmatch(device):
        return None
    return ("block devices as /dev/NAME (a list, or separated by commas), each written as the "
            "one path it is (no '.', '..' or '//')")


def playbook_vars(hosts) -> dict:
    """What the playbooks take of the inventory: each host's work directory and devices as
    checked here (the playbooks read no tuninglab_* variable themselves, so Ansible never
    templates the inventory's text of them), and the directories ansible/where.sh refuses
    once the work directory is resolved on the host: TREE..., then '=', then DIR... (a
    directory itself only)."""
    return {"fleet_hosts": {h.name: {"workdir": h.workdir, "devices": list(h.devices)}
                            for h in hosts},
            "fleet_refused": [*SYSTEM_TREES, *DATA_TREES, "=", *SHARED_DIRS]}
