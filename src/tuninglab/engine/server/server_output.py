"""What a server prints, read: its --version line, the option table of its --verbose --help,
and its error log (the choices it made at start, and why it did not start)."""

import re
from pathlib import Path

def parse_variables(help_text: str) -> frozenset:
    """Option names from `mysqld --verbose --help` (the table after 'Variables ...')."""
    return frozenset(parse_values(help_text))


def parse_values(help_text: str) -> dict:
    """The table after 'Variables ...' of `mysqld --verbose --help`: each option's value as the
    given options and the defaults make it, e.g. {"max_connections": "151"}."""
    values, in_table = {}, False
    for line in help_text.splitlines():
        if line.startswith("Variables (--variable-name=value)"):
            in_table = True
        elif in_table and not line.strip():
            break  # the table ends at the first blank line
        elif in_table and not line.startswith(("-", "and boolean", " ")):
            name, _, value = line.partition(" ")
            values[name.replace("-", "_")] = value.strip()
    return values


# What the error log says the server chose at start, where no variable shows it.
LOG_NOTES = {"aio": ((r"InnoDB: Using (?:io_uring|liburing)", "io_uring"),
                     (r"InnoDB: Using Linux native AIO", "libaio"))}


def log_notes(log: str) -> dict:
    """e.g. {"aio": "io_uring"}; a note the log does not give (the asynchronous IO interface
    with innodb_use_native_aio=OFF, say) is left out."""
    notes = {}
    for name, patterns in LOG_NOTES.items():
        for pattern, value in patterns:
            if re.search(pattern, log):
                notes[name] = value
                break
    return notes


def explain_start_failure(log: str, label: str, errlog) -> str:
    """One clear sentence about why the server did not start, then the log's tail."""
    unknown = re.search(r"unknown (?:variable|option) '(?:--)?([^'=]+)", log)
    bad_value = re.search(r"Error while setting value '([^']*)' to '([^']+)'", log)
    if unknown:
        head = f"{label} refused to start: it does not know the option " \
               f"'{unknown.group(1).replace('-', '_')}'"
    elif bad_value:
        head = f"{label} refused to start: the value '{bad_value.group(1)}' is not valid for " \
               f"{bad_value.group(2).replace('-', '_')}"
    else:
        head = f"{label} exited during start-up"
    tail = "\n".join(log.rstrip().splitlines()[-15:])
    return f"{head}; the end of {errlog}:\n{tail}"


def log_tail(path, lines=15) -> str:
    try:
        return "\n".join(Path(path).read_text(errors="replace").rstrip().splitlines()[-lines:])
    except OSError:
        return "(no log)"
