"""What a running server says of itself, read through one connection that only reads.

The account needs no privilege beyond logging in (USAGE): SHOW GLOBAL VARIABLES and SHOW GLOBAL
STATUS are open to every account. On MySQL the history list length lives in
information_schema.INNODB_METRICS, which needs PROCESS; without it the length is recorded as
absent, and the purge row says so. The password never comes from the command line: from
MYSQL_PWD, or an option file's [client] group (--defaults-file).
"""

import os
from dataclasses import dataclass, field
from pathlib import Path

import pymysql

from tuninglab.errors import UserError
from tuninglab.site.server_readings import ServerFacts, flavor_of, version_of

PRIVILEGES = "USAGE (login only); PROCESS optionally, for MySQL's history list length"
# MySQL client error numbers and server error codes, as pymysql raises them.
CANNOT_CONNECT = {2002, 2003, 2005, 2006, 2013}
ACCESS_DENIED = {1044, 1045, 1698}
NO_PRIVILEGE = {1142, 1143, 1227, 1370}


@dataclass(frozen=True)
class Target:
    """Where the server is: a socket, or host and port; the user; an option file."""
    socket: str = ""
    host: str = ""
    port: int = 3306
    user: str = ""
    defaults_file: str = ""
    # Only a program sets it (the examples' throwaway account); a person's comes from
    # MYSQL_PWD or the option file, never the command line.
    password: str | None = field(default=None, repr=False)

    @property
    def where(self) -> str:
        return f"socket {self.socket}" if self.socket else f"{self.host}:{self.port}"

    @property
    def local(self) -> bool:
        """Whether the server runs on this machine, so that its datadir can be read here."""
        return bool(self.socket) or self.host in ("", "localhost", "127.0.0.1", "::1")


def _options(target: Target, timeout: float) -> dict:
    options = {"connect_timeout": timeout, "read_timeout": 30, "autocommit": True}
    if target.defaults_file:
        if not Path(target.defaults_file).is_file():
            raise UserError(f"--defaults-file {target.defaults_file}: no such file")
        options.update(read_default_file=target.defaults_file, read_default_group="client")
    if target.socket:
        if not Path(target.socket).exists():
            raise UserError(f"--socket {target.socket}: no such socket (is the server running, "
                            f"and is this its socket? SELECT @@socket says)")
        options["unix_socket"] = target.socket
    elif target.host:
        options.update(host=target.host, port=target.port)
    if target.user:
        options["user"] = target.user
    elif not target.defaults_file:
        options["user"] = os.environ.get("USER") or "root"
    if target.password is not None:
        options["password"] = target.password
    elif os.environ.get("MYSQL_PWD") is not None:
        options["password"] = os.environ["MYSQL_PWD"]
    return options


def explain(exc: pymysql.err.MySQLError, target: Target) -> UserError:
    """One line for what went wrong connecting or reading."""
    code = exc.args[0] if exc.args and isinstance(exc.args[0], int) else None
    text = str(exc.args[1]) if len(exc.args) > 1 else str(exc)
    if code in ACCESS_DENIED:
        return UserError(f"login refused at {target.where}: {text} (give the user with --user "
                         f"and its password in MYSQL_PWD or a --defaults-file's [client] group)")
    if code in NO_PRIVILEGE:
        return UserError(f"the account at {target.where} lacks a privilege advise needs: {text}"
                         f" (it needs {PRIVILEGES})")
    if code in CANNOT_CONNECT:
        return UserError(f"cannot reach the server at {target.where}: {text}")
    return UserError(f"the server at {target.where} answered with an error: {text}")


def connect(target: Target, timeout: float = 10):
    try:
        return pymysql.connect(**_options(target, timeout))
    except pymysql.err.MySQLError as exc:
        raise explain(exc, target) from None
    except OSError as exc:  # an option file it cannot read, a name that does not resolve
        raise UserError(f"cannot reach the server at {target.where}: {exc}") from None


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


def read(target: Target) -> ServerFacts:
    """The server's version, variables and status, in one read-only session."""
    conn = connect(target)
    try:
        with conn.cursor() as cur:
            # Nothing this session does may write: a read-only transaction refuses it.
            cur.execute("SET SESSION TRANSACTION READ ONLY")
            variables = _pairs(cur, "SHOW GLOBAL VARIABLES")
            status = _pairs(cur, "SHOW GLOBAL STATUS")
            text = variables.get("version", "")
            flavor = flavor_of(text, variables.get("version_comment", ""))
            absent = {}
            if flavor != "mariadb":
                length, why = _mysql_history_length(cur)
                if length is None:
                    absent["innodb_history_list_length"] = why
                else:
                    status["innodb_history_list_length"] = length
    except pymysql.err.MySQLError as exc:
        raise explain(exc, target) from None
    finally:
        conn.close()
    return ServerFacts(flavor, version_of(text), text, variables, status, absent)
