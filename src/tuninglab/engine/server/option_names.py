"""Server option names that differ between MariaDB, Oracle MySQL and Percona Server.

Recipes use one spelling (MariaDB's, which is also MySQL 5.7's); map_settings()
(recipes/server_names.py) turns it into what the server under test understands, so one recipe
drives every server. option_problems() reads what the server's option parser says of the values
it refuses or changes (server.check_settings runs it), option_choices() the values an
enumerated option takes.
"""

import itertools
import re
from dataclasses import dataclass

from tuninglab.errors import NotOnThisServer
# The pure tables (names per flavour and version, removed options) live in recipes/, where
# data.check reads them too.
from tuninglab.recipes.server_names import REMOVED, is_mysql


def engine_settings(flavor: str, version: tuple) -> dict:
    """Settings every throwaway server gets so servers compare like with like and stay private."""
    if not is_mysql(flavor):
        return {}
    # MySQL 8 enables the binary log and the X protocol (a TCP port) by default; MariaDB does not.
    settings = {"skip_log_bin": None}
    if version >= (8, 0, 0):
        settings["mysqlx"] = "OFF"
    return settings


def check_known(settings: dict, known: frozenset, label: str, where: str) -> None:
    """Fail before any run when an option does not exist in this server."""
    for name in settings:
        if name not in known:
            hint = f" ({REMOVED[name]})" if name in REMOVED else ""
            raise NotOnThisServer(f"{where}: the server {label} has no option '{name}'{hint}")


@dataclass(frozen=True)
class Problem:
    """A setting the server refuses, ignores or changes, as its option parser reports it."""
    name: str                 # the option, spelt with underscores
    value: str                # the value given
    why: str = ""             # the server's own words, when they add to "refuses"
    adjusted_to: str | None = None   # the value it would run with instead
    unknown: bool = False     # no such option


# my_getopt, the option parser of MariaDB and MySQL alike, in help mode and --validate-config.
_PROBLEMS = (
    re.compile(r"Error while setting value '(?P<value>.*)' to '(?P<name>[^']+)'"),
    re.compile(r"ignoring option '--(?P<name>[^']+)' due to invalid value '(?P<value>.*)'"),
    re.compile(r"option '(?P<name>[^']+)': boolean value '(?P<value>.*)' (?:wasn't|was not) "
               r"recognized"),
    re.compile(r"option '(?P<name>[^']+)': (?:(?:un)?signed )?value (?P<value>\S+) adjusted to "
               r"(?P<adjusted_to>\S+?)\.?$"),
    re.compile(r"unknown (?P<unknown>variable|option) '(?:--)?(?P<name>[^'=]+)(?:=(?P<value>.*))?'"),
)
# The prefix of a log line: time, thread, level, MySQL's error code and subsystem.
_PREFIX = re.compile(r"^.*?\[(?:ERROR|Warning|Note)\] (?:\[MY-\d+\] \[\w+\] )?"
                     r"(?:Buffered error: )?")


def option_problems(stderr: str) -> tuple:
    """Every Problem in the server's output, the first of an option only."""
    found, before = {}, ""
    for line in stderr.splitlines():
        text = _PREFIX.sub("", line).strip()
        for pattern in _PROBLEMS:
            match = pattern.search(text)
            if match:
                name = match["name"].replace("-", "_")
                # "Error while setting ..." comes after the line that says why.
                why = before if match["name"] in before and "Error while" in text else ""
                groups = match.groupdict()
                found.setdefault(name, Problem(name, groups["value"] or "", why,
                                               groups.get("adjusted_to"),
                                               bool(groups.get("unknown"))))
                break
        before = text
    return tuple(found.values())


def describe_problem(problem: Problem, label: str, choices: tuple = ()) -> str:
    """One sentence for a Problem, after the file and key that set it."""
    if not problem.name:
        return f"{label} refuses these settings ({problem.why})"
    if problem.unknown:
        return f"the server {label} has no option '{problem.name}'"
    if problem.adjusted_to is not None:
        return (f"{label} would run {problem.name} = {problem.adjusted_to}, not "
                f"{problem.value!r} (out of its range, or not a multiple of its unit): the "
                f"result would name a value that never ran; expected a value it keeps")
    text = f"{label} refuses {problem.value!r} for {problem.name}"
    text += f" ({problem.why})" if problem.why else ""
    return text + (f"; expected one of: {', '.join(choices)}" if choices else "")


def option_choices(help_text: str, name: str) -> tuple:
    """The values an enumerated option takes, from its description in `--verbose --help`
    ("... One of: fsync, O_DSYNC, ..."); () if it lists none."""
    lines = help_text.splitlines()
    start = re.compile(rf"  --{re.escape(name.replace('_', '-'))}(?:\[?=\w+\]?)?(?:\s|$)")
    for i, line in enumerate(lines):
        if start.match(line):
            # The description: after the option on its line, then the lines indented deeper.
            words = line.split()[1:] + " ".join(
                itertools.takewhile(lambda l: l.startswith("   "), lines[i + 1:])).split()
            match = re.search(r"One of: ((?:[\w-]+, )*[\w-]+)", " ".join(words))
            return tuple(match.group(1).split(", ")) if match else ()
    return ()
