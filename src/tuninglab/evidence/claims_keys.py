"""The keys of a claims map entry (data/claims/*.toml, read by claims_map.py) and their strict
reading: each key's TOML type, the names that must be plain, the values a key may take. A value
of another type is refused, never converted (bool("false") is True: `invert = "false"` would
flip a verdict), with an error naming the file, the entry and the key."""

import math
import re

from tuninglab.errors import UserError

# Every key an entry takes and the TOML type of its value.
CLAIM_KEYS = {"id": str, "table": str, "row": str, "column": str, "source_baseline": str,
              "reads": str, "recipe": str, "variant": str, "point": str, "invert": bool,
              "metric": str, "headline": bool, "why": str, "source_noise": float,
              "caveat": str, "same_rows": list}
UNTESTABLE_KEYS = {"table": str, "rows": list, "columns": list, "reason": str, "topic": str,
                   "kind": str}
# What an [[untestable]] entry's results are: an effect no recipe here can test, or no effect
# at all (a setup, a listing, advice, an absolute number compared with nothing). The claims
# page counts the two apart: only the first is a gap in what the lab answers.
NOT_TESTABLE = "not-testable"
NOT_AN_EFFECT = "not-an-effect"
KINDS = (NOT_TESTABLE, NOT_AN_EFFECT)
# An id is quoted on pages by the inline forms ({{ verdict ID }}: verdict_tables.INLINE); a
# recipe and a variant are names, never a path load() would read.
PLAIN = {"id": re.compile(r"[A-Za-z0-9_.-]+"), "recipe": re.compile(r"[a-z0-9]+(-[a-z0-9]+)*"),
         "variant": re.compile(r"([a-z0-9]+(-[a-z0-9]+)*)?")}
TYPE_NAMES = {bool: "true or false (a TOML boolean)", str: "a string",
              list: "an array of strings", float: "a number with a decimal point (0.10)"}
# Texts a reader is shown: given, they say something.
NOT_EMPTY = {"reason": "why the result is not tested", "caveat": "what weakens the claim"}


def toml_value(value) -> str:
    """A value as its TOML type and text, for an error: "the string 'false'"."""
    if isinstance(value, bool):
        return f"the boolean {str(value).lower()}"
    if isinstance(value, str):
        return f"the string {value!r}"
    if isinstance(value, (int, float)):
        return f"the number {value!r}"
    if isinstance(value, list):
        odd = next((v for v in value if not isinstance(v, str)), None)
        return "an array" + ("" if odd is None else f" holding {toml_value(odd)}")
    if isinstance(value, dict):
        return "a table"
    return f"a {type(value).__name__}"  # a TOML date or time


def check_keys(entry: dict, known: dict, required: set, where: str) -> None:
    """Only known keys, the required ones present, each value of its key's TOML type (and a
    name where PLAIN says so, a value its key takes); the first problem as a UserError naming
    the key."""
    unknown = sorted(set(entry) - set(known))
    if unknown:
        raise UserError(f"{where}: unknown key {unknown[0]!r} (expected: "
                        f"{', '.join(sorted(known))})")
    missing = sorted(required - set(entry))
    if missing:
        raise UserError(f"{where}: missing key {missing[0]!r}")
    for key, value in entry.items():
        kind = known[key]
        if not isinstance(value, kind) or kind is list and \
                not all(isinstance(v, str) for v in value):
            raise UserError(f"{where}: {key}: expected {TYPE_NAMES[kind]}, got "
                            f"{toml_value(value)}")
        problem = _value_problem(key, value)
        if problem:
            raise UserError(f"{where}: {key}: {problem}")


def _value_problem(key: str, value) -> str:
    """What is wrong with a value of the right type, or ""."""
    if key in PLAIN and not PLAIN[key].fullmatch(value):
        return f"{value!r} is not a name; expected {PLAIN[key].pattern}"
    if key in NOT_EMPTY and not value.strip():
        return f"empty; expected {NOT_EMPTY[key]}"
    if key == "kind" and value not in KINDS:
        return f"{value!r}: expected one of {', '.join(KINDS)}"
    # TOML reads nan and inf as floats; a swing of 100% or more is no stated noise.
    if key == "source_noise" and not (math.isfinite(value) and 0 < value < 1):
        return (f"{value!r}: expected the source's stated run-to-run swing as a fraction "
                "above 0 and below 1 (0.10 for ±10%)")
    return ""
