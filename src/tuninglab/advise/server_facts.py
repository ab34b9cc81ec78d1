"""What a running server says of itself, read through one connection that only reads.

The account needs no privilege beyond logging in (USAGE): SHOW GLOBAL VARIABLES and SHOW GLOBAL
STATUS are open to every account. On MySQL the history list length lives in
information_schema.INNODB_METRICS, which needs PROCESS; without it the length is recorded as
absent, and the purge row says so. The password never comes from the command line: from
MYSQL_PWD, or an option file's client groups (--defaults-file, read by option_files.py).
The connection is client.py's: careful of a server that is not what it seems.
"""

import os
import re
import struct
from dataclasses import dataclass, field
from pathlib import Path

import pymysql

from tuninglab.advise import client, option_files
from tuninglab.errors import UserError
from tuninglab.evidence.server_readings import ServerFacts, flavor_of, version_of
from tuninglab.visible import visible

PRIVILEGES = "USAGE (login only); PROCESS optionally, for MySQL's history list length"
# MySQL client error numbers and server error codes, as pymysql raises them.
CANNOT_CONNECT = {2002, 2003, 2005, 2006, 2013}
ACCESS_DENIED = {1044, 1045, 1698}
NO_PRIVILEGE = {1142, 1143, 1227, 1370}
# The whole session, connecting included, whatever the server sends (client.within).
DEADLINE = 60
SSL_KEYS = ("ca", "capath", "cert", "key", "cipher")


@dataclass(frozen=True)
class Target:
    """Where the server is: a socket, or host and port; the user; an option file."""
    socket: str = ""
    host: str = ""
    port: int | None = None  # None: the option file's, or 3306
    user: str = ""
    defaults_file: str = ""
    # Only a program sets it (the examples' throwaway account); a person's comes from
    # MYSQL_PWD or the option file, never the command line.
    password: str | None = field(default=None, repr=False)

    @property
    def where(self) -> str:
        if self.socket:
            return f"socket {self.socket}"
        return f"{self.host}:{self.port}" if self.port else self.host

    @property
    def local(self) -> bool:
        """Whether the server runs on this machine, so that its datadir can be read here."""
        return bool(self.socket) or self.host in ("", "localhost", "127.0.0.1", "::1")


def port_number(value, name: str = "--port") -> int:
    """A TCP port, from the command line or an option file: ASCII digits only (int() would take
    '١٠' or ' 80'), 1 to 65535."""
    text = str(value)
    if not re.fullmatch(r"[0-9]{1,5}", text) or not 1 <= int(text) <= 65535:
        raise UserError(f"{name}: expected a TCP port number 1-65535, got {value!r}")
    return int(text)


def _file_port(value: str, where: str) -> int:
    try:
        return port_number(value)
    except UserError:  # its words would show the file's text
        raise UserError(f"{where}: port: expected a TCP port number 1-65535") from None


def _from_file(path: str) -> dict:
    """What advise takes from the option file: the login, the port, TLS and the server's RSA
    public key (the command line names the server, so its host and socket are not read)."""
    found = option_files.read(path)
    options, ssl = {}, {}
    for name in ("user", "password", "port", "server-public-key-path",
                 *(f"ssl-{k}" for k in SSL_KEYS)):
        if name not in found:
            continue
        value, where = found[name].value, found[name].where
        if value is None:
            raise UserError(f"{where}: {name} without a value (advise never prompts for one)")
        if name == "port":
            options["port"] = _file_port(value, where)
        elif name == "server-public-key-path":
            options["server_public_key"] = client.public_key_file(value, where)
        elif name.startswith("ssl-"):
            ssl[name.removeprefix("ssl-")] = value
        else:
            options[name] = value
    if ssl:
        options["ssl"] = ssl
    return options


def _password(target: Target, from_file: str | None) -> bytes | None:
    """The password as bytes, sent as they are: PyMySQL would encode a str as Latin-1, which
    fails on most scripts and differs from what `mysql` sends for the rest."""
    if target.password is not None:
        return target.password.encode()
    if os.environb.get(b"MYSQL_PWD") is not None:
        return os.environb[b"MYSQL_PWD"]
    return from_file.encode() if from_file is not None else None


def _options(target: Target, timeout: float) -> dict:
    options = {"connect_timeout": timeout, "read_timeout": 30, "write_timeout": 30,
               "autocommit": True}
    from_file = _from_file(target.defaults_file) if target.defaults_file else {}
    if target.socket:
        if not Path(target.socket).exists():
            raise UserError(f"--socket {target.socket}: no such socket (is the server running, "
                            f"and is this its socket? SELECT @@socket says)")
        options["unix_socket"] = target.socket
    else:
        options.update(host=target.host, port=target.port or from_file.get("port", 3306))
    options["user"] = target.user or from_file.get("user") or os.environ.get("USER") or "root"
    password = _password(target, from_file.get("password"))
    if password is not None:
        options["password"] = password
    for name in ("ssl", "server_public_key"):
        if name in from_file:
            options[name] = from_file[name]
    return options


def explain(exc: pymysql.err.MySQLError, target: Target) -> UserError:
    """One line for what went wrong connecting or reading; the server's words made visible."""
    code = exc.args[0] if exc.args and isinstance(exc.args[0], int) else None
    text = visible(exc.args[1] if len(exc.args) > 1 else exc)
    if code in ACCESS_DENIED:
        return UserError(f"login refused at {target.where}: {text} (give the user with --user "
                         f"and its password in MYSQL_PWD or a --defaults-file's [client] group)")
    if code in NO_PRIVILEGE:
        return UserError(f"the account at {target.where} lacks a privilege advise needs: {text}"
                         f" (it needs {PRIVILEGES})")
    if code in CANNOT_CONNECT:
        return UserError(f"cannot reach the server at {target.where}: {text}")
    return UserError(f"the server at {target.where} answered with an error: {text}")


def _session(target: Target, timeout: float, opened: list) -> tuple:
    """Connect and read, in within()'s thread: (variables, status, absent)."""
    conn = client.CarefulConnection(defer_connect=True, **_options(target, timeout))
    opened.append(conn)
    try:
        conn.connect()
        with conn.cursor() as cur:
            # Nothing this session does may write: a read-only transaction refuses it.
            cur.execute("SET SESSION TRANSACTION READ ONLY")
            variables = _pairs(cur, "SHOW GLOBAL VARIABLES")
            status = _pairs(cur, "SHOW GLOBAL STATUS")
            flavor = flavor_of(variables.get("version", ""), variables.get("version_comment", ""))
            absent = {}
            if flavor != "mariadb":
                length, why = _mysql_history_length(cur)
                if length is None:
                    absent["innodb_history_list_length"] = why
                else:
                    status["innodb_history_list_length"] = length
    finally:
        if conn.open:
            conn.close()
    return variables, status, absent


def connect_and_read(target: Target, deadline: float = DEADLINE, timeout: float = 10) -> tuple:
    """(variables, status, absent) from one read-only session, or one UserError line."""
    try:
        return client.within(deadline, lambda opened: _session(target, timeout, opened))
    except client.Refused as exc:
        raise UserError(f"the server at {target.where} {exc}") from None
    except pymysql.err.MySQLError as exc:
        raise explain(exc, target) from None
    except RuntimeError as exc:
        # PyMySQL's answer to a LOAD DATA LOCAL request with local_infile off, or to a login
        # that needs the cryptography package.
        if "LOAD_LOCAL" not in str(exc):
            raise UserError(f"cannot log in at {target.where}: {visible(exc)}") from None
        raise UserError(f"the server at {target.where} asked for a file of this machine (LOAD "
                        "DATA LOCAL) while answering a query: advise sends no file, and asked "
                        "for none; refused") from None
    except (ValueError, IndexError, KeyError, struct.error) as exc:
        raise UserError(f"the server at {target.where} sent what advise cannot read as the "
                        f"MySQL protocol ({type(exc).__name__}): is it a MySQL or MariaDB "
                        "server?") from None
    except OSError as exc:  # a name that does not resolve, a socket refused
        raise UserError(f"cannot reach the server at {target.where}: {visible(exc)}") from None


def _pairs(cur, sql: str) -> dict:
    cur.execute(sql)
    return {str(name).lower(): "" if value is None else str(value)
            for name, value in cur.fetchall()}


def _mysql_history_length(cur) -> tuple[str | None, str]:
    """MySQL's history list length (INNODB_METRICS, which needs PROCESS), or why not."""
    try:
        cur.execute("SELECT COUNT FROM information_schema.INNODB_METRICS "
                    "WHERE NAME = 'trx_rseg_history_len'")
        row = cur.fetchone()
    except pymysql.err.MySQLError as exc:
        code = exc.args[0] if exc.args else None
        return None, ("needs the PROCESS privilege" if code in ACCESS_DENIED | NO_PRIVILEGE
                      else f"information_schema.INNODB_METRICS: {exc.args[-1]}")
    return (str(row[0]), "") if row else (None, "INNODB_METRICS has no trx_rseg_history_len")


def read(target: Target, deadline: float = DEADLINE) -> ServerFacts:
    """The server's version, variables and status, in one read-only session."""
    variables, status, absent = connect_and_read(target, deadline)
    text = variables.get("version", "")
    flavor = flavor_of(text, variables.get("version_comment", ""))
    return ServerFacts(flavor, version_of(text), text, variables, status, absent)
