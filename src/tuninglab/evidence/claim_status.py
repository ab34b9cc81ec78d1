"""Where each source claim stands and what answering it would take here (`invoke claims.status`,
and the plan of `invoke claims.rerun`): its pooled verdict (claim_verdicts) on the evidence set a
new result from this host would join (its server and its host class, where the command knows them,
else the claim's first set, the one the claims page counts; a class or server with no result yet is
"not measured yet" there), the precision it needs (results/precision_need.py), the precision it
has, and the rounds and time one new result from this host would take to bring the pooled interval
within that need. While a claim is too noisy to tell, what a rerun aims at is the need at today's
pooled ratio (precision_need.need_at: an interval centred there must exclude 1 or the source's
band), which is narrower than the need when today's ratio lies between the two.

The estimate pools exactly as the verdict will (results/sitting_model.py): the set's current
results as they are, plus one new result from this host, a sitting of its own (or one more result
of its sitting), whose standard error is the per-round noise over the square root of its rounds
(sampling error shrinks with the square root of the rounds; nothing else does), with the host
class's A/A calibrations. So it counts what more rounds here cannot shrink: the between-sitting
spread the model still allows and the other sittings' own noise. The rounds are the fewest that
bring the pooled interval within AIM_INSIDE of the need (the new result moves the pooled ratio, and
the need with it); when even the most rounds a result may have, at this host's per-round noise,
leave it wider, the claim is out of reach from this sitting, and says so. The per-round noise comes
from the recipe variant's earlier results (of the same profile where there are some) or from
this host's `invoke lab.noise` figures, the larger where both exist (a noisier host than the
earlier ones never plans from their quiet), else it is unknown. The time is the recipe's plan for that
many rounds (recipes/plan.py's estimate, the template build included). The command hands in what
it knows of this host (Here): evidence/ never imports the engine.

A duet's results (two servers side by side, each on half the machine) never answer a claim,
whose source ran on a whole machine (claim_verdicts.HALF_MACHINE): every claim is planned on the
whole machine's evidence, and `invoke recipe --design duet` aims at the duet class's own
(Here.as_duet).
"""

import dataclasses
import math
import statistics
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from tuninglab import files
from tuninglab.errors import UserError
from tuninglab.evidence import claim_verdicts, claims_map, servers
from tuninglab.evidence.claim_reach import Pool, Reach, reach, toward
from tuninglab.evidence.claim_verdicts import Verdict
from tuninglab.evidence.claims_map import Claim
from tuninglab.evidence.host_class import HostClass, runs_on
from tuninglab.evidence.sets import EvidenceSet
from tuninglab.recipes import plan as planner
from tuninglab.recipes.load import load
from tuninglab.recipes.raid import member_serials
from tuninglab.results import pooling, precision_need, stats
from tuninglab.results import verdicts as words
from tuninglab.results.precision_need import Need
from tuninglab.results.result import Result

# What keeps an unanswered claim from an answer here (Status.block), for the totals.
NOT_HERE, LAB_THROUGHPUT, OUT_OF_REACH, TOO_FINE, SAME_REGIME, NO_PLAN, UNKNOWN = (
    "not testable here", "lab VM throughput", "out of reach from this sitting",
    "needs under ±1%", "regime missed by the same run", "no plan here", "time unknown")
DOUBTED = "source in doubt"   # no rerun answers what the source cannot support
# The verdicts a new result here may turn into an answer (REGIME_NOT_REACHED: in another profile).
OPEN = (words.TOO_NOISY, words.NOT_MEASURED, words.ONLY_OLDER, words.REGIME_NOT_REACHED)
ASSUMPTIONS = ("a new result from this host pools with the claim's evidence set as a sitting "
               "of its own; its sampling error shrinks with the square root of its rounds, "
               "from the per-round noise of the recipe's earlier results or this host's "
               "`invoke lab.noise` figures, the larger; today's pooled ratio, the host class's A/A "
               "calibrations and the other sittings' results stay as they are; times include "
               "the template build")


@dataclass(frozen=True)
class Here:
    """What the command knows of this host (the engine's to say, which evidence/ never imports):
    its host id, whose results pool as one sitting, the per-round sd of a log ratio that its
    noise figures give a plan (None: no figures), and the evidence sets its results would join:
    its server ("mariadb 10.11") and its machine's host class (None: not known, any); and
    whether its lab VM runs under KVM, at the hardware's speed. design: the design a run here
    uses (None: the recipe's); duet_machine: a duet's class on this machine, the evidence
    `invoke recipe --design duet` adds to (as_duet; None: not known)."""
    sitting: str = "this host"
    profile: str = "full"
    noise_sd: Callable | None = None
    recipes_dir: Path = files.RECIPES_DIR
    server: str | None = None
    machine: HostClass | None = None
    lab_kvm: bool = False
    design: str | None = None
    duet_machine: HostClass | None = None

    def as_duet(self) -> "Here":
        """This host running duets: its results join the duet class's sets."""
        return dataclasses.replace(self, machine=self.duet_machine, design="duet",
                                   duet_machine=None)

    def joins(self, s: EvidenceSet) -> bool:
        """Whether a result from this host would join the set: its server's, on its machine's
        class (a lab VM's set answers for its guest's server alone, on the machine it ran on)."""
        server = self.server is None or s.server == self.server
        return server and (self.machine is None or runs_on(s.host_class, self.machine))

    @property
    def where(self) -> str:
        """The evidence this host adds to, as a reader sees it."""
        parts = [p for p in (self.server, self.machine and self.machine.name) if p]
        return ", ".join(parts) if parts else "the claim's first evidence set"


@dataclass(frozen=True)
class Status:
    claim: Claim
    verdict: Verdict
    need: Need                  # centred on the source's ratio or on 1 (precision_need.need)
    current_pct: float | None   # the pooled interval's half-width now
    open: bool                  # a new result here may answer it
    reach: Reach | None = None
    why: str = ""               # why it is not open, or why it has no reach
    basis: str = ""             # where the per-round noise came from
    block: str = ""             # what keeps it from an answer here, in a few words (NOT_HERE...)
    need_now: Need | None = None  # too noisy: the need at today's pooled ratio (need_at)

    @property
    def aim(self) -> Need:
        """The need a rerun works to: at today's ratio when it is too noisy, else the need."""
        return self.need_now or self.need

    @property
    def answered(self) -> bool:
        return self.verdict.kind in words.ANSWERS


# --- the evidence ------------------------------------------------------------------------------

def margin_of(claim: Claim, v: Verdict, recipes_dir: Path = files.RECIPES_DIR) -> float:
    """The smallest effect worth knowing the verdict uses: its result's, else the recipe's."""
    if v.doc is not None:
        return v.doc.smallest_effect
    pct = load(claim.recipe, recipes_dir, claim.variant).measure.smallest_effect_pct
    return (stats.DEFAULT_SMALLEST_EFFECT_PCT if pct is None else pct) / 100


def _estimate(claim: Claim, doc: Result):
    """One result's estimate of the claim's comparison, None without one."""
    return claim_verdicts.estimate(claim.point, claim.metric, doc)


def pooled_now(claim: Claim, v: Verdict) -> list[pooling.Estimate]:
    """The estimates the verdict pools: the set's current results that reached the regime."""
    if v.evidence is None or v.pooled is None:
        return []
    return claim_verdicts.regime_estimates(v.evidence, claim.point, claim.metric)[0]


def round_sd(claim: Claim, v: Verdict, plan, here: Here) -> tuple[float | None, str]:
    """(the per-round sd of the claim's log ratio, where it comes from): the recipe's earlier
    results', else this host's noise figures, whichever is the larger where both exist."""
    s = v.evidence
    results = [] if s is None else list(s.results) + [r for r, _ in s.superseded]
    same = [r for r in results if r.profile == here.profile]
    results = same or results
    sds = [e.se * math.sqrt(r.repeats) for r in results
           if (e := _estimate(claim, r)) is not None]
    mine = here.noise_sd(plan) if here.noise_sd else None
    if mine and plan.duet:  # a duet's round is a repeat: two halves, one in each place
        mine /= math.sqrt(2)
    if sds:
        profile = here.profile if same else "other profiles"
        basis = f"{len(sds)} earlier result{'s' * (len(sds) != 1)} ({profile})"
        # Never quieter than this host measured itself: other machines' rounds were (a
        # read-ahead plan aimed at ±1.9% from them reached ±5.9% on a noisier machine).
        if mine and mine > statistics.median(sds):
            return mine, f"this host's lab.noise figures (noisier than {basis})"
        return statistics.median(sds), basis
    return (mine, "this host's lab.noise figures") if mine else (None, "")


# --- the pool a new result joins ---------------------------------------------------------------

def pool_of(claim: Claim, v: Verdict, here: Here) -> Pool:
    """The pool of the set a new result from this host would join (its verdict's, else the
    empty one a first result starts) with one new result."""
    s = v.evidence or _first_set(claim, here)
    return Pool(pooled_now(claim, v), math.log(v.pooled.ratio) if v.pooled else 0.0,
                claim_verdicts.calibration(s) if s else (), here.sitting)


def _first_set(claim: Claim, here: Here) -> EvidenceSet | None:
    """The empty set a first result from this host would start, whose host class's A/A
    calibrations give the between-sitting spread: its server on its machine's class. None
    where either is unknown, or for a lab VM recipe, whose class is known once it ran."""
    if here.machine is None or here.server is None:
        return None
    try:
        if load(claim.recipe, here.recipes_dir, claim.variant).in_lab_vm:
            return None
    except UserError:
        return None
    return EvidenceSet(claim.recipe, claim.variant, here.server, here.machine, (), ())


# --- a claim's status --------------------------------------------------------------------------

def _regime_open(v: Verdict, profile: str) -> tuple[bool, str]:
    """Whether a rerun in this profile may reach the regime every result missed."""
    ran = {r.profile for r in v.evidence.results} if v.evidence else set()
    if profile in ran:
        return False, (f"every {profile} result missed the recipe's regime check: the same "
                       "run would miss it again (the recipe needs a scenario that reaches it)")
    return True, ""


def verdict_here(claim: Claim, here: Here) -> Verdict:
    """The claim's verdict on the first evidence set a new result from this host would join, or
    "not measured yet" where none has a result."""
    found = claim_verdicts.verdicts(claim)
    # A server's "not measured yet" on a whole machine (v.server) stands for no set: this
    # host's own where its result would go says more.
    mine = next((v for v in found if (here.joins(v.evidence) if v.evidence is not None
                                      else not v.server)), None)
    if mine is not None:
        return mine
    server = here.server or servers.REFERENCE
    cannot = servers.cannot_measure(claim.recipe, claim.variant, server)
    if cannot:
        return Verdict(words.NOT_TESTABLE, words.NOT_TESTABLE, None, None, cannot)
    how = servers.how_to_measure(claim.recipe, claim.variant, server)
    return Verdict(words.NOT_MEASURED, words.NOT_MEASURED, None, None,
                   f"no result on {here.where} yet: {how}")


def status(claim: Claim, here: Here = Here(), v: Verdict | None = None) -> Status:
    """The claim's status on the evidence set this host's results would join, with the reach
    of a new result here when the claim is open."""
    return _status(claim, here, v)


def _status(claim: Claim, here: Here, v: Verdict | None = None) -> Status:
    """The claim's status on the evidence set this host's results would join, with this
    host's design (here.design)."""
    v = v or verdict_here(claim, here)
    margin = margin_of(claim, v, here.recipes_dir)
    need = precision_need.need(claim.source_ratio, margin, claim.source_noise)
    current = v.ratio.half_width_pct if v.ratio and v.ratio.ci_low else None
    now = precision_need.need_at(claim.source_ratio, margin, claim.source_noise,
                                 v.ratio.ratio) if v.kind == words.TOO_NOISY and v.ratio else None
    base = Status(claim, v, need, current, open=False, need_now=now)
    if v.kind not in OPEN:
        if v.kind == words.SOURCE_IN_DOUBT:  # it says why no rerun answers it
            return dataclasses.replace(base, block=DOUBTED, why=v.reasons)
        if v.kind != words.NOT_TESTABLE:
            return base
        return dataclasses.replace(base, block=NOT_HERE, why=v.reasons)
    disk = claim_verdicts.named_disk_only(claim.recipe, claim.variant, here.recipes_dir)
    if disk:  # a sandbox never reaches its regime, and claims.rerun runs on one
        return dataclasses.replace(base, block=NOT_HERE, why=f"answered {disk}")
    if v.kind == words.REGIME_NOT_REACHED:
        ok, why = _regime_open(v, here.profile)
        if not ok:
            return dataclasses.replace(base, why=why, block=SAME_REGIME)
    if not base.aim.reachable:
        return dataclasses.replace(base, block=TOO_FINE, why="narrower than any run here "
                                   f"reaches (±{precision_need.MIN_NEED_PCT:g}%)")
    return _here(claim, v, base, here)


def _here(claim: Claim, v: Verdict, base: Status, here: Here) -> Status:
    """An open claim's reach here, or what keeps it from one."""
    need = base.aim
    pool = pool_of(claim, v, here)
    try:
        e = load(claim.recipe, here.recipes_dir, claim.variant).experiment(here.profile)
    except UserError as exc:
        return dataclasses.replace(base, why=str(exc), block=NO_PLAN)
    plan = planner.build(e, design=here.design)
    why = _lab_throughput(claim, e, plan, here)
    if why:
        return dataclasses.replace(base, block=LAB_THROUGHPUT, why=why)
    sd, basis = round_sd(claim, v, plan, here)
    if sd is None:
        return dataclasses.replace(base, open=True, block=UNKNOWN, why="time unknown: no "
                                   "result of it yet and no noise figures of this host in "
                                   "the work directory (`invoke lab.noise` there)")
    found = reach(pool, need, plan, sd)
    if isinstance(found, str):   # this sitting alone cannot answer it, but it adds a sitting
        return dataclasses.replace(base, open=True, reach=toward(pool, plan, sd), why=found,
                                   basis=basis, block=OUT_OF_REACH)
    return dataclasses.replace(base, open=True, reach=found, basis=basis)


def _lab_throughput(claim: Claim, e, plan, here: Here) -> str:
    """Why the lab VM's throughput here would answer no claim, or "" if it would: under KVM,
    a recipe whose points each have one disk runs at this host's speed, as a native run on
    its loop device does; an emulated CPU (TCG), or an array's members on one device, not."""
    if not e.recipe.in_lab_vm or claim.metric:
        return ""
    multi = any(len(member_serials(p)) > 1 for p in plan.points)
    if here.lab_kvm and not multi:
        return ""
    lacks = [] if here.lab_kvm else [("emulated CPU", "a host with KVM")]
    if multi:
        lacks.append(("disks on one device", "real disks with --device"))
    return (f"its throughput would be the lab VM's ({', '.join(a for a, _ in lacks)}), which "
            f"answers no claim: answered on {' and '.join(b for _, b in lacks)}")


def topics(claims=None) -> list[str]:
    return sorted({c.topic for c in (claims or claims_map.load_map()[0])})


def chosen(topic: str | None = None, claims=None) -> list[Claim]:
    """The map's claims (or those given), of one topic or all; a topic no claim has is refused."""
    claims = list(claims if claims is not None else claims_map.load_map()[0])
    if topic is None:
        return claims
    if topic not in topics(claims):
        raise UserError(f"--topic {topic!r}: no claim has that topic; expected one of "
                        f"{', '.join(topics(claims))}")
    return [c for c in claims if c.topic == topic]


def statuses(topic: str | None = None, here: Here = Here(), claims=None) -> list[Status]:
    return [status(c, here) for c in chosen(topic, claims)]
