"""A fake MySQL server for the advise tests: a socket (TCP on 127.0.0.1, or a Unix socket)
speaking just enough of the protocol for PyMySQL to log in and query it, so that the real client
meets what a hostile or broken server may send: an auth switch to a cleartext plugin, a LOAD
DATA LOCAL request, an answer that trickles, a huge value, an error full of escape codes.

It serves one connection and records every packet the client sent (`received`)."""

import socket
import struct
import threading

# Capabilities: LONG_PASSWORD, PROTOCOL_41, TRANSACTIONS, SECURE_CONNECTION, PLUGIN_AUTH (no SSL,
# so PyMySQL does not try TLS; no DEPRECATE_EOF, so results end with EOF packets).
CAPABILITIES = 0x1 | 0x200 | 0x2000 | 0x8000 | 0x80000
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


def handshake() -> bytes:
    salt = b"abcdefgh" + b"ijklmnopqrst"
    return (b"\x0a" + b"10.11.14-MariaDB-fake\0" + struct.pack("<I", 7) + salt[:8] + b"\0"
            + struct.pack("<HBHHB", CAPABILITIES & 0xFFFF, 33, AUTOCOMMIT, CAPABILITIES >> 16,
                          21) + b"\0" * 10 + salt[8:] + b"\0" + b"mysql_native_password\0")


def standard(sql: str) -> list[bytes]:
    """A healthy server's answers."""
    if sql.startswith("SHOW GLOBAL VARIABLES"):
        return result(VARIABLES)
    if sql.startswith("SHOW GLOBAL STATUS"):
        return result(STATUS)
    return [ok()]


class FakeServer:
    """with FakeServer(answer=..., auth_switch=(plugin, data), trickle=seconds) as server:
    server.port (or server.path, given unix=PATH) is where it listens."""

    def __init__(self, answer=standard, auth_switch=None, trickle=0.0, unix=None):
        self.answer, self.auth_switch, self.trickle = answer, auth_switch, trickle
        self.received: list[bytes] = []
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
            conn, _ = self.listener.accept()
        except OSError:
            return
        with conn:
            try:
                self._session(conn)
            except OSError:
                pass  # the client went away, as it may

    def _session(self, conn):
        self._send(conn, 0, handshake())
        if self._receive(conn) is None:
            return
        seq = 2
        if self.auth_switch:
            plugin, data = self.auth_switch
            self._send(conn, 2, b"\xfe" + plugin + b"\0" + data)
            if self._receive(conn) is None:
                return
            seq = 4
        self._send(conn, seq, ok())
        while (packet := self._receive(conn)) is not None:
            if packet[:1] == b"\x01":  # COM_QUIT
                return
            for number, payload in enumerate(self.answer(packet[1:].decode()), 1):
                self._send(conn, number, payload, self.trickle)

    def _send(self, conn, seq: int, payload: bytes, trickle: float = 0.0):
        data = struct.pack("<I", len(payload))[:3] + bytes([seq % 256]) + payload
        if not trickle:
            conn.sendall(data)
            return
        for i in range(len(data)):  # a byte at a time, as a stalling server may
            if self.stop.wait(trickle):
                return
            conn.sendall(data[i:i + 1])

    def _receive(self, conn) -> bytes | None:
        header = self._exactly(conn, 4)
        if header is None:
            return None
        body = self._exactly(conn, int.from_bytes(header[:3], "little"))
        if body is not None:
            self.received.append(body)
        return body

    @staticmethod
    def _exactly(conn, n: int) -> bytes | None:
        data = b""
        while len(data) < n:
            chunk = conn.recv(n - len(data))
            if not chunk:
                return None
            data += chunk
        return data

