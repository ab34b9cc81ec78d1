"""Parsing of the durations and sizes people write in recipes and on the command line, and
whether a server variable read back is the value that was written."""

import re

# re.ASCII: \d is then 0-9 only (see whole_number).
_DURATION = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*(ms|s|m|h)?\s*$", re.ASCII)
# A duration as human_seconds() prints it, hours to seconds in order: 1h30m, 2m05s, 1h02m30s.
_COMPOUND = re.compile(r"^\s*(?:(\d+)h)?(?:(\d+)m(?!s))?(?:(\d+)s)?\s*$", re.ASCII)
_SCALE = {"ms": 0.001, "s": 1, "m": 60, "h": 3600, None: 1}
_SIZE = re.compile(r"^\s*(\d+)\s*([KMGT]?)B?\s*$", re.IGNORECASE | re.ASCII)
_WHOLE = re.compile(r"[0-9]{1,18}")


def whole_number(value) -> int | None:
    """A whole number as people type it ('12', 12) or None. Only the digits 0-9: Python's
    int() also reads other scripts' digits ('١٠'), and str.isdigit() passes superscripts
    ('²') that int() then refuses. A recipe or command line states what a reader types again."""
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    text = str(value).strip()
    return int(text) if _WHOLE.fullmatch(text) else None


def seconds(value) -> float:
    """'30s', '2m', '1.5h', '1h30m' (as human_seconds prints) or a number of seconds ->
    seconds; ValueError otherwise."""
    if isinstance(value, bool):
        raise ValueError(f"expected a duration like '30s' or '2m', got {value!r}")
    if isinstance(value, (int, float)):
        if value < 0:
            raise ValueError(f"expected a duration >= 0, got {value!r}")
        return float(value)
    match = _DURATION.match(str(value))
    if match:
        return float(match.group(1)) * _SCALE[match.group(2)]
    parts = _COMPOUND.match(str(value))
    if not parts or not any(parts.groups()):
        raise ValueError(f"expected a duration like '30s', '2m' or '1h30m', got {value!r}")
    hours, minutes, secs = (int(p or 0) for p in parts.groups())
    return float(hours * 3600 + minutes * 60 + secs)


def size_bytes(value) -> int:
    """'48M', '2G', 4096 -> bytes, as MySQL reads option sizes (K, M, G, T are powers of 1024)."""
    if isinstance(value, int) and not isinstance(value, bool):
        if value < 0:
            raise ValueError(f"expected a size >= 0, got {value!r}")
        return value
    match = _SIZE.match(str(value))
    if not match:
        raise ValueError(f"expected a size like '64M' or '2G', got {value!r}")
    power = "KMGT".find(match.group(2).upper()) + 1 if match.group(2) else 0
    return int(match.group(1)) * 1024**power


def human_size(value) -> str:
    """Bytes as the servers write sizes, in the largest unit that divides them exactly:
    100663296 -> '96M', 1073741824 -> '1G', 1000 -> '1000'."""
    size = size_bytes(value)
    for power, unit in ((4, "T"), (3, "G"), (2, "M"), (1, "K")):
        if size and size % 1024**power == 0:
            return f"{size // 1024**power}{unit}"
    return str(size)


def shown_like(value, like) -> str:
    """A value read back, written the way the value it is compared with is: a plain number of
    bytes beside '16M' is shown as a size ('64M'); anything else as it is."""
    if re.fullmatch(r"\d+[KMGTkmgt]", str(like).strip()) and re.fullmatch(r"\d+", str(value)):
        return human_size(int(value))
    return str(value)


def human_seconds(total: float) -> str:
    """A short, readable duration: 45s, 3m05s, 1h02m."""
    total = int(round(total))
    if total < 60:
        return f"{total}s"
    if total < 3600:
        return f"{total // 60}m{total % 60:02d}s"
    return f"{total // 3600}h{total % 3600 // 60:02d}m"


def same_value(want, got) -> bool:
    """Whether a value read back is the one asked for: 48M is 50331648, ON is ON (and 1),
    10 is 10.000000, a scheduler's name is itself."""
    return _normal(want) == _normal(got)


def _normal(value):
    text = str(value).strip()
    lower = text.lower()
    if lower in ("on", "true", "off", "false"):
        return lower in ("on", "true")   # True == 1.0 and False == 0.0: ON is 1
    if re.fullmatch(r"\d+[kmgt]", lower):
        return float(size_bytes(text))
    try:
        return float(text)
    except ValueError:
        return lower
