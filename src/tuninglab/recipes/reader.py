"""The generic reader of one TOML table: type and range checks whose errors name the recipe
file and the dotted key, and the one spelling the lab gives MySQL option names and values.

Knows nothing of the recipe's tables (tables.py parses each of them with it).
"""

import dataclasses

from tuninglab import units
from tuninglab.errors import UserError


class Reader:
    """Reads one TOML table, remembering where it is for the error messages."""

    def __init__(self, path, data, where=""):
        self.path, self.data, self.where = path, data, where
        if not isinstance(data, dict):
            self.fail("", f"expected a table, got {_kind(data)}")

    def fail(self, key, expected):
        name = ".".join(k for k in (self.where, key) if k) or "top level"
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
        return value

    def table(self, key, required=True):
        if key not in self.data and not required:
            return Reader(self.path, {}, self._sub(key))
        return Reader(self.path, self.get(key, dict), self._sub(key))

    def positive_int(self, key, default=dataclasses.MISSING):
        value = self.get(key, int, default)
        if value is not None and value < 1:
            self.fail(key, f"expected a whole number >= 1, got {value}")
        return value

    def duration(self, key, default=dataclasses.MISSING, minimum=0.0):
        """Whole seconds, as sysbench counts them: 0 (none) or at least 1s."""
        value = self.get(key, (str, int, float), default)
        try:
            seconds = units.seconds(value)
        except ValueError as exc:
            self.fail(key, str(exc))
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

    def _sub(self, key):
        return f"{self.where}.{key}" if self.where else key


def _kind_name(kind) -> str:
    kinds = kind if isinstance(kind, tuple) else (kind,)
    return " or ".join(k.__name__ for k in kinds)


def _kind(value):
    return {dict: "a table", list: "an array", str: "a string", bool: "a boolean",
            int: "an integer", float: "a number"}.get(type(value), type(value).__name__)


def option_name(name: str) -> str:
    """MySQL accepts dashes and underscores alike; keep one spelling."""
    return name.strip().replace("-", "_").lower()


def option_value(value) -> str:
    if isinstance(value, bool):
        return "ON" if value else "OFF"
    if isinstance(value, (int, float, str)):
        return str(value)
    raise ValueError(f"expected a string, number or boolean, got {_kind(value)}")
