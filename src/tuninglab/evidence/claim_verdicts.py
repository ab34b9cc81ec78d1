"""Each source claim's verdict today, per evidence set (one server, one host class: sets.py),
computed at build time from the claims map (claims_map) and every comparable result: never
written by hand, never the latest file alone.

Each current result of the set gives its comparison of the claim's point with the recipe's
baseline (its repeats, as its own ratio uses them); results/sitting_model.py pools them into one
ratio with a 95% interval, counting results and sittings, the host class's A/A calibrations
(results/calibrations.py) in the same likelihood: they tell it how far a sitting and a
switchback's run stray. results/verdicts.py then
judges that interval against the size the source claimed, in the one vocabulary it defines.

A result whose point or baseline missed a regime check is left out of the pool (it answers
another question); when every result missed one, the verdict says "regime not reached". A lab VM
result's throughput answers no claim (the emulated CPU is not the hardware's); its costs do. A
claim with a caveat (its source contradicts itself) is judged against no ratio of the source's
(verdicts.doubted).
"""

import dataclasses
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from tuninglab import files
from tuninglab.evidence import functional, result_files, servers
from tuninglab.evidence.claims_map import Claim
from tuninglab.evidence.host_class import host_class, server_of
from tuninglab.evidence.sets import EvidenceSet, evidence_sets, evidence_version
from tuninglab.errors import UserError
from tuninglab.recipes.load import command, load
from tuninglab.results import calibrations, pooling, sitting_model
from tuninglab.results import verdicts as words
from tuninglab.results.ratio import Ratio
from tuninglab.results.result import Result

REPRODUCED = words.REPRODUCED
SMALLER = words.SMALLER
LARGER = words.LARGER
NOT_REPRODUCED = words.NOT_REPRODUCED
REVERSED = words.REVERSED
TOO_NOISY = words.TOO_NOISY
REGIME_NOT_REACHED = words.REGIME_NOT_REACHED
NOT_TESTABLE = words.NOT_TESTABLE
NOT_AN_EFFECT = words.NOT_AN_EFFECT
SOURCE_IN_DOUBT = words.SOURCE_IN_DOUBT
NOT_MEASURED = words.NOT_MEASURED
ONLY_OLDER = words.ONLY_OLDER
KINDS = tuple(words.VOCABULARY)


@dataclass(frozen=True)
class Verdict:
    kind: str                     # one of KINDS
    text: str                     # what the page prints
    ratio: Ratio | None           # the pooled comparison, oriented as the claim reads
    doc: Result | None            # the set's latest result (its host, its file)
    why: str = ""                 # a reason, for the verdicts that are not answers
    evidence: EvidenceSet | None = None
    pooled: pooling.Pooled | None = None
    left_out: int = 0             # results of the set that missed a regime check
    rerun: str = ""               # not testable here: where and how it would be answered
    band: str = ""                # what an answer was judged against (verdicts.band_text)
    quick: int = 0                # pooled results of the quick profile
    server: str = ""              # a verdict of no evidence set: the server it stands for

    @property
    def on_server(self) -> str:
        """The server the verdict is about: its evidence set's, or the one it stands for."""
        return self.evidence.server if self.evidence is not None else self.server

    @property
    def answered_by(self) -> str:
        """"answered on a host with KVM (/dev/kvm), by: invoke recipe ..." for a verdict not
        testable here, else empty."""
        return f"answered {self.rerun}" if self.rerun else ""

    @property
    def reasons(self) -> str:
        """Why, then what answers it elsewhere: the words every form of a verdict ends with."""
        return "; ".join(x for x in (self.why, self.answered_by) if x)

    @property
    def counted(self) -> str:
        """"3 results from 2 machines, 1 quick" (empty without a pool): quick and full results
        pool as one experiment, since a quick profile changes only the timing (warm-up,
        duration, repeats: tests/recipes pins that), but a reader sees how many were quick."""
        if self.pooled is None:
            return ""
        quick = f", {self.quick} quick" if self.quick else ""
        return counted(self.pooled.k, self.pooled.sittings) + quick


def counted(results: int, machines: int) -> str:
    """"3 results from 2 machines", the one way every page and command counts a pool (a
    machine is a sitting: one machine instance, its host id)."""
    return (f"{results} result{'s' * (results != 1)} from {machines} "
            f"machine{'s' * (machines != 1)}")


# --- the comparison a result gives ------------------------------------------------------------

def _point(r: Result, value: str):
    """The result's point of that swept value, or None."""
    return next((p for p in r.points if p.value == value), None)


def _estimate(point: str, metric: str, r: Result) -> tuple[pooling.Estimate | None, str]:
    """(one result's estimate of the point's comparison with its baseline, or None with why);
    metric "" is the result's primary one."""
    p = _point(r, point)
    if p is None:
        return None, f"the result has no point {point!r}"
    if p.is_baseline:
        return None, f"the point {point!r} is the result's baseline"
    metric = metric or r.metric
    try:
        values, base, _ = r.compared_values(p, metric)
    except KeyError:
        return None, f"the result did not measure {metric}"
    if any(v is None for v in values + base):
        return None, f"the result did not measure {metric} in every run"
    est = r.estimate(p, values, base, metric)
    if est is None:
        few = "a duet of one repeat" if r.design == "duet" else "fewer than 2 repeats"
        return None, f"its {metric} cannot be compared ({few}, or a 0)"
    return dataclasses.replace(est, sitting=r.sitting), ""


@dataclass(frozen=True)
class Comparison:
    """A point's comparison with its baseline pooled over one evidence set: pooled is None when
    no result gives one (kind says why: REGIME_NOT_REACHED, NOT_MEASURED, ONLY_OLDER,
    NOT_TESTABLE)."""
    evidence: EvidenceSet
    pooled: pooling.Pooled | None
    kind: str = ""
    why: str = ""
    left_out: int = 0            # results that missed a regime check
    rerun: str = ""              # NOT_TESTABLE: the command that answers it on real hardware
    quick: int = 0               # pooled results of the quick profile (the same experiment)


def estimate(point: str, metric: str, doc: dict | Result) -> pooling.Estimate | None:
    """One result's estimate of the point's comparison with its baseline, or None."""
    return _estimate(point, metric, Result.of(doc))[0]


def regime_estimates(s: EvidenceSet, point: str, metric: str = "") -> tuple[list, int, list]:
    """(the estimates of the set's current results that reached the regime, how many missed
    it, why the others give none): what compare_set pools."""
    estimates, _, missed, whys = _regime(s, point, metric)
    return estimates, missed, whys


def pooled_results(s: EvidenceSet, point: str, metric: str = "") -> list[Result]:
    """The set's results whose estimates compare_set pools (their regime reached)."""
    return _regime(s, point, metric)[1]


def _regime(s: EvidenceSet, point: str, metric: str) -> tuple[list, list, int, list]:
    """regime_estimates, with the results the estimates come from (in their order)."""
    estimates, used, missed, whys = [], [], 0, []
    for r in s.results:
        est, why = _estimate(point, metric, r)
        if est is None:
            whys.append(why)
        elif not _point(r, point).regime_reached:
            missed += 1
        else:
            estimates.append(est)
            used.append(r)
    return estimates, used, missed, whys


def compare_set(s: EvidenceSet, point: str, metric: str = "") -> Comparison:
    """The point's comparison with the baseline pooled over the set's current results."""
    if s.latest is None:
        return Comparison(s, None, ONLY_OLDER, "; ".join(sorted({w for _, w in s.superseded})))
    if functional.functional_only(s.latest) and not metric:
        return Comparison(s, None, NOT_TESTABLE, _functional_why(s.latest),
                          rerun=functional.hardware_rerun(s.latest))
    estimates, used, missed, whys = _regime(s, point, metric)
    if estimates:
        pooled = sitting_model.pool(estimates, list(calibration(s)))
        why = f"{missed} result{'s' * (missed != 1)} left out: regime not reached" \
            if missed else ""
        quick = sum(r.profile == "quick" for r in used)
        return Comparison(s, pooled, "", why, missed, quick=quick)
    if missed:
        return Comparison(s, None, REGIME_NOT_REACHED,
                          "the page's regime table says which check it missed", missed,
                          rerun=named_disk_only(s.recipe, s.variant))
    return Comparison(s, None, NOT_MEASURED, whys[-1])


def named_disk_only(recipe: str, variant: str, recipes_dir: Path = files.RECIPES_DIR) -> str:
    """Where an experiment whose dataset is sized to a named disk ([dataset] read_seconds: the
    2008 scan) answers, and by what command; "" for any other. On a loop device its tables keep
    the shape's rows, which a scan reads in far less time than its regime check asks."""
    try:
        sized = load(recipe, recipes_dir, variant).dataset.read_seconds
    except UserError:
        return ""
    return (f"on a named disk, its tables sized to it, by: {command(recipe, variant)} "
            "--device /dev/sdX --destroy-data") if sized else ""


def comparisons(recipe: str, variant: str, point: str, metric: str = "") -> list[Comparison]:
    """The point's pooled comparison on each evidence set of the recipe's variant, in
    evidence_sets' order (the project's largest set first). Pooled once while the evidence
    stays as it is: the home page, the topic pages, the claims page and the Check-your-server
    examples all ask for the same comparisons in one build."""
    return list(_comparisons(recipe, variant, point, metric, evidence_version(recipe)))


@lru_cache(maxsize=4096)
def _comparisons(recipe: str, variant: str, point: str, metric: str,
                 _version: tuple) -> tuple[Comparison, ...]:
    return tuple(compare_set(s, point, metric) for s in evidence_sets(recipe, variant))


def pooled_ratio(pooled: pooling.Pooled, invert: bool = False) -> Ratio:
    """The pooled comparison as a Ratio (for Ratio.text), point / baseline or, inverted, the
    claim's way round (baseline / point)."""
    values = (pooled.ratio, pooled.ci_low, pooled.ci_high, pooled.tost_low, pooled.tost_high)
    if invert:
        r, lo, hi, tlo, thi = (1 / v for v in values)
        values = (r, hi, lo, thi, tlo)
    r, lo, hi, tlo, thi = values
    return Ratio.of({"ratio": r, "ci_low": lo, "ci_high": hi, "tost_low": tlo, "tost_high": thi,
                     "verdict": "", "verdict_kind": ""})


def _records_version() -> tuple[str, float]:
    data = result_files.DATA_DIR
    return str(data), result_files.stamp(Path(data) / calibrations.DIR)


@lru_cache(maxsize=4)
def _records(data_dir: str, _stamp: float) -> tuple:
    return tuple(calibrations.load_all(Path(data_dir)))


def calibration(s: EvidenceSet) -> tuple[pooling.Estimate, ...]:
    """The host class's A/A estimates (each labelled with its machine's host id, a switchback's
    flagged as paired) from the set's server's own records on the class's machines, where it
    has any (`invoke lab.noise --server`); else from every server's records of the class, an
    A/A of one server being the nearest measure of another's on the same machines."""
    duet = s.host_class.duet   # a duet class: the records' duet A/As, else the others
    return _class_calibration(s.host_class.key, duet, s.server, *_records_version())


@lru_cache(maxsize=256)
def _class_calibration(key, duet: bool, server: str, data_dir: str,
                       stamp: float) -> tuple[pooling.Estimate, ...]:
    # Naming a record's class reads its whole host section: once per class, server and record
    # set, not once per comparison pooled.
    mine = [(server_of(c), found) for c in _records(data_dir, stamp)
            if host_class(c, duet).key == key and (found := calibrations.aa_estimates(c, duet))]
    own = [found for name, found in mine if name == server]
    return tuple(e for found in own or [found for _, found in mine] for e in found)


# --- the verdict of a set ---------------------------------------------------------------------

# Why no rerun answers a claim whose source is in doubt (its caveat, shown beside it).
DOUBTED = "its caveat puts the source's ratio in doubt: a rerun measures the setting, not the claim"

# Why a lab VM's throughput answers nothing (its costs do): the emulated CPU is not the hardware's.
LAB_THROUGHPUT = "lab VM: its throughput is not the hardware's"


def _functional_why(doc: Result) -> str:
    """Why a lab VM result's throughput answers no claim, short."""
    reasons = " and ".join(functional.functional_reasons(doc, short=True))
    return LAB_THROUGHPUT.replace("lab VM:", f"lab VM, {reasons}:")


def verdict_for_set(claim: Claim, s: EvidenceSet) -> Verdict:
    """The claim's verdict from every current result of one evidence set."""
    return verdict_of(claim, compare_set(s, claim.point, claim.metric))


def verdict_of(claim: Claim, c: Comparison) -> Verdict:
    """The claim's verdict from its point's comparison pooled over one evidence set."""
    s = c.evidence
    doc = s.latest if s.latest is not None else s.superseded[-1][0]
    if c.pooled is None:
        return Verdict(c.kind, c.kind, None, doc, c.why, s, None, c.left_out, c.rerun)
    ratio = pooled_ratio(c.pooled, claim.invert)
    interval = words.Interval(ratio.ci_low, ratio.ci_high, ratio.tost_low, ratio.tost_high)
    margin = doc.smallest_effect
    kind = words.judge(claim.source_ratio, interval, margin, claim.source_noise)
    band = words.band_text(claim.source_ratio, margin, claim.source_noise)
    why, text = c.why, kind
    if claim.caveat:  # the source contradicts itself: what was measured, and the doubt
        measured, kind = kind, words.doubted(kind, interval, margin)
        text, band = words.doubted_text(measured, kind), words.doubted_band(band)
    if kind == words.SOURCE_IN_DOUBT:
        why = "; ".join(x for x in (DOUBTED, c.why) if x)
    return Verdict(kind, text, ratio, doc, why, s, c.pooled, c.left_out, band=band,
                   quick=c.quick)


def verdict_for(claim: Claim, doc: dict | Result) -> Verdict:
    """The claim's verdict on one result alone (a run's report, a test)."""
    r = Result.of(doc)
    s = EvidenceSet(r.recipe, r.variant, server_of(r), host_class(r), (r,), ())
    return verdict_for_set(claim, s)


def verdicts(claim: Claim) -> list[Verdict]:
    """The claim's verdict on each evidence set of its recipe's variant, the project's largest
    first; one "not measured yet" when there is none. Computed once while the claim's evidence
    stays as it is: the claims page asks for each claim's verdicts several times a build."""
    return list(_verdicts(claim, evidence_version(claim.recipe)))


@lru_cache(maxsize=1024)
def _verdicts(claim: Claim, version: tuple) -> tuple[Verdict, ...]:
    found = _comparisons(claim.recipe, claim.variant, claim.point, claim.metric, version)
    if not found:
        return (Verdict(NOT_MEASURED, NOT_MEASURED, None, None,
                        f"run {command(claim.recipe, claim.variant)} to measure it"),)
    return tuple(_whole_machine_first(claim, [verdict_of(claim, c) for c in found]))


# Why a server measured only on half the machine has no answer: a source's claim ran on a whole
# one, and a duet's twin servers each had half its CPUs and shared its disk.
HALF_MACHINE = ("measured only on half the machine (a duet: two servers side by side, each on "
                "half the CPUs, sharing the disk), another question than the source's whole "
                "machine")


def _whole_machine_first(claim: Claim, found: list[Verdict]) -> list[Verdict]:
    """The verdicts with each server's first (its column's answer) on a whole machine: where a
    server's first set is a duet's (sets.py orders them after every whole machine's), a "not
    measured yet" saying so goes before it, and the duet's verdict follows as evidence on half
    a machine."""
    out, seen = [], set()
    for v in found:
        server = v.on_server
        if server not in seen and v.evidence is not None and v.evidence.host_class.duet:
            how = servers.how_to_measure(claim.recipe, claim.variant, server)
            out.append(Verdict(NOT_MEASURED, NOT_MEASURED, None, None, f"{HALF_MACHINE}; {how}",
                               server=server))
        seen.add(server)
        out.append(v)
    return out
