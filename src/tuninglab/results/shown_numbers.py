"""How a comparison's numbers are shown so that they agree with its verdict (ratio.Ratio.text):
to a number of decimals, but never rounded onto a value they are not where that value is what
the verdict turns on: an interval end of 0.996 beside "slower" reads 1.00 to 2 decimals, which
says the opposite of the verdict, so it shows as 0.996; an equivalence's 90% interval end of
1.0299 is not shown as the margin's 1.030."""

import math

# How many decimals a number may gain so as not to read as a value it is not.
MORE_DECIMALS = 3


def decimals(value: float, digits: int, avoid: tuple[float, ...]) -> int:
    """The decimals, from `digits`, that keep value from being rounded onto one of `avoid`
    that it is not (at most MORE_DECIMALS more)."""
    for d in range(digits, digits + MORE_DECIMALS):
        shown = round(value, d)
        if not any(value != a and math.isclose(shown, a, rel_tol=1e-12) for a in avoid):
            return d
    return digits + MORE_DECIMALS


def number(value: float, digits: int, grouped: bool, avoid: tuple[float, ...] = ()) -> str:
    """value to `digits` decimals (more where it would read as one of `avoid`); grouped:
    thousands commas."""
    return f"{value:{',' if grouped else ''}.{decimals(value, digits, avoid)}f}"


def interval(low: float, high: float, digits: int, dots: bool, grouped: bool,
             avoid: tuple[float, ...] = ()) -> str:
    """An interval: "[low, high]", or with dots "low .. high" (the terminal's tables); neither
    end rounded onto one of `avoid` it is not."""
    low, high = (number(end, digits, grouped, avoid) for end in (low, high))
    return f"{low} .. {high}" if dots else f"[{low}, {high}]"
