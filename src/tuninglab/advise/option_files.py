"""The --defaults-file, read as MySQL's and MariaDB's clients read an option file (mysys'
my_default.cc), so that a file the reader's `mysql` accepts gives advise the same values.

- Groups: [client], which every MySQL and MariaDB client reads, and [client-server] and
  [client-mariadb], which MariaDB's clients read as well (MySQL's clients skip them; a file
  shared by both keeps MariaDB-only options there). Names match regardless of case and of
  spaces inside the brackets. Every matching group applies, repeated ones too, in the order of
  their lines: a later value wins, as in MySQL.
- A line is `name`, `name=value` or `name = value`; a value may be quoted ('...' or "...") and
  holds backslash escapes (\\n, \\t, \\s for a space, \\\\, \\", \\'). A line that starts with '#'
  or ';' is a comment, and so is the rest of a line from a '#' outside quotes (a password
  holding '#' must be quoted). '-' and '_' in a name are alike, and a `loose-` prefix is dropped.
- `!include FILE` and `!includedir DIR` are followed as MySQL does: a missing FILE is skipped,
  a missing DIR is an error, a DIR's files ending in .cnf are read in order of name; at most
  10 levels deep (a file that includes itself is refused rather than read ten times).
- An option before any group, a group header without its ']', bytes that are not UTF-8, a
  world-writable file (MySQL ignores it: anyone could have put a password or a host there) are
  errors.

Errors name the file and the line, never the line's text: it may hold a password.
"""

import os
import re
import stat
from dataclasses import dataclass
from pathlib import Path

from tuninglab.errors import UserError

GROUPS = ("client", "client-server", "client-mariadb")
MAX_DEPTH = 10  # MySQL's limit on nested includes
ESCAPES = {"b": "\b", "t": "\t", "n": "\n", "r": "\r", "s": " ", '"': '"', "'": "'",
           "\\": "\\"}
NAME = re.compile(r"[A-Za-z0-9_-]+")


@dataclass(frozen=True)
class Option:
    value: str | None   # None: the name alone, without '='
    where: str          # "FILE line N", for an error about the value


def read(path: str) -> dict[str, Option]:
    """The options of the client groups in path (and the files it includes), by name in
    lower case with '-' for '_'; the last line that gives one wins."""
    options: dict[str, Option] = {}
    _read_file(Path(path).expanduser(), "--defaults-file ", 0, options)
    return options


def _lines(path: Path, label: str) -> list[bytes]:
    try:
        info = path.stat()
        if not stat.S_ISREG(info.st_mode):
            raise UserError(f"{label}{path}: not a file")
        if info.st_mode & stat.S_IWOTH:
            raise UserError(f"{label}{path}: anyone may write it, so MySQL ignores it and "
                            f"advise refuses it (chmod o-w {path})")
        return path.read_bytes().splitlines()
    except FileNotFoundError:
        raise UserError(f"{label}{path}: no such file") from None
    except OSError as exc:
        raise UserError(f"{label}{path}: cannot read it ({exc.strerror})") from None


def _read_file(path: Path, label: str, depth: int, options: dict) -> None:
    in_group = None  # None before the first group header; then whether advise reads it
    for number, raw in enumerate(_lines(path, label), 1):
        where = f"{path} line {number}"
        try:
            line = raw.decode("utf-8").strip()
        except UnicodeDecodeError:
            raise UserError(f"{where}: not UTF-8 text (advise reads option files as UTF-8)") \
                from None
        if not line or line[0] in "#;":
            continue
        if line.startswith("!"):
            _include(line, where, depth, options)
        elif line.startswith("["):
            if "]" not in line:
                raise UserError(f"{where}: a group header without its closing ']'")
            in_group = line[1:line.index("]")].strip().lower() in GROUPS
        elif in_group is None:
            raise UserError(f"{where}: an option before any [group] header (MySQL refuses "
                            "it too: put advise's options under [client])")
        elif in_group:
            name, value = _option(line, where)
            options[name] = Option(value, where)


def _include(line: str, where: str, depth: int, options: dict) -> None:
    """!include FILE or !includedir DIR, as MySQL follows them."""
    keyword, argument = (line[1:].split(None, 1) + ["", ""])[:2]
    argument = argument.strip()
    if keyword not in ("include", "includedir") or not argument:
        raise UserError(f"{where}: expected '!include FILE' or '!includedir DIR'")
    if depth + 1 >= MAX_DEPTH:
        raise UserError(f"{where}: includes nest more than {MAX_DEPTH} files deep "
                        "(does a file include itself?)")
    target = Path(argument).expanduser()
    label = f"{where}: included file "
    if keyword == "include":
        if target.exists():  # MySQL skips an included file that is not there
            _read_file(target, label, depth + 1, options)
        return
    try:
        names = sorted(n for n in os.listdir(target) if n.endswith(".cnf"))
    except OSError as exc:
        raise UserError(f"{where}: cannot list the included directory ({exc.strerror})") \
            from None
    for name in names:
        _read_file(target / name, label, depth + 1, options)


def _option(line: str, where: str) -> tuple[str, str | None]:
    """One `name[=value]` line: its name in one spelling, and its value as MySQL reads it."""
    line = _without_comment(line)
    name, equals, value = line.partition("=")
    name = name.strip().lower().replace("_", "-")
    name = name.removeprefix("loose-")
    if not NAME.fullmatch(name):
        raise UserError(f"{where}: expected 'name = value', a name of letters, digits, "
                        "'-' and '_'")
    if not equals:
        return name, None
    value = value.strip()
    if len(value) >= 2 and value[0] in "'\"" and value[-1] == value[0]:
        value = value[1:-1]
    return name, re.sub(r"\\(.)", lambda m: ESCAPES.get(m[1], m[0]), value)


def _without_comment(line: str) -> str:
    """The line up to a '#' that is outside quotes (MySQL's remove_end_comment)."""
    quote, escaped = "", False
    for i, c in enumerate(line):
        if c in "'\"" and not escaped:
            quote = "" if quote == c else quote or c
        if c == "#" and not quote:
            return line[:i].rstrip()
        escaped = bool(quote) and c == "\\" and not escaped
    return line
