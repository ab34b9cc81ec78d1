"""The answer index: for each topic and server, the one answer the guide gives, decided here
and only here. The home page, the topic pages, the claims page, Check your server, `invoke
advise` and `invoke claims.status` read it; site/ renders it and judges nothing.

An answer is a topic page's advice on one server with what decides it: the comparison the
advice rests on (advice.rests_on), pooled over the server's headline evidence set
(effects.headline: one rule for every page and command), that comparison's own words (faster,
slower, equivalent, too noisy to tell: effects.judged, the words of its row on the topic
page), whether the evidence holds the advice up (advice.judge_comparison), and what the faster
setting risks (risks.py). Each question keeps its words: a setting's comparison reads "faster"
or "too noisy to tell", an advice "holds" or "cannot tell here", a source claim its verdict
(claim_verdicts); a cell names which one it answers.

A reader's own server and host (`invoke advise`) may stand closer to another host class than
the headline's: closest() picks it, its own machine's class first, and otherwise keeps the
headline's set unless another class differs from the reader's host in fewer parts."""

import html
from dataclasses import dataclass, field

from tuninglab.evidence import advice, claim_verdicts, host_class, servers
from tuninglab.evidence.advice import AdviceVerdict, RestsOn
from tuninglab.evidence.claim_verdicts import Comparison, counted
from tuninglab.evidence.effects import headline, judged
from tuninglab.evidence.risks import risked
from tuninglab.evidence.topic_pages import topic_pages
from tuninglab.recipes.load import load
from tuninglab.results.ratio import Ratio

PARTS = ("CPU", "cores", "memory", "VM", "disk")


@dataclass(frozen=True)
class Answer:
    slug: str
    title: str
    server: str
    advice: str                  # the page's advice in full
    glance: str                  # in a few words
    verdict: AdviceVerdict       # whether the evidence holds the advice up, and why not
    setting: Ratio | None        # the comparison in its own words (faster, ...), None: none
    metric: str                  # the metric it is in: the recipe's primary one, or a cost
    risk_kind: str = ""          # what the compared setting gives up ("not durable"), "" none
    risk: str = ""               # ... in words: "about a second of committed transactions..."
    swept: str = ""              # the setting the compared recipe sweeps, "" for none
    meta: dict = field(default_factory=dict, compare=False, repr=False)

    @property
    def rests_on(self) -> RestsOn | None:
        return self.verdict.rests_on

    @property
    def comparison(self) -> Comparison | None:
        return self.verdict.comparison

    @property
    def kind(self) -> str:
        return self.verdict.kind

    @property
    def effect(self) -> float | None:
        """How large the measured effect is (|log pooled ratio|); None without an answer."""
        return self.verdict.effect

    @property
    def counted(self) -> str:
        """"3 results from 2 machines": what the comparison pools ("" without a pool)."""
        c = self.comparison
        return counted(c.pooled.k, c.pooled.sittings) if c and c.pooled else ""


def glance_advice(meta: dict) -> str:
    """The advice in a few words: the page's `glance:`, else its advice to the first ";"."""
    return str(meta.get("glance") or meta["advice"].split(";")[0]).strip()


def metric_of(r: RestsOn) -> str:
    """The metric a rests_on comparison is in: its cost, else its recipe's primary metric."""
    return r.metric or load(r.recipe, variant=r.variant).workload.metric


def answer(meta: dict, server: str = servers.REFERENCE) -> Answer:
    """The topic's answer on one server."""
    r = advice.rests_on(meta)
    base = dict(slug=meta["slug"], title=meta["title"], server=server,
                advice=meta["advice"], glance=glance_advice(meta), meta=meta)
    if r is None:
        why = meta["rests_on_why"].strip()
        return Answer(verdict=AdviceVerdict(advice.CANNOT_TELL, why, None, None), setting=None,
                      metric="", **base)
    swept = load(r.recipe, variant=r.variant).sweep.setting
    kind, risk = risked(swept, r.point)
    c = headline(r.recipe, r.variant, r.point, r.metric, server)
    if c is None:
        verdict = AdviceVerdict(advice.CANNOT_TELL, f"{claim_verdicts.NOT_MEASURED}: "
                                f"{servers.how_to_measure(r.recipe, r.variant, server)}",
                                r, None)
        return Answer(verdict=verdict, setting=None, metric=metric_of(r), risk_kind=kind,
                      risk=risk, swept=swept, **base)
    return Answer(verdict=advice.judge_comparison(r, c), setting=judged(c, r.metric),
                  metric=metric_of(r), risk_kind=kind, risk=risk, swept=swept, **base)


def answers(server: str = servers.REFERENCE, metas: list[dict] | None = None) -> list[Answer]:
    """Every topic's answer on one server, in the pages' order."""
    return [answer(meta, server) for meta in (topic_pages() if metas is None else metas)]


def ranked(server: str = servers.REFERENCE, metas: list[dict] | None = None) -> list[Answer]:
    """The topics by the effect measured on one server (|log pooled ratio| of the comparison
    their advice rests on), largest first; those without an answer last (one measured too
    loosely to judge too), in the pages' order."""
    def rank(a: Answer):
        unanswered = a.kind == advice.CANNOT_TELL or a.effect is None
        return unanswered, 0.0 if unanswered else -a.effect   # sorted() keeps page order
    return sorted(answers(server, metas), key=rank)


# --- a reader's own host ----------------------------------------------------------------------

def differences(here: dict, there: dict) -> list[str]:
    """The parts in which a class differs from this host, as "cores: 8 there, 2 here"."""
    out = []
    for part in PARTS:
        a, b = there.get(part), here.get(part)
        if a is not None and b is not None and a != b:
            out.append(f"{part}: {_part(a)} there, {_part(b)} here")
    return out


def _part(value) -> str:
    return {True: "a VM", False: "not a VM"}.get(value, str(value)) \
        if isinstance(value, bool) else str(value)


def closest(r: RestsOn, server: str, here: dict,
            machine=None) -> tuple[Comparison, list[str], bool] | None:
    """The comparison whose host class is closest to a reader's host: its own class (machine,
    known from what this host measured before) first, then whole-machine evidence before a
    duet's (each of its servers had half the machine: another question than a reader's server
    asks), then the project's own evidence before contributed evidence (which anyone can add),
    then by the fewest differing parts; ties keep the headline's order (effects.headline), so
    a host like the project's reads what the pages say. With its differences (none for its
    own), and whether it is its own class; None without evidence on that server."""
    found = [c for c in claim_verdicts.comparisons(r.recipe, r.variant, r.point, r.metric)
             if c.evidence.server == server]
    if not found:
        return None

    def parts(c):
        return host_class.machine_parts(c.evidence.results[-1]) if c.evidence.results else {}

    def own(c) -> bool:
        return machine is not None and host_class.runs_on(c.evidence.host_class, machine)
    best = min(found, key=lambda c: (not own(c), c.evidence.host_class.duet,
                                     c.evidence.host_class.contributed,
                                     len(differences(here, parts(c)))))
    return best, ([] if own(best) else differences(here, parts(best))), own(best)


# --- the marks a page puts on what it says ----------------------------------------------------

# Every element of a page that states a comparison's verdict on a server carries this
# attribute, so that a test can read every built page and fail where two say different things
# of one comparison on one host class's evidence (tests/site/test_answers_agree.py): the same
# question must read the same words, and every question on it the same interval.
ATTR = "data-answer"
SETTING, ADVICE, CLAIM = "setting", "advice", "claim"   # the questions a cell may answer


@dataclass(frozen=True)
class Mark:
    server: str          # "mariadb 11.8"
    recipe: str
    variant: str
    point: str
    metric: str          # the metric compared ("" never: the recipe's primary is named)
    evidence: str        # the host class whose results it pools (its key)
    question: str        # SETTING, ADVICE, or CLAIM + ":" + the claim's id
    words: str           # the verdict's words as the cell says them
    interval: str        # point / baseline's 95% interval, "0.941,1.031"; "" without one

    @property
    def comparison(self) -> tuple:
        """What is compared, on which server and whose evidence: every question on it reads
        one interval."""
        return self.server, self.recipe, self.variant, self.point, self.metric, self.evidence


def interval_of(pooled) -> str:
    """A pooled comparison's interval (a Pooled, or a Ratio of it: point / baseline) as a mark
    gives it, to 3 decimals."""
    return "" if pooled is None else f"{pooled.ci_low:.3f},{pooled.ci_high:.3f}"


def mark(m: Mark) -> str:
    """The attribute text, ` data-answer="..."`, of one element's statement."""
    return marks([m])


def marks(found) -> str:
    """One element's statements, each a Mark, in one attribute."""
    values = sorted({"|".join((m.server, m.recipe, m.variant, m.point, m.metric, m.evidence,
                               m.question, m.words, m.interval)) for m in found})
    return f' {ATTR}="{html.escape(";".join(values))}"' if values else ""


def parse_marks(value: str) -> list[Mark]:
    """The Marks of an attribute's value."""
    return [Mark(*part.split("|")) for part in html.unescape(value).split(";") if part]


def advice_mark(a: Answer) -> str:
    """The mark of a cell that says an answer's advice verdict ("" for one that rests on no
    comparison or has none on its server)."""
    r, c = a.rests_on, a.comparison
    if r is None or c is None:
        return ""
    return mark(Mark(a.server, r.recipe, r.variant, r.point, a.metric,
                     c.evidence.host_class.key, ADVICE, a.kind, interval_of(c.pooled)))


def claim_mark(claim, v, server: str) -> str:
    """The mark of a cell that says a source claim's verdict (claim_verdicts.Verdict) on a
    server: the claim's question on its point's comparison; "" without a pooled one."""
    return "" if v.pooled is None else mark(Mark(
        server, claim.recipe, claim.variant, claim.point, claim.metric or v.evidence.latest.metric,
        v.evidence.host_class.key, f"{CLAIM}:{claim.id}", v.kind, interval_of(v.pooled)))
