"""The generic reader of one TOML table: type and range checks whose errors name the recipe
file and the dotted key, and the one spelling the lab gives MySQL option names and values.

Knows nothing of the recipe's tables (tables.py parses each of them with it).
"""

import dataclasses
import math
import re
import unicodedata

from tuninglab import units
from tuninglab.errors import UserError

# The longest warm-up or measured phase of one run: a typo (9999h, inf) fails here, not after
# the plan has been built or the first server started.
MAX_RUN_SECONDS = 86400.0
# MySQL option names: what a my.cnf line or a --name=value argument can carry as it is.
_OPTION_NAME = re.compile(r"[a-z0-9_]+")
# A percentage as a recipe writes it: "3%", "2.5%", " 3 % ".
_PERCENT = re.compile(r"\s*([0-9]+(?:\.[0-9]+)?)\s*%\s*")


class Reader:
    """Reads one TOML table, remembering where it is for the error messages."""

    def __init__(self, path, data, where=""):
        self.path, self.data, self.where = path, data, where
        if not isinstance(data, dict):
            self.fail("", f"expected a table, got {_kind(data)}")

    def fail(self, key, expected):
        name = ".".join(_shown(k) for k in (self.where, key) if k) or "top level"
        raise UserError(f"{self.path}: {name}: {expected}")

    def only(self, *allowed):
        for key in self.data:
            if key not in allowed:
                self.fail(key, f"unknown key (expected one of: {', '.join(allowed)})")

    def get(self, key, kind, default=dataclasses.MISSING):
        if key not in self.data:
            if default is dataclasses.MISSING:
                self.fail(key, f"missing (expected {_kind_name(kind)})")
            return default
        value = self.data[key]
        if kind is int and isinstance(value, bool) or not isinstance(value, kind):
            self.fail(key, f"expected {_kind_name(kind)}, got {_kind(value)} {value!r}")
        # Every string of a recipe ends up in a command line, a mount option, a sysfs file
        # or a page: none may hold a line break, a NUL or a bidi override.
        for text in (value if isinstance(value, list) else [value]):
            char = control_character(text) if isinstance(text, str) else None
            if char:
                self.fail(key, f"{text!r} holds the control character {char!r}; expected one "
                               "line of plain text")
        return value

    def table(self, key, required=True):
        if key not in self.data and not required:
            return Reader(self.path, {}, self._sub(key))
        return Reader(self.path, self.get(key, dict), self._sub(key))

    def positive_int(self, key, default=dataclasses.MISSING, maximum=None):
        value = self.get(key, int, default)
        if value is not None and value < 1:
            self.fail(key, f"expected a whole number >= 1, got {value}")
        if value is not None and maximum is not None and value > maximum:
            self.fail(key, f"expected a whole number from 1 to {maximum}, got {value}")
        return value

    def duration(self, key, default=dataclasses.MISSING, minimum=0.0):
        """Whole seconds, as sysbench counts them: 0 (none) or at least 1s, at most a day."""
        value = self.get(key, (str, int, float), default)
        try:
            seconds = units.seconds(value)
        except ValueError as exc:
            self.fail(key, str(exc))
        if not seconds <= MAX_RUN_SECONDS:  # also NaN, which compares false to everything
            self.fail(key, f"expected at most {MAX_RUN_SECONDS / 3600:.0f}h, got {value!r}")
        if seconds < max(minimum, 1) and (seconds != 0 or minimum > 0):
            self.fail(key, f"expected {'at least 1s' if minimum else '0 or at least 1s'}, "
                           f"got {value!r}")
        return float(round(seconds))

    def size(self, key, default=dataclasses.MISSING):
        value = self.get(key, (str, int), default)
        try:
            units.size_bytes(value)
        except ValueError as exc:
            self.fail(key, str(exc))
        return str(value)

    def percent(self, key, default=dataclasses.MISSING):
        """A string such as "3%" or "2.5%", above 0% and below 100%, as the number of %
        (3.0). A bare number is refused: 3 and 0.03 would both be read as someone meant."""
        value = self.get(key, (str, int, float), default)
        if key not in self.data:
            return value  # the default
        match = _PERCENT.fullmatch(value) if isinstance(value, str) else None
        number = float(match.group(1)) if match else math.nan
        if not 0 < number < 100:  # also NaN: no match
            self.fail(key, f'expected a percentage above 0% and below 100% such as "3%", got '
                           f"{value!r}")
        return number

    def _sub(self, key):
        return f"{self.where}.{key}" if self.where else key


def _kind_name(kind) -> str:
    kinds = kind if isinstance(kind, tuple) else (kind,)
    return " or ".join(k.__name__ for k in kinds)


def _kind(value):
    return {dict: "a table", list: "an array", str: "a string", bool: "a boolean",
            int: "an integer", float: "a number"}.get(type(value), type(value).__name__)


def _shown(key) -> str:
    """A key as an error message shows it: quoted and escaped if it is not plain text, so the
    message stays one line."""
    key = str(key)
    return repr(key) if control_character(key) or not key.strip() else key


def control_character(text: str) -> str | None:
    """The first control or format character in text (newline, NUL, a bidi override...), or
    None: such a value could start a new line in my.cnf, or read differently than it prints."""
    return next((c for c in text if unicodedata.category(c) in ("Cc", "Cf")), None)


def option_name(name: str) -> str:
    """MySQL accepts dashes and underscores alike; keep one spelling. ValueError for a name
    no server has: only letters, digits, '_' and '-' can go into my.cnf as they are."""
    name = name.strip(" ").replace("-", "_").lower()  # a newline is no space: refused below
    if not _OPTION_NAME.fullmatch(name):
        raise ValueError("expected an option name of letters, digits, '_' and '-'")
    return name


def option_value(value) -> str:
    if isinstance(value, bool):
        return "ON" if value else "OFF"
    if isinstance(value, float) and not math.isfinite(value):
        raise ValueError(f"expected a finite number, got {value!r}")
    if isinstance(value, (int, float, str)):
        text = str(value)
        char = control_character(text)
        if char:
            raise ValueError(f"{text!r} holds the control character {char!r}; expected a "
                             "value on one line of plain text")
        return text
    raise ValueError(f"expected a string, number or boolean, got {_kind(value)}")
