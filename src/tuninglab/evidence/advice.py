"""The advice, judged: whether today's evidence supports each topic's advice (issue 37, item 4).

A topic page's advice (its front matter's `advice:`) names the comparison it rests on:

    rests_on:
      recipe: doublewrite
      variant: ""              # optional: the recipe's main experiment
      point: "OFF"             # compared with the recipe's baseline point
      metric: ""               # optional: a cost per transaction instead of the primary metric
      holds_when: "at most 1.10"   # the range of point / baseline under which the advice holds

or `rests_on: none` with a `rests_on_why:` sentence, for advice that is not a measurable effect.
The range is "at least X", "at most X" or "between X and Y"; X may be a fraction ("1/1.03"),
so that "no slower than 3%" reads as it is meant.

The verdict compares the pooled 95% interval of the comparison a server's answer rests on
(answers.py, which decides each topic's answer per server) with the range: it holds when the
interval lies inside it, does not hold when it lies wholly outside, and cannot be told
otherwise (or without a pooled comparison, saying why). A lab VM's throughput is never a
verdict: its emulated CPU is not the hardware's, whatever the comparison says; its costs are.
"""

import math
import re
from dataclasses import dataclass

from tuninglab.errors import UserError
from tuninglab.evidence import claim_verdicts
from tuninglab.evidence.claim_verdicts import Comparison
from tuninglab.recipes import load
from tuninglab.results.metrics import COST, METRICS
from tuninglab.results.pooling import Pooled
from tuninglab.results.ratio import Ratio

HOLDS, DOES_NOT_HOLD, CANNOT_TELL = "holds", "does not hold", "cannot tell here"
KINDS = (HOLDS, DOES_NOT_HOLD, CANNOT_TELL)
KEYS = ("recipe", "variant", "point", "metric", "holds_when")
REQUIRED = ("recipe", "point", "holds_when")
NONE = "none"

_NUMBER = r"(\d+(?:\.\d+)?(?:/\d+(?:\.\d+)?)?)"
_ONE_SIDED = re.compile(rf"(at least|at most) {_NUMBER}")
_BETWEEN = re.compile(rf"between {_NUMBER} and {_NUMBER}")
_RANGE_FORMS = '"at least X", "at most X" or "between X and Y" (X a number such as 1.10 or 1/1.03)'


@dataclass(frozen=True)
class RestsOn:
    recipe: str
    variant: str
    point: str
    baseline: str         # the recipe's baseline point, which `point` is compared with
    metric: str           # "" for the result's primary metric, else a cost (metrics.COST)
    low: float | None     # the range of the ratio point / baseline; None: unbounded
    high: float | None
    holds_when: str       # the range as the page gives it

    @property
    def what(self) -> str:
        """The comparison in words: "OFF vs ON (tpcc), bytes the server wrote per
        transaction"."""
        variant = f" ({self.variant})" if self.variant else ""
        metric = f", {METRICS[self.metric].label}" if self.metric else ""
        return f"{self.point} vs {self.baseline}{variant}{metric}"

    @property
    def range_text(self) -> str:
        """The range in words, with the ratios as the pages print them: "at most x1.10"."""
        if self.low is not None and self.high is not None:
            return f"between x{_shown(self.low)} and x{_shown(self.high)}"
        if self.low is not None:
            return f"at least x{_shown(self.low)}"
        return f"at most x{_shown(self.high)}"

    @property
    def text(self) -> str:
        """"holds when OFF vs ON is at most x1.10"."""
        return f"holds when {self.what} is {self.range_text}"


@dataclass(frozen=True)
class AdviceVerdict:
    kind: str                        # one of KINDS
    why: str                         # why it cannot tell; "" for an answer
    rests_on: RestsOn | None         # None: the advice rests on no comparison
    comparison: Comparison | None    # the one judged (the home page's first); None: none
    pooled: Pooled | None = None     # the comparison's pooled estimate, when it is an answer

    @property
    def text(self) -> str:
        return self.kind

    @property
    def range_text(self) -> str:
        return self.rests_on.text if self.rests_on else ""

    @property
    def ratio(self) -> Ratio | None:
        """The pooled comparison as a Ratio (point / baseline), for Ratio.text."""
        return None if self.pooled is None else claim_verdicts.pooled_ratio(self.pooled)

    @property
    def effect(self) -> float | None:
        """How large the measured effect is (|log pooled ratio|); None without an answer."""
        return abs(math.log(self.pooled.ratio)) if self.pooled else None


# --- the front matter -------------------------------------------------------------------------

def _page(meta: dict) -> str:
    return f"docs/topics/{meta.get('slug', '?')}.md"


def _fail(meta: dict, key: str, problem: str) -> UserError:
    return UserError(f"{_page(meta)}: {key}: {problem}")


def _number(text: str) -> float:
    top, _, bottom = text.partition("/")
    return float(top) / float(bottom) if bottom else float(top)


def parse_range(text: str) -> tuple[float | None, float | None]:
    """(low, high) of a range's text; ValueError naming the forms it takes."""
    text = " ".join(str(text).split())
    one, two = _ONE_SIDED.fullmatch(text), _BETWEEN.fullmatch(text)
    try:
        if one:
            bound = _number(one.group(2))
            low, high = (bound, None) if one.group(1) == "at least" else (None, bound)
        elif two:
            low, high = _number(two.group(1)), _number(two.group(2))
        else:
            raise ValueError
    except (ValueError, ZeroDivisionError):
        raise ValueError(f"{text!r} is not a range: expected {_RANGE_FORMS}") from None
    bounds = [b for b in (low, high) if b is not None]
    if any(not math.isfinite(b) or b <= 0 for b in bounds):
        raise ValueError(f"{text!r}: a ratio's bound must be above 0")
    if low is not None and high is not None and not low < high:
        raise ValueError(f"{text!r}: the first bound must be below the second")
    return low, high


def _strings(meta: dict, given: dict) -> dict:
    """The rests_on table's keys, each a string (YAML reads OFF as false, 0 as a number)."""
    unknown = sorted(set(given) - set(KEYS))
    if unknown:
        raise _fail(meta, f"rests_on.{unknown[0]}", f"unknown key (expected {', '.join(KEYS)})")
    for key in REQUIRED:
        if key not in given:
            raise _fail(meta, f"rests_on.{key}", "missing")
    for key, value in given.items():
        if not isinstance(value, str):
            raise _fail(meta, f"rests_on.{key}", f"expected a quoted string, got {value!r} "
                        f"({type(value).__name__}: YAML reads OFF as false and 0 as a number)")
    return given


def rests_on(meta: dict) -> RestsOn | None:
    """The comparison a topic page's advice rests on, checked against its recipe; None when
    the page says `rests_on: none` (with a `rests_on_why:`). UserError names the page and
    the key."""
    given = meta.get("rests_on")
    why = meta.get("rests_on_why")
    if given is None:
        raise _fail(meta, "rests_on", "missing: name the comparison the advice rests on, or "
                    "say `rests_on: none` with a `rests_on_why:` sentence")
    if given == NONE:
        if not isinstance(why, str) or not why.strip():
            raise _fail(meta, "rests_on_why", "missing: `rests_on: none` needs a sentence "
                        "saying why the advice rests on no recipe comparison")
        return None
    if why is not None:
        raise _fail(meta, "rests_on_why", "given beside a comparison: it is only for "
                    "`rests_on: none`")
    if not isinstance(given, dict):
        raise _fail(meta, "rests_on", f"expected a table (recipe, point, holds_when, ...) or "
                    f"none, got {given!r}")
    return _checked(meta, _strings(meta, given))


def _recipe(meta: dict, name: str, variant: str, key: str):
    try:
        return load.load(name, variant=variant)
    except UserError as exc:
        raise _fail(meta, key, str(exc)) from None


def _checked(meta: dict, given: dict) -> RestsOn:
    variant, metric = given.get("variant", ""), given.get("metric", "")
    recipe = _recipe(meta, given["recipe"], "", "rests_on.recipe")
    if variant:
        recipe = _recipe(meta, given["recipe"], variant, "rests_on.variant")
    if recipe.topic != meta.get("slug"):
        raise _fail(meta, "rests_on.recipe", f"{given['recipe']} is a recipe of the topic "
                    f"{recipe.topic!r}, not of this page")
    point, values = given["point"], recipe.sweep.values
    if point not in values or point == recipe.sweep.baseline:
        raise _fail(meta, "rests_on.point", f"{point!r} is not a point of {given['recipe']}"
                    f"{' --variant ' + variant if variant else ''} other than its baseline "
                    f"{recipe.sweep.baseline!r} ({', '.join(values)})")
    if metric and metric not in COST:
        raise _fail(meta, "rests_on.metric", f"{metric!r} is not a cost per transaction "
                    f"({', '.join(COST)}); leave it out for the primary metric")
    try:
        low, high = parse_range(given["holds_when"])
    except ValueError as exc:
        raise _fail(meta, "rests_on.holds_when", str(exc)) from None
    return RestsOn(given["recipe"], variant, point, recipe.sweep.baseline, metric, low, high,
                   given["holds_when"])


# --- the verdict ------------------------------------------------------------------------------

def _shown(x: float) -> str:
    """A bound or an interval end with 2 decimals, 3 where 2 would round it: 1.10, 0.971."""
    two = f"{x:.2f}"
    return two if abs(float(two) - x) < 5e-4 else f"{x:.3f}"


def side(r: RestsOn, low: float, high: float) -> str:
    """HOLDS when the interval [low, high] lies inside the range, DOES_NOT_HOLD when wholly
    outside it, else CANNOT_TELL."""
    inside = (r.low is None or low >= r.low) and (r.high is None or high <= r.high)
    if inside:
        return HOLDS
    outside = (r.low is not None and high < r.low) or (r.high is not None and low > r.high)
    return DOES_NOT_HOLD if outside else CANNOT_TELL


def judge_comparison(r: RestsOn, c: Comparison) -> AdviceVerdict:
    """The advice's verdict from one pooled comparison."""
    lab = c.evidence.host_class.lab
    if lab and r.metric not in COST:
        why = c.why if c.kind == claim_verdicts.NOT_TESTABLE and c.why else \
            claim_verdicts.LAB_THROUGHPUT
        return AdviceVerdict(CANNOT_TELL, f"{claim_verdicts.NOT_TESTABLE}: {why}", r, c)
    p = c.pooled
    if p is None:
        return AdviceVerdict(CANNOT_TELL, f"{c.kind}: {c.why}" if c.why else c.kind, r, c)
    kind = side(r, p.ci_low, p.ci_high)
    why = "" if kind != CANNOT_TELL else (
        f"the 95% interval [{_shown(p.ci_low)}, {_shown(p.ci_high)}] lies partly outside the "
        f"range ({r.range_text})")
    return AdviceVerdict(kind, why, r, c, p)
