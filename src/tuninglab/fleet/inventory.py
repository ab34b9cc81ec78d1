"""The hosts of a fleet run, as the user names them: `--hosts db1,db2` (each `[user@]address
[:port]`), or an inventory file whose hosts carry their own SSH user, port, key, work directory
and named devices:

    [defaults]                    # optional: every host's, unless it says otherwise
    user = "root"
    key = "~/.ssh/lab_ed25519"
    workdir = "/var/tmp/tuninglab"

    [hosts.db1]
    address = "10.0.0.11"         # default: the host's name
    port = 2222
    devices = ["/dev/nvme1n1"]    # erased by the recipe's runs: given with --destroy-data only

With both, `--hosts` picks from the inventory by name. Nothing else is ever contacted.
"""

import getpass
import re
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
KEYS = ("address", "user", "port", "key", "workdir", "devices")


@dataclass(frozen=True)
class Host:
    name: str                  # what progress, state and result files call it
    address: str
    user: str
    port: int = 22
    key: str | None = None     # a private key file; None: the SSH agent and ~/.ssh's keys
    workdir: str = DEFAULT_WORKDIR   # on the host: its trees, work directory and run logs
    devices: tuple = ()        # block devices on the host the recipe may erase

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
    else:
        raise UserError("name the hosts: --hosts db1,db2 or --inventory fleet.toml")
    return list(with_devices(found, devices).values())


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
        data = tomllib.loads(path.read_text())
    except OSError as exc:
        raise UserError(f"{path}: cannot read the inventory: {exc.strerror}") from None
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
    return found


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
    if not workdir.strip() or "\n" in workdir or workdir in ("/", "~", "~/"):
        t.fail("workdir", f"expected a directory of its own for the fleet, got {workdir!r}")
    devices = t.get("devices", list, [])
    for device in devices:
        if not isinstance(device, str) or not device.startswith("/dev/"):
            t.fail("devices", f"expected block devices as /dev/NAME, got {device!r}")
    return Host(name, address, user, port, value("key", str, None), workdir, tuple(devices))


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
