"""A fake MySQL server for the advise tests: a socket (TCP on 127.0.0.1, or a Unix socket)
speaking just enough of the protocol for PyMySQL to log in and query it, so that the real client
meets what a hostile or broken server may send: an auth switch to a cleartext plugin, a LOAD
DATA LOCAL request, an RSA public key of its own, an answer that trickles, a huge value, an error
full of escape codes. Given a TLS context it offers TLS, as a man in the middle would: what it
records is what it reads inside.

It serves one connection and records every packet the client sent (`received`)."""

import socket
import struct
import threading

# Capabilities: LONG_PASSWORD, PROTOCOL_41, TRANSACTIONS, SECURE_CONNECTION, PLUGIN_AUTH (SSL
# only when given a TLS context, so PyMySQL tries TLS only then; no DEPRECATE_EOF, so results
# end with EOF packets).
CAPABILITIES = 0x1 | 0x200 | 0x2000 | 0x8000 | 0x80000
CLIENT_SSL = 0x800
SALT = b"abcdefgh" + b"ijklmnopqrst"  # the greeting's 20 bytes; a switch sends them again
AUTOCOMMIT = 0x0002
VARIABLES = {"version": "10.11.14-MariaDB-fake", "version_comment": "fake",
             "innodb_flush_log_at_trx_commit": "1"}
STATUS = {"threads_running": "1"}


def lenenc(data: bytes) -> bytes:
    n = len(data)
    head = bytes([n]) if n < 251 else b"\xfc" + struct.pack("<H", n) if n < 2**16 \
        else b"\xfd" + struct.pack("<I", n)[:3]
    return head + data


def ok() -> bytes:
    return b"\x00\x00\x00" + struct.pack("<HH", AUTOCOMMIT, 0)


def eof() -> bytes:
    return b"\xfe" + struct.pack("<HH", 0, AUTOCOMMIT)


def error(code: int, message: str) -> bytes:
    return b"\xff" + struct.pack("<H", code) + b"#HY000" + message.encode()


def column(name: str) -> bytes:
    return (b"".join(lenenc(x) for x in (b"def", b"", b"", b"", name.encode(), b""))
            + b"\x0c" + struct.pack("<HIBHB", 33, 1024, 0xFD, 0, 0) + b"\0\0")


def result(pairs: dict) -> list[bytes]:
    """A two-column result set (Variable_name, Value), as SHOW GLOBAL VARIABLES gives it."""
    rows = [lenenc(k.encode()) + lenenc(v.encode()) for k, v in pairs.items()]
    return [b"\x02", column("Variable_name"), column("Value"), eof(), *rows, eof()]


def handshake(plugin: bytes = b"mysql_native_password", tls: bool = False) -> bytes:
    """The greeting: the server's salt and the plugin it names first; CLIENT_SSL if tls."""
    capabilities = CAPABILITIES | (CLIENT_SSL if tls else 0)
    return (b"\x0a" + b"10.11.14-MariaDB-fake\0" + struct.pack("<I", 7) + SALT[:8] + b"\0"
            + struct.pack("<HBHHB", capabilities & 0xFFFF, 33, AUTOCOMMIT, capabilities >> 16,
                          21) + b"\0" * 10 + SALT[8:] + b"\0" + plugin + b"\0")


def auth_data(response: bytes) -> bytes:
    """The authentication data in a client's handshake response: after its flags, packet
    size, charset, filler and user, one length byte (SECURE_CONNECTION) and the data."""
    rest = response[32:]
    rest = rest[rest.index(b"\0") + 1:]
    return rest[1:1 + rest[0]]


# Authentication exchanges: auth(server, data) after the client's handshake response (data: the
# authentication data in it); they talk through server.reply and server.receive, and return
# whether to go on (the OK packet) or stop (the client went away).

def switch_to(plugin: bytes, data: bytes):
    """An auth switch to plugin with data; whatever the client answers is taken."""
    def auth(server, _):
        server.reply(b"\xfe" + plugin + b"\0" + data)
        return server.receive() is not None
    return auth


def sha256_password(key_pem: bytes, switch: bool = False):
    """sha256_password, named in the greeting or switched to: a client that asks for the
    server's RSA key (\\x01) gets key_pem; what it sends then is taken as the password."""
    def auth(server, data):
        if switch:
            server.reply(b"\xfe" + b"sha256_password\0" + SALT + b"\0")
            data = server.receive()
        if data == b"\x01":
            server.reply(b"\x01" + key_pem)
            data = server.receive()
        return data is not None
    return auth


def caching_sha2_password(key_pem: bytes, full: bool = True, switch: bool = False):
    """caching_sha2_password, named in the greeting or switched to: the client's scramble is
    answered with fast authentication's success (\\x01\\x03) or, full, a demand for the
    password (\\x01\\x04); a client that asks for the server's RSA key (\\x02) gets key_pem."""
    def auth(server, data):
        if switch:
            server.reply(b"\xfe" + b"caching_sha2_password\0" + SALT + b"\0")
            if server.receive() is None:
                return False
        if not full:
            server.reply(b"\x01\x03")
            return True
        server.reply(b"\x01\x04")
        data = server.receive()
        if data == b"\x02":
            server.reply(b"\x01" + key_pem)
            data = server.receive()
        return data is not None
    return auth


def standard(sql: str) -> list[bytes]:
    """A healthy server's answers."""
    if sql.startswith("SHOW GLOBAL VARIABLES"):
        return result(VARIABLES)
    if sql.startswith("SHOW GLOBAL STATUS"):
        return result(STATUS)
    return [ok()]


class FakeServer:
    """with FakeServer(answer=..., auth_switch=(plugin, data), trickle=seconds) as server:
    server.port (or server.path, given unix=PATH) is where it listens. plugin is the one its
    greeting names, auth an exchange above (auth_switch: switch_to's), tls an ssl.SSLContext
    to offer TLS with (tls_used: whether the client took it)."""

    def __init__(self, answer=standard, auth_switch=None, trickle=0.0, unix=None,
                 plugin=b"mysql_native_password", auth=None, tls=None):
        self.answer, self.trickle, self.plugin, self.tls = answer, trickle, plugin, tls
        self.auth = switch_to(*auth_switch) if auth_switch else auth
        self.received: list[bytes] = []
        self.tls_used = False
        self.conn, self.next_seq = None, 0
        self.stop = threading.Event()
        if unix:
            self.listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            self.listener.bind(str(unix))
            self.listener.listen(1)
            self.path, self.port = str(unix), None
        else:
            self.listener = socket.create_server(("127.0.0.1", 0))
            self.path, self.port = None, self.listener.getsockname()[1]
        self.thread = threading.Thread(target=self._serve, daemon=True)

    def __enter__(self):
        self.thread.start()
        return self

    def __exit__(self, *exc):
        self.stop.set()
        self.listener.close()
        self.thread.join(5)

    def sent(self) -> bytes:
        return b"".join(self.received)

    def _serve(self):
        try:
            self.conn, _ = self.listener.accept()
        except OSError:
            return
        try:
            self._session()
        except OSError:
            pass  # the client went away, as it may (or refused the TLS handshake)
        finally:
            self.conn.close()

    def _session(self):
        self.reply(handshake(self.plugin, tls=self.tls is not None))
        response = self.receive()
        if response is not None and self.tls and len(response) == 32 \
                and int.from_bytes(response[:4], "little") & CLIENT_SSL:
            self.conn = self.tls.wrap_socket(self.conn, server_side=True)
            self.tls_used = True
            response = self.receive()
        if response is None or (self.auth and not self.auth(self, auth_data(response))):
            return
        self.reply(ok())
        while (packet := self.receive()) is not None:
            if packet[:1] == b"\x01":  # COM_QUIT
                return
            for payload in self.answer(packet[1:].decode()):
                self.reply(payload, self.trickle)

    def reply(self, payload: bytes, trickle: float = 0.0):
        """Send a packet, numbered after the client's last."""
        data = struct.pack("<I", len(payload))[:3] + bytes([self.next_seq % 256]) + payload
        self.next_seq += 1
        if not trickle:
            self.conn.sendall(data)
            return
        for i in range(len(data)):  # a byte at a time, as a stalling server may
            if self.stop.wait(trickle):
                return
            self.conn.sendall(data[i:i + 1])

    def receive(self) -> bytes | None:
        """The client's next packet; None once it has gone."""
        header = self._exactly(4)
        if header is None:
            return None
        self.next_seq = header[3] + 1
        body = self._exactly(int.from_bytes(header[:3], "little"))
        if body is not None:
            self.received.append(body)
        return body

    def _exactly(self, n: int) -> bytes | None:
        data = b""
        while len(data) < n:
            chunk = self.conn.recv(n - len(data))
            if not chunk:
                return None
            data += chunk
        return data
