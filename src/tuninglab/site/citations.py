"""How a page names a source and its result: "Zaitsev, 2004" and x1.25 (the claims tables,
the defaults page)."""

from tuninglab.results.result import Ratio


def cite(source: dict) -> str:
    """A source's short citation: its author (or venue, or title) and year."""
    return f"{source.get('author') or source.get('venue') or source['title']}, {source['year']}"


def source_text(c) -> str:
    """The source's ratio, as today_text gives today's: x1.25."""
    return Ratio.of({"ratio": c.source_ratio}).text(mark="x", with_verdict=False)
