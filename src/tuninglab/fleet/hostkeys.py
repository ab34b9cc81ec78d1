"""A host's SSH key checked as OpenSSH checks it with StrictHostKeyChecking=yes: against the
user's ~/.ssh/known_hosts, the system's /etc/ssh/ssh_known_hosts and the inventory's
`known_hosts` file. A key none of them holds is refused, with the command that adds it once
its fingerprint is checked; a key that differs from the one they hold is refused loudly (the
host was reinstalled, or someone is in the middle). Fabric alone would take any key
(Paramiko's AutoAddPolicy), and a fleet host's results and commands are trusted as its own.

Paramiko reads the files (hashed names included); it has no @cert-authority nor @revoked:
a host known only through them is refused as unknown."""

from pathlib import Path

import paramiko

USER_FILE = "~/.ssh/known_hosts"
SYSTEM_FILE = "/etc/ssh/ssh_known_hosts"


class HostKeyError(Exception):
    """The host's key is not the one known for it; the message says what to do."""


def files(host) -> list[Path]:
    """The known_hosts files read for host: the user's and the system's where they exist (as
    ssh), and the inventory's, which must (a typo would refuse every host as unknown)."""
    found = [p for p in (Path(USER_FILE).expanduser(), Path(SYSTEM_FILE)) if p.is_file()]
    if host.known_hosts:
        own = Path(host.known_hosts).expanduser()
        if not own.is_file():
            raise HostKeyError(f"known_hosts {host.known_hosts}: no such file; expected the "
                               "known_hosts file the inventory names for this host")
        found.append(own)
    return found


def check_with(conn, host) -> None:
    """Make a Fabric connection check its host's key against the known_hosts files: load them
    and refuse what none holds. conn.host and conn.port are where it connects (an ~/.ssh/config
    Hostname may differ from the inventory's address), as known_hosts names them."""
    read = files(host)
    for path in read:
        conn.client.load_system_host_keys(str(path))
    conn.client.set_missing_host_key_policy(RefuseUnknown(conn.host, conn.port, host, read))


class RefuseUnknown(paramiko.MissingHostKeyPolicy):
    """A key no known_hosts file holds: refused, saying how to add it."""

    def __init__(self, address: str, port: int, host, read: list[Path]):
        self.address, self.port, self.host, self.read = address, port, host, read

    def missing_host_key(self, client, hostname, key):
        where = self.host.known_hosts or USER_FILE
        missing = (f"which is not in {', '.join(map(str, self.read))}" if self.read
                   else f"and there is no {USER_FILE}")
        raise HostKeyError(
            f"unknown host key for {hostname}: it offers {key.get_name()} {key.fingerprint}, "
            f"{missing}; check that fingerprint on the host (ssh-keygen -lf "
            f"/etc/ssh/ssh_host_*_key.pub), then add it: ssh-keyscan -p {self.port} "
            f"{self.address} >> {where} (or connect once with ssh)")


def changed(exc: paramiko.BadHostKeyException, port: int) -> HostKeyError:
    """The loud refusal of a key that is not the one known for the host."""
    name = exc.hostname if port == 22 else f"[{exc.hostname}]:{port}"
    return HostKeyError(
        f"HOST KEY CHANGED for {name}: it offers {exc.key.get_name()} {exc.key.fingerprint}, "
        f"known_hosts holds {exc.expected_key.get_name()} {exc.expected_key.fingerprint}. "
        "Someone may be intercepting the connection, or the host was reinstalled: refused. "
        f"Once you know why, remove the old key (ssh-keygen -R '{name}' [-f FILE]) and add "
        "the new one")
