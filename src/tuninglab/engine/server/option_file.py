"""The option file (my.cnf) a throwaway server reads: one line per option, quoted so that no value
can break out of its line."""

import re

from tuninglab.errors import UserError
from tuninglab.recipes.reader import control_character


def cnf_line(name: str, value) -> str:
    """One option of my.cnf: the value double-quoted with backslash escapes, as the option file
    parser of MariaDB and MySQL reads it (a '#' stays in the value, the quotes go). Recipes refuse
    control characters already; here they would let a value start a line or a [section]."""
    if not re.fullmatch(r"[A-Za-z0-9_-]+", name):
        raise UserError(f"my.cnf: refusing the option name {name!r}: expected letters, digits, "
                        "'_' and '-'")
    if value is None:
        return name
    text = str(value)
    if control_character(text):
        raise UserError(f"my.cnf: refusing {name} = {text!r}: a control character would "
                        "break the option file; expected one line of plain text")
    escaped = text.replace("\\", "\\\\").replace('"', '\\"')
    return f'{name}="{escaped}"'
