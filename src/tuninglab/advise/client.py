"""The one connection advise opens, careful of what is at its other end.

advise is pointed at a server it does not know: one misconfigured, or a program that merely
speaks the protocol. Whatever it sends, advise must not hand over a file or a password in clear
text, hang, or read without end:

- LOAD DATA LOCAL is off (PyMySQL's local_infile), and a server asking for a file anyway is
  refused (advise said it sends none: no honest server asks).
- The password never goes in clear text over plain TCP: the mysql_clear_password and dialog
  plugins send it so, and a server may switch to them after the normal scramble. They are
  allowed over a Unix socket or TLS with a verified certificate only, where nobody on the way
  reads it. So are sha256_password and caching_sha2_password's full authentication, which
  PyMySQL would send in clear inside any TLS, its certificate checked or not.
- Elsewhere those two encrypt the password to an RSA key: only to the one the user gave
  (server-public-key-path), never to one the server sends, which is anyone's who stands
  between (MySQL's clients take it only when told --get-server-public-key). caching_sha2's
  fast authentication, a scramble, sends no password and needs neither.
- At most MAX_BYTES are read in a session: a server's variables and status are some 100 KiB,
  and a packet longer than what is left is refused from its header, before it is read.
- The whole session has a deadline (within()): PyMySQL's read timeout holds for one read, and a
  server that sends a byte every few seconds never trips it.
"""

import socket
import ssl
import stat
import threading
from pathlib import Path

import pymysql
from pymysql.constants import CLIENT

from tuninglab.errors import UserError
from tuninglab.visible import visible

MAX_BYTES = 4 * 2**20
CLEARTEXT_PLUGINS = (b"mysql_clear_password", b"dialog")
MAX_KEY_BYTES = 64 * 2**10  # an RSA public key in PEM is under 2 KiB even at 8192 bits
HOW = ("set server-public-key-path (a copy of the server's public key) or ssl-ca (TLS with a "
       "verified certificate) in the --defaults-file's [client] group, or connect over the "
       "server's Unix socket (--socket)")


class Refused(Exception):
    """What the server did that advise will not go along with; the words follow "the server at
    WHERE"."""


class CarefulConnection(pymysql.connections.Connection):
    """PyMySQL's connection, with its hooks for what a server sends: each packet's bytes
    (_read_bytes), an authentication plugin's exchange (_process_auth, _request_authentication),
    what it calls a secure transport (_secure) and the RSA key it encrypts to
    (server_public_key)."""

    def __init__(self, max_bytes: int = MAX_BYTES, server_public_key: bytes | None = None,
                 **options):
        self._left_to_read = max_bytes
        self._max_bytes = max_bytes
        self._users_key = server_public_key
        self._servers_key = None
        self._tls_or_socket = False  # what PyMySQL sets as _secure
        self._plugin = ""            # the authentication plugin of the exchange under way
        super().__init__(local_infile=False, server_public_key=server_public_key, **options)

    def _read_bytes(self, num_bytes):
        if num_bytes > self._left_to_read:
            self._force_close()
            raise Refused(f"sent more than {self._max_bytes // 2**20} MiB: advise reads at "
                          "most that much (a server's variables and status are some 100 KiB)")
        self._left_to_read -= num_bytes
        return super()._read_bytes(num_bytes)

    def _refuse(self, words: str):
        self._force_close()
        raise Refused(words)

    def _request_authentication(self):
        self._plugin = self._auth_plugin_name
        # The one path the hooks below do not see: a greeting that names sha256_password has
        # PyMySQL put the password in clear into its first answer whenever TLS is on.
        tls = self.ssl and self.server_capabilities & CLIENT.SSL
        if self._plugin == "sha256_password" and self.password and tls \
                and not (self.unix_socket or self._verified()):
            self._refuse("asked for the password in clear inside TLS whose certificate advise "
                         "cannot check (the sha256_password authentication plugin, and no "
                         "ssl-ca): set ssl-ca in the --defaults-file's [client] group, or "
                         "connect over the server's Unix socket (--socket)")
        return super()._request_authentication()

    def _process_auth(self, plugin_name, auth_packet, handler=None):
        self._plugin = visible(plugin_name.decode("ascii", "replace"))
        if plugin_name in CLEARTEXT_PLUGINS and not self._private():
            self._refuse(f"asked for the password in clear text (the {self._plugin} "
                         "authentication plugin), and advise refuses to send it over plain "
                         "TCP: connect over the server's Unix socket (--socket) or over TLS "
                         "with a verified certificate (ssl-ca in the --defaults-file's "
                         "[client] group)")
        return super()._process_auth(plugin_name, auth_packet, handler)

    @property
    def _secure(self) -> bool:
        """PyMySQL's sha256_password and caching_sha2_password send the password in clear
        where this is true, and encrypt it to an RSA key where it is false. PyMySQL sets it
        for a Unix socket and for any TLS; advise answers true only where nobody on the way
        reads the password."""
        return self._private()

    @_secure.setter
    def _secure(self, value: bool) -> None:
        self._tls_or_socket = value

    @property
    def server_public_key(self) -> bytes | None:
        """The RSA key PyMySQL encrypts the password to: the user's, else one a server sent
        while there was no password to encrypt."""
        return self._users_key or self._servers_key

    @server_public_key.setter
    def server_public_key(self, key: bytes | None) -> None:
        # PyMySQL sets it from its argument, then from each key a server sends.
        if key is None or self._users_key:
            return  # the user's key wins, as in MySQL's clients: a server's is not used
        if not self.password:
            self._servers_key = key
            return
        full = ", asking for full authentication" \
            if self._plugin == "caching_sha2_password" else ""
        self._refuse(f"sent its own RSA public key to encrypt the password to (the "
                     f"{self._plugin} authentication plugin{full}), and advise will not: "
                     f"whoever sent the key could read the password; {HOW}")

    def _private(self) -> bool:
        """Whether nobody on the way can read what is sent: a Unix socket, or TLS whose
        certificate was checked."""
        if self.unix_socket:
            return True
        return self._tls_or_socket and self._verified()

    def _verified(self) -> bool:
        """Whether TLS, where it is on, checks the server's certificate: PyMySQL's TLS without
        ssl-ca checks none, and a man in the middle would read the password as well as the
        server."""
        ctx = getattr(self, "ctx", None)
        return ctx is not None and ctx.verify_mode == ssl.CERT_REQUIRED

    def abort(self):
        """Cut the connection from another thread: a read blocked on it returns at once."""
        sock = self._sock
        if sock is not None:
            try:
                sock.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass


def within(seconds: float, work):
    """work(opened) in a thread of its own, for at most seconds; what it returns or raises. work
    puts each connection it opens into the list opened, so that they can be cut when the time
    is up. A name lookup that hangs is left behind in its thread, which is a daemon."""
    opened: list[CarefulConnection] = []
    outcome = {}

    def run():
        try:
            outcome["value"] = work(opened)
        except BaseException as exc:  # handed to the caller's thread, raised there
            outcome["error"] = exc

    thread = threading.Thread(target=run, name="advise-session", daemon=True)
    thread.start()
    thread.join(seconds)
    if thread.is_alive():
        for conn in opened:
            conn.abort()
        raise Refused(f"did not finish answering within {seconds:g} s: advise gives up "
                      "(its limit for the whole session, whatever the server sends)")
    if "error" in outcome:
        raise outcome["error"]
    return outcome["value"]


def public_key_file(path: str, where: str) -> bytes:
    """The server's RSA public key, from the file the option file's server-public-key-path
    names (a copy of the server's public_key.pem), checked before any connection; one line
    naming where and the file for what is wrong with it."""
    label = f"{where}: server-public-key-path {path}"
    file = Path(path).expanduser()
    try:
        info = file.stat()
        if not stat.S_ISREG(info.st_mode) or info.st_size > MAX_KEY_BYTES:
            raise UserError(f"{label}: not a public key file (expected a PEM file of a few "
                            "lines, as the server's public_key.pem)")
        if info.st_mode & stat.S_IWOTH:
            raise UserError(f"{label}: anyone may write it, and so put their own key there "
                            f"(chmod o-w {file})")
        pem = file.read_bytes()
    except FileNotFoundError:
        raise UserError(f"{label}: no such file") from None
    except OSError as exc:
        raise UserError(f"{label}: cannot read it ({exc.strerror})") from None
    _check_rsa_key(pem, label)
    return pem


def _check_rsa_key(pem: bytes, label: str) -> None:
    try:  # PyMySQL's RSA exchange needs the cryptography package as well
        from cryptography.exceptions import UnsupportedAlgorithm
        from cryptography.hazmat.primitives.asymmetric import rsa
        from cryptography.hazmat.primitives.serialization import load_pem_public_key
    except ImportError:
        raise UserError(f"{label}: encrypting the password to it needs the cryptography "
                        "package (pip install cryptography)") from None
    try:
        key = load_pem_public_key(pem)
    except (ValueError, TypeError, UnsupportedAlgorithm):
        key = None
    if not isinstance(key, rsa.RSAPublicKey):
        raise UserError(f"{label}: not an RSA public key in PEM (expected what the server's "
                        "public_key.pem holds, beginning '-----BEGIN PUBLIC KEY-----')")
