"""The one connection advise opens, careful of what is at its other end.

advise is pointed at a server it does not know: one misconfigured, or a program that merely
speaks the protocol. Whatever it sends, advise must not hand over a file or a password in clear
text, hang, or read without end:

- LOAD DATA LOCAL is off (PyMySQL's local_infile), and a server asking for a file anyway is
  refused (advise said it sends none: no honest server asks).
- The password never goes in clear text over plain TCP: the mysql_clear_password and dialog
  plugins send it so, and a server may switch to them after the normal scramble. They are
  allowed over a Unix socket or TLS with a verified certificate only, where nobody on the way
  reads it.
- At most MAX_BYTES are read in a session: a server's variables and status are some 100 KiB,
  and a packet longer than what is left is refused from its header, before it is read.
- The whole session has a deadline (within()): PyMySQL's read timeout holds for one read, and a
  server that sends a byte every few seconds never trips it.
"""

import socket
import ssl
import threading

import pymysql

MAX_BYTES = 4 * 2**20
CLEARTEXT_PLUGINS = (b"mysql_clear_password", b"dialog")


class Refused(Exception):
    """What the server did that advise will not go along with; the words follow "the server at
    WHERE"."""


class CarefulConnection(pymysql.connections.Connection):
    """PyMySQL's connection, with its two hooks for what a server sends: each packet's bytes
    (_read_bytes) and an authentication plugin's exchange (_process_auth)."""

    def __init__(self, max_bytes: int = MAX_BYTES, **options):
        self._left_to_read = max_bytes
        self._max_bytes = max_bytes
        super().__init__(local_infile=False, **options)

    def _read_bytes(self, num_bytes):
        if num_bytes > self._left_to_read:
            self._force_close()
            raise Refused(f"sent more than {self._max_bytes // 2**20} MiB: advise reads at "
                          "most that much (a server's variables and status are some 100 KiB)")
        self._left_to_read -= num_bytes
        return super()._read_bytes(num_bytes)

    def _process_auth(self, plugin_name, auth_packet, handler=None):
        if plugin_name in CLEARTEXT_PLUGINS and not self._private():
            self._force_close()
            raise Refused(f"asked for the password in clear text (the "
                          f"{plugin_name.decode('ascii', 'replace')} authentication plugin), "
                          "and advise refuses to send it over plain TCP: connect over the "
                          "server's Unix socket (--socket) or over TLS with a verified "
                          "certificate (ssl-ca in the --defaults-file's [client] group)")
        return super()._process_auth(plugin_name, auth_packet, handler)

    def _private(self) -> bool:
        """Whether nobody on the way can read what is sent: a Unix socket, or TLS whose
        certificate was checked (PyMySQL's TLS without ssl-ca checks none, and a man in the
        middle would read the password as well as the server)."""
        if self.unix_socket:
            return True
        return bool(self._secure and self.ctx.verify_mode == ssl.CERT_REQUIRED)

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
