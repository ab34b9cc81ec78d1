"""How a page names a source and its result: "Zaitsev, 2004" and x1.25 (the claims tables,
the defaults page)."""

from tuninglab.results.ratio import Ratio


def cite(source: dict, beside_title: bool = False) -> str:
    """A source's short citation: its author (or venue) and year. A source that prints neither
    is named by its title, unless the title stands beside the citation already."""
    who = source.get("author") or source.get("venue")
    if not who:
        who = "unknown author" if beside_title else source["title"]
    return f"{who}, {source['year']}"


def source_text(c) -> str:
    """The source's ratio, as today_text gives today's: x1.25."""
    return Ratio.of({"ratio": c.source_ratio}).text(mark="x", with_verdict=False)


def times_text(ratio: Ratio | None) -> str:
    """A comparison as the claims' tables put it beside the source's: x1.25 [1.12, 1.39]."""
    return "-" if ratio is None else ratio.text(mark="x", with_verdict=False)
