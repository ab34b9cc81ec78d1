"""Each of the guide's servers' own defaults, as the server reports them: the global variables
`invoke advise --examples` read from it started with no settings of ours
(docs/examples/defaults/<server>.json, advise/examples.capture_defaults), so that a page
states a default read from the server rather than typed. A file is read as untrusted input
(files.read_regular: never a link nor a FIFO); a missing or malformed one is one UserError
naming it and the key."""

import functools
import json
import re
from dataclasses import dataclass, field
from datetime import date
from pathlib import Path
from types import MappingProxyType

from tuninglab import files
from tuninglab.errors import UserError
from tuninglab.evidence import servers

DIR = files.PROJECT_DIR / "docs" / "examples" / "defaults"
MAX_BYTES = 1_000_000   # a server's variables are some 60 kB
WRITTEN_BY = "written by `invoke advise --examples`"


@dataclass(frozen=True)
class Source:
    """Where a server's defaults come from, for a page to cite."""
    server: str          # as evidence sets name it: "mariadb 11.8"
    version: str         # "11.8.3"
    version_text: str    # the binary's whole --version line
    date: str            # when it was read, ISO
    path: str            # the file, as files.shown names it

    @property
    def text(self) -> str:
        """"MariaDB 11.8.3's defaults, read from the server on 2026-12-07"."""
        flavor = servers.label(self.server).split(" ")[0]
        return f"{flavor} {self.version}'s defaults, read from the server on {self.date}"


@dataclass(frozen=True)
class Defaults:
    source: Source
    cores: int                   # the host's: some defaults are sized from them
    memory_bytes: int
    variables: MappingProxyType = field(repr=False, hash=False)   # name -> value, as shown
    given: frozenset = frozenset()   # variables the lab set to run it: not the server's defaults

    def value(self, variable: str) -> str | None:
        """The server's default for a global variable; None if it has no such variable or the
        lab set it (its datadir, its socket, ...)."""
        name = variable.lower()
        return None if name in self.given else self.variables.get(name)


def load(path: Path, server: str) -> Defaults:
    """One server's file; UserError naming the file and the key when it is missing, is no
    JSON object or holds a key of the wrong kind, or names another server than expected."""
    shown = files.shown(path)
    try:
        doc = json.loads(files.read_regular(path, MAX_BYTES).decode("utf-8"))
    except FileNotFoundError:
        raise UserError(f"{shown}: missing ({WRITTEN_BY})") from None
    except files.NotRegular as exc:
        raise UserError(f"{shown}: {exc.what}") from None
    except (OSError, UnicodeDecodeError, ValueError) as exc:
        raise UserError(f"{shown}: not a JSON file ({exc})") from None
    if not isinstance(doc, dict):
        raise UserError(f"{shown}: expected a JSON object ({WRITTEN_BY})")
    got = _text(doc, "server", shown)
    if got != server:
        raise UserError(f"{shown}: server: {got!r}, expected {server!r}")
    when = _text(doc, "date", shown)
    try:
        date.fromisoformat(when)
    except ValueError:
        raise UserError(f"{shown}: date: {when!r}, expected a date as 2026-12-07") from None
    host = doc.get("host")
    if not isinstance(host, dict):
        raise UserError(f"{shown}: host: expected an object with cores and memory_bytes")
    version = _text(doc, "version", shown, r"\d+(\.\d+)+", "a version as 11.8.3")
    source = Source(server, version, _text(doc, "version_text", shown), when, shown)
    return Defaults(source, _count(host, "cores", shown), _count(host, "memory_bytes", shown),
                    MappingProxyType(_names(doc, "variables", shown)),
                    frozenset(_given(doc, shown)))


def _text(doc: dict, key: str, shown: str, pattern: str = r".+",
          expected: str = "text") -> str:
    value = doc.get(key)
    if not isinstance(value, str) or not re.fullmatch(pattern, value):
        got = "missing" if value is None else repr(value)
        raise UserError(f"{shown}: {key}: {got}, expected {expected}")
    return value


def _count(host: dict, key: str, shown: str) -> int:
    value = host.get(key)
    if type(value) is not int or value <= 0:
        raise UserError(f"{shown}: host.{key}: {value!r}, expected a whole number above 0")
    return value


def _names(doc: dict, key: str, shown: str) -> dict:
    """An object of variable names to text (None allowed for "given"'s bare options)."""
    value = doc.get(key)
    if not isinstance(value, dict) or not value:
        raise UserError(f"{shown}: {key}: expected an object of variable names to values")
    for name, v in value.items():
        if not re.fullmatch(r"[a-z0-9_-]+", name.lower()) or \
                not (isinstance(v, str) or v is None and key == "given"):
            raise UserError(f"{shown}: {key}.{name}: {v!r}, expected a name and a text value")
    return {name.lower(): v for name, v in value.items()}


def _given(doc: dict, shown: str) -> set:
    """The variables the lab's options set, as the server names them: '-' read as '_', and
    my_getopt's skip_NAME (NAME off) as NAME."""
    names = {n.replace("-", "_") for n in _names(doc, "given", shown)}
    return names | {n.removeprefix("skip_") for n in names if n.startswith("skip_")}


def defaults(directory: Path = DIR) -> dict[str, Defaults]:
    """The guide's servers' defaults, in the pages' order: {"mariadb 10.11": Defaults, ...}."""
    return dict(_read(Path(directory), files.stamp(directory, ".json")))


@functools.lru_cache(maxsize=4)
def _read(directory: Path, _stamp: float) -> tuple:
    """Read once per change of the files (the stamp), not once per page that asks."""
    return tuple((server, load(directory / f"{option}.json", server))
                 for server, option in servers.OPTIONS.items())


def value(server: str, variable: str, directory: Path = DIR) -> str | None:
    """A server's default for a variable ("mariadb 11.8", "innodb_io_capacity"): None if it
    has no such variable; UserError for a server the guide does not capture."""
    return of(server, directory).value(variable)


def source(server: str, directory: Path = DIR) -> Source:
    """Where a server's defaults were read: its version, --version line and date."""
    return of(server, directory).source


def of(server: str, directory: Path = DIR) -> Defaults:
    found = defaults(directory)
    if server not in found:
        raise UserError(f"no captured defaults for {server!r}: expected one of "
                        f"{', '.join(found)}")
    return found[server]
