"""Ratio: one comparison of a point to its baseline (the throughput's, or a cost's), as a result
stores it: stats.Comparison read back, with its margin and its words.

Ratio.text is the one text of a comparison: the terminal's tables (report.py), the site's
tables, hovers and verdicts, the fleet's table and the benchmarks each ask it for their form.
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields, replace

from tuninglab.results import stats
from tuninglab.results.shown_numbers import interval as _interval
from tuninglab.results.shown_numbers import number as _number


@dataclass(frozen=True)
class Ratio(stats.Comparison):
    """A comparison to the baseline as a result stores it (stats.Comparison.to_dict): the
    ratio, its 95% interval, the verdict's text and kind, the 90% interval of the equivalence
    test; each number None where there is none (not compared, too few repeats). Read from a
    result (Point), it knows the result's smallest effect worth knowing (margin), which its
    text needs to say that an effect is under it; and the words its metric's verdicts are
    shown in (words: (kind, word) pairs, as stats.LATENCY_WORDS), the kind staying as it is."""

    margin: float | None = field(default=None, compare=False)
    words: tuple = field(default=(), compare=False)

    @classmethod
    def of(cls, raw: dict | None, margin: float | None = None,
           words: tuple = ()) -> Ratio | None:
        """A stored comparison (None: none, as the baseline's); a verdict it lacks is ""."""
        if raw is None:
            return None
        found = {f.name: raw.get(f.name) for f in fields(stats.Comparison)}
        return cls(**found | {"verdict": found["verdict"] or "",
                              "verdict_kind": found["verdict_kind"] or ""},
                   margin=margin, words=words)

    def to_dict(self) -> dict:
        """As stored: the comparison's numbers and verdict, not what it is shown with."""
        return {f.name: getattr(self, f.name) for f in fields(stats.Comparison)}

    @property
    def half_width_pct(self) -> float:
        """The 95% interval's half-width as % of the ratio (it must have both)."""
        return stats.ratio_half_width_pct(self.to_dict())

    @property
    def excludes_one(self) -> bool:
        """Whether its 95% interval lies wholly above or below 1."""
        return self.ci_low is not None and (self.ci_low > 1 or self.ci_high < 1)

    def judged(self, kind: str) -> Ratio:
        """The same comparison with another verdict (its text being the kind)."""
        return replace(self, verdict=kind, verdict_kind=kind)

    def flipped(self) -> Ratio:
        """The comparison the other way round, baseline against point: each number inverted
        (an interval's ends swapping), faster for slower and more for less."""
        swap = {stats.FASTER: stats.SLOWER, stats.SLOWER: stats.FASTER, stats.MORE: stats.LESS,
                stats.LESS: stats.MORE}

        def inv(v):
            return None if v is None or v == 0 else 1 / v
        kind = swap.get(self.verdict_kind)
        return replace(self, ratio=inv(self.ratio), ci_low=inv(self.ci_high),
                       ci_high=inv(self.ci_low), tost_low=inv(self.tost_high),
                       tost_high=inv(self.tost_low),
                       **({"verdict": kind, "verdict_kind": kind} if kind else {}))

    def _within_margin(self, *values: float | None) -> bool:
        low, high = 1 / (1 + self.margin), 1 + self.margin  # symmetric on the log scale
        return all(v is not None and low < v < high for v in values)

    @property
    def said(self) -> str:
        """The verdict as shown: its metric's words for the kind ("lower latency" for less),
        and for a direction under the smallest effect worth knowing, that it is ("faster, by
        less than 3%": the equivalence test's 90% interval lies inside the margin as well;
        "faster, perhaps by less than 3%": the ratio does, its interval reaches past it)."""
        said = dict(self.words).get(self.verdict_kind, self.verdict)
        if self.verdict_kind not in stats.DIRECTIONS or not self.margin or self.ratio is None:
            return said
        if self._within_margin(self.tost_low, self.tost_high):
            return stats.under_margin_text(said, self.margin, shown=True)
        if self._within_margin(self.ratio):
            return stats.under_margin_text(said, self.margin, shown=False)
        return said

    def tost_text(self, dots: bool = False, grouped: bool = False) -> str:
        """The 90% interval that decided an equivalence, to 3 decimals (the 95% one beside it
        may reach past the margin), neither end rounded onto the margin's bounds as a reader
        takes them (0.97 and 1.03 for ±3%)."""
        avoid = () if not self.margin else (1 - self.margin, 1 + self.margin)
        return _interval(self.tost_low, self.tost_high, 3, dots, grouped, avoid)

    def text(self, digits: int = 2, *, mark: str = "ratio ", with_ratio: bool = True,
             with_interval: bool = True, with_verdict: bool = True, decided: bool = True,
             sep: str = ": ", dots: bool = False, grouped: bool = False) -> str:
        """The comparison in words, to `digits` decimals: `mark` and the ratio, its 95%
        interval ("[low, high]"; with dots "low .. high"), then after `sep` the verdict as
        shown (said) and, where decided and it is an equivalence, the 90% interval that decided
        it. Where the interval excludes 1, no number is rounded onto 1: more decimals for it
        ("[0.85, 0.996]: slower", never "[0.85, 1.00]"). A part without its numbers (not
        compared, too few repeats) or words is left out; "-" if all.
        The site's: "ratio 1.25 [1.12, 1.39]: faster"; the claims' tables', mark="x" without
        the verdict: "x1.25 [1.12, 1.39]"; the terminal's and the fleet's, a part a cell
        (report.ratio_cells): "1.250", "1.120 .. 1.390"; the benchmarks', sep=", "."""
        compared = self.ratio is not None
        avoid = (1.0,) if self.excludes_one else ()
        shown = []
        if with_ratio and compared:
            shown.append(mark + _number(self.ratio, digits, grouped, avoid))
        if with_interval and compared and self.ci_low is not None:
            shown.append(_interval(self.ci_low, self.ci_high, digits, dots, grouped, avoid))
        text = " ".join(shown)
        if with_verdict and self.verdict:
            verdict = self.said
            if decided and self.verdict_kind == stats.EQUIVALENT and self.tost_low is not None:
                verdict += f" (90% CI {self.tost_text(dots, grouped)})"
            text = f"{text}{sep}{verdict}" if text else verdict
        return text or "-"
