"""The hosts of a fleet run, as the user names them: `--hosts db1,db2` (each `[user@]address
[:port]`), or an inventory file whose hosts carry their own SSH user, port, key, work directory
and named devices:

    [defaults]                    # optional: every host's, unless it says otherwise
    user = "root"
    key = "~/.ssh/lab_ed25519"
    workdir = "/var/tmp/tuninglab"
    known_hosts = "~/lab/known_hosts"   # read besides ~/.ssh/known_hosts and the system's

    [hosts.db1]
    address = "10.0.0.11"         # default: the host's name
    port = 2222
    devices = ["/dev/nvme1n1"]    # erased by the recipe's runs: given with --destroy-data only
    project = true                # the project's own machine: its results are the project's

With both, `--hosts` picks from the inventory by name. Nothing else is ever contacted, and a
host's SSH key must be known (fleet/hostkeys.py). A host's results are contributions (as
data.submit makes them) unless it is marked `project = true`: only then are they saved as the
project's own results, which a contribution can never pose as.
"""

import getpass
import ipaddress
import os
import posixpath
import re
import stat
import tomllib
from dataclasses import dataclass, replace
from pathlib import Path

from tuninglab.errors import UserError
from tuninglab.recipes.reader import Reader

# A name is a file name on this side (state, logs) and what result files show of the host.
NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,62}")
ADDRESS = re.compile(r"[A-Za-z0-9._-]+|[0-9A-Fa-f:.]+")
SPEC = re.compile(r"(?:(?P<user>[^@]+)@)?"
                  r"(?:\[(?P<v6>[0-9A-Fa-f:.]+)\]|(?P<address>[A-Za-z0-9._-]+))"
                  r"(?::(?P<port>[0-9]+))?")
DEFAULT_WORKDIR = "tuninglab-fleet"   # under the SSH user's home
KEYS = ("address", "user", "port", "key", "workdir", "devices", "known_hosts", "project")
MAX_INVENTORY = 1 << 20   # bytes: a host is a few lines; more is not an inventory
# The system's own directories: a fleet work directory is never one of them nor below one.
SYSTEM_TREES = ("/etc", "/usr", "/bin", "/sbin", "/boot", "/dev", "/proc", "/sys", "/lib",
                "/lib32", "/lib64", "/libx32", "/run")
# Directories shared by everything on the host: one below them is the fleet's own, they are not.
SHARED_DIRS = {"/", "/var", "/var/lib", "/var/log", "/var/cache", "/var/spool", "/var/mail",
               "/var/backups", "/var/tmp", "/tmp", "/home", "/root", "/opt", "/srv", "/mnt",
               "/media", "/snap"}
HOME_ITSELF = re.compile(r"/(?:home|Users)/[^/]+")


@dataclass(frozen=True)
class Host:
    name: str                  # what progress, state and result files call it
    address: str
    user: str
    port: int = 22
    key: str | None = None     # a private key file; None: the SSH agent and ~/.ssh's keys
    workdir: str = DEFAULT_WORKDIR   # on the host: its trees, work directory and run logs
    devices: tuple = ()        # block devices on the host the recipe may erase
    known_hosts: str | None = None   # a known_hosts file read besides the user's and system's
    project: bool = False      # the project's own machine: its results are not contributions

    @property
    def target(self) -> str:
        return f"{self.user}@{self.address}:{self.port}"


def hosts(names: str | None, inventory: str | None, devices=()) -> list[Host]:
    """The hosts a fleet command acts on, with each `host:/dev/X` of devices added to its
    host's. UserError when none is named, a name repeats, or a device names no host."""
    if inventory:
        found = load(Path(inventory))
        if names:
            wanted = split_names(names)
            unknown = [n for n in wanted if n not in found]
            if unknown:
                raise UserError(f"--hosts: {', '.join(unknown)} not in {inventory} (it has "
                                f"{', '.join(found)})")
            found = {n: found[n] for n in wanted}
    elif names:
        found = {}
        for spec in split_names(names):
            host = parse_spec(spec)
            if host.name in found:
                raise UserError(f"--hosts: {host.name} is named twice")
            found[host.name] = host
        check_machines(found, "--hosts")
    else:
        raise UserError("name the hosts: --hosts db1,db2 or --inventory fleet.toml")
    return list(with_devices(found, devices).values())


def check_machines(found: dict, where: str) -> None:
    """Each host a machine of its own: two names for one address and port would run the
    recipe twice at once there, in one work directory."""
    seen = {}
    for name, host in found.items():
        machine = (_address_key(host.address), host.port)
        if machine in seen:
            raise UserError(f"{where}: {seen[machine]} and {name} are the same machine "
                            f"({host.address} port {host.port}); expected each host once")
        seen[machine] = name


def _address_key(address: str) -> str:
    """One spelling of an address: IPv6's shortest form, a host name in lower case."""
    try:
        return ipaddress.ip_address(address).compressed
    except ValueError:
        return address.lower().rstrip(".")


def split_names(text: str) -> list[str]:
    names = [n.strip() for n in text.split(",") if n.strip()]
    if not names:
        raise UserError(f"--hosts: expected names separated by commas, got {text!r}")
    return names


def parse_spec(spec: str) -> Host:
    """`[user@]address[:port]` (an IPv6 address in brackets); the address names the host."""
    m = SPEC.fullmatch(spec)
    if not m or (m["user"] and not NAME.fullmatch(m["user"])):
        raise UserError(f"--hosts: {spec!r} is not [user@]address[:port] (an IPv6 address "
                        "goes in brackets)")
    address = m["v6"] or m["address"]
    port = _port(m["port"], f"--hosts: {spec}") if m["port"] else 22
    name = address.replace(":", "-")
    if not NAME.fullmatch(name):
        raise UserError(f"--hosts: {spec!r}: give it a name in an inventory file")
    return Host(name, address, m["user"] or getpass.getuser(), port)


def load(path: Path) -> dict[str, Host]:
    """An inventory file's hosts by name; errors name the file and the key."""
    try:
        data = tomllib.loads(read_bounded(path).decode("utf-8"))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise UserError(f"{path}: not valid TOML: {exc}") from None
    top = Reader(path, data)
    top.only("defaults", "hosts")
    defaults = top.table("defaults", required=False)
    defaults.only(*(k for k in KEYS if k not in ("address", "devices")))
    table = top.table("hosts")
    if not table.data:
        table.fail("", "expected at least one [hosts.NAME] table")
    found = {}
    for name in table.data:
        if not NAME.fullmatch(name):
            table.fail(name, "a host's name is letters, digits, '.', '_' and '-' (at most 63)")
        found[name] = _host(name, table.table(name), defaults)
    check_machines(found, str(path))
    return found


def read_bounded(path: Path) -> bytes:
    """The inventory's bytes: a regular file of at most MAX_INVENTORY bytes (/dev/zero or a
    pipe would be read without end)."""
    try:
        with open(path, "rb", opener=_no_block) as f:
            if not stat.S_ISREG(os.fstat(f.fileno()).st_mode):
                raise UserError(f"{path}: not a regular file; expected an inventory file "
                                "(TOML)")
            data = f.read(MAX_INVENTORY + 1)
    except OSError as exc:
        raise UserError(f"{path}: cannot read the inventory: {exc.strerror}") from None
    if len(data) > MAX_INVENTORY:
        raise UserError(f"{path}: over {MAX_INVENTORY >> 10} KiB; expected an inventory file "
                        "(TOML) of a few lines per host")
    return data


def _no_block(path, flags):
    # Opening a FIFO for reading waits for a writer: O_NONBLOCK returns at once (and is
    # harmless for a regular file), so the check above can refuse it.
    return os.open(path, flags | os.O_NONBLOCK)


def _host(name: str, t: Reader, defaults: Reader) -> Host:
    t.only(*KEYS)

    def value(key, kind, default):
        return t.get(key, kind, defaults.get(key, kind, default))

    address = t.get("address", str, name)
    if not ADDRESS.fullmatch(address):
        t.fail("address", f"expected a host name or IP address, got {address!r}")
    user = value("user", str, getpass.getuser())
    if not NAME.fullmatch(user):
        t.fail("user", f"expected a user name, got {user!r}")
    port = value("port", int, 22)
    if not 1 <= port <= 65535:
        t.fail("port", f"expected a TCP port from 1 to 65535, got {port}")
    workdir = value("workdir", str, DEFAULT_WORKDIR)
    problem = workdir_problem(workdir)
    if problem:
        t.fail("workdir", f"{problem}, got {workdir!r}")
    devices = t.get("devices", list, [])
    for device in devices:
        if not isinstance(device, str) or not device.startswith("/dev/"):
            t.fail("devices", f"expected block devices as /dev/NAME, got {device!r}")
    return Host(name, address, user, port, value("key", str, None), workdir, tuple(devices),
                value("known_hosts", str, None), value("project", bool, False))


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


def with_devices(found: dict, devices) -> dict:
    """Each `host:/dev/X` of --device added to its host's devices."""
    out = dict(found)
    for spec in devices:
        name, sep, device = spec.partition(":")
        if not sep or not device.startswith("/dev/"):
            raise UserError(f"--device: expected host:/dev/NAME, got {spec!r}")
        if name not in out:
            raise UserError(f"--device {spec}: {name} is not one of the hosts "
                            f"({', '.join(out)})")
        if device not in out[name].devices:
            out[name] = replace(out[name], devices=out[name].devices + (device,))
    return out


def _port(text: str, where: str) -> int:
    if not text.isdigit() or not 1 <= int(text) <= 65535:
        raise UserError(f"{where}: expected a TCP port from 1 to 65535, got {text!r}")
    return int(text)
