"""`invoke claims.rerun`: run the recipes of the open claims (evidence/claim_status.py: too noisy,
not measured, only older evidence, a regime a longer profile may reach) that this host can
answer, in order of expected answers per hour, each aimed at its claims' precision, within a
campaign budget; and what `invoke claims.status` and `invoke recipe --budget` need to know of this
host (Here) and to aim the stop rule at the claims (aims).

Each recipe variant runs through the normal run loop (engine/run/runner.py) with its budget (the
campaign's remaining time, capped per run) and the stop rule aimed at each of its claims
(Options.aims: the claim's comparison within the half-width claim_status computed for it),
so each result is written into data/ as it finishes, and an interrupted run (Ctrl-C, a crash)
leaves its finished runs in the work directory's progress file. Running the campaign again
recomputes every verdict from data/, skips what is answered now, and runs an interrupted
variant first, which the runner resumes. The budget counts per invocation; a resumed result's
stop rule counts its own budget from the result's start, so one resumed much later stops
adding rounds once its planned ones are done.
"""

import dataclasses
import time
from pathlib import Path

from tuninglab import files, units
from tuninglab.engine.lab import qemu
from tuninglab.engine.measure import noise
from tuninglab.engine.measure.provenance import host_id
from tuninglab.engine.run import resume, runner, stop_rule
from tuninglab.engine.server import mysqld, roots
from tuninglab.errors import Interrupted, UserError
from tuninglab.evidence import claim_jobs, claim_status, result_files
from tuninglab.evidence.claim_jobs import Job
from tuninglab.evidence.claim_status import Here
from tuninglab.evidence.host_class import host_class, server_name
from tuninglab.evidence.sets import machine_record
from tuninglab.recipes import plan
from tuninglab.recipes.load import load
from tuninglab.recipes.model import label as recipe_label
from tuninglab.units import human_seconds

# One recipe variant takes at most this much of a campaign, and its budget is its estimate
# times HEADROOM (the estimate comes from a few earlier results' noise: rough).
PER_RUN_CAP_S = 2 * 3600
HEADROOM = 1.5
MAX_BUDGET_S = 7 * 86400
# Building a lab VM image on first use (engine/lab/image.py), measured on this project's 2-core
# machines: about 90 s, and about 4 minutes more where DKMS compiles OpenZFS into it.
IMAGE_BUILD_S = 90.0
ZFS_BUILD_S = 240.0


def here(workdir: Path | None = None, profile: str = "full",
         recipes_dir: Path = files.RECIPES_DIR, mysqld_path: str | None = None,
         server: str | None = None) -> Here:
    """This host as claim_status needs it: its id, its noise figures' per-round sd, the server
    a run here tests (--mysqld, else the installed one) and its machine's host class (from what
    it measured before: evidence.machine_of), and a duet's on it, the evidence `invoke recipe
    --design duet` adds to (recipe_aims)."""
    wd = Path(workdir or files.default_workdir())
    me = host_id()
    record = machine_record(me)   # data/ read once for both classes
    whole, duet = (None, None) if record is None else \
        (host_class(record), host_class(record, duet=True))
    return Here(me, profile, _noise_sd(noise.load(wd, me)), recipes_dir,
                _server(mysqld_path, server), whole, _lab_kvm(wd), duet_machine=duet)


def _lab_kvm(wd: Path) -> bool:
    """Whether the lab VM runs under KVM here, as its probe boots found: a usable /dev/kvm is
    not enough (a nested one took a minute to the kernel's first line on one of this
    project's machines, and the probe chose TCG), so until a lab VM recipe has probed it, no."""
    return qemu.known_accelerator(wd) == "kvm"


def _server(path: str | None, server: str | None = None) -> str | None:
    """The server's flavour and major version as evidence sets name it ("mariadb 10.11");
    None where there is none to run (a run would say so). A server by name (--server) is
    named from its spec: its root need not be built yet."""
    if server in roots.SPECS:
        spec = roots.SPECS[server]
        return server_name(spec.flavor, ".".join(map(str, spec.version)))
    try:
        binary = mysqld.find(path)
    except UserError:
        return None
    return server_name(binary.flavor, ".".join(map(str, binary.version)))


def _noise_sd(figures: dict | None):
    """The per-round sd of a log ratio from `invoke lab.noise`'s figures (noise.round_sd),
    None where they lack what a plan's design needs."""
    if not figures:
        return None

    def sd(plan) -> float | None:
        try:
            return noise.round_sd(figures, plan)
        except (KeyError, TypeError, ZeroDivisionError):
            return None
    return sd


def parse_budget(text) -> float:
    """--budget: a duration such as 3h or 90m."""
    try:
        seconds = units.seconds(text)
    except ValueError:
        raise UserError(f"--budget: expected a duration like 3h, 90m or 2h30m, got "
                        f"{text!r}") from None
    if not 60 <= seconds <= MAX_BUDGET_S:
        raise UserError(f"--budget: expected between 1m and {MAX_BUDGET_S // 86400} days, "
                        f"got {text!r}")
    return seconds


def aim(st) -> stop_rule.Aim | None:
    """A claim's aim: the half-width its reach asks of the new result, else its need (at
    today's ratio when it is too noisy: the best a run can do for it); None for a claim no run
    here answers. Both are under 100% (the result's plan records the tightest)."""
    if st.reach:
        pct = st.reach.result_pct
    elif st.aim.reachable and st.block in ("", claim_status.UNKNOWN, claim_status.OUT_OF_REACH):
        pct = st.aim.pct
    else:
        return None
    c = st.claim
    return stop_rule.Aim(c.point, c.metric, pct, c.id)


def aims(found) -> tuple:
    """(recipe label, (Aim, ...)) pairs of the claims given (Status), the run's Options.aims."""
    out: dict[str, tuple] = {}
    for st in found:
        one = aim(st)
        if one is not None:
            label = recipe_label(st.claim.recipe, st.claim.variant)
            out[label] = out.get(label, ()) + (one,)
    return tuple(out.items())


def recipe_aims(name: str, here_: Here, design: str | None = None) -> tuple:
    """The aims of every claim a recipe answers (`invoke recipe --budget` without
    --precision), on the evidence the run's design adds to (design: --design, None for the
    recipe's own)."""
    here_ = here_.as_duet() if design == "duet" else \
        dataclasses.replace(here_, design=design, duet_machine=None)
    claims = [c for c in claim_status.chosen() if c.recipe == name]
    return aims([claim_status.status(c, here_) for c in claims])


# --- the campaign ------------------------------------------------------------------------------

def run_budget(job: Job, left: float) -> float:
    """A run's budget: its estimate with headroom, within what is left and the cap."""
    want = HEADROOM * job.seconds if job.seconds else PER_RUN_CAP_S
    return min(left, PER_RUN_CAP_S, want)


def _progress(wd: Path, job: Job, profile: str) -> Path:
    return resume.progress_path(wd, job.recipe, job.variant, profile)


def ordered(jobs: list[Job], wd: Path, profile: str) -> list[Job]:
    """Interrupted runs first (the runner resumes them), then by expected answers per hour."""
    return sorted(jobs, key=lambda j: not _progress(wd, j, profile).is_file())


def job_line(n: int, job: Job, budget: float, wd: Path, profile: str,
             builds: dict | None = None) -> str:
    mine = dict(aims(job.statuses)).get(job.label, ())
    claims = ", ".join(f"{a.claim} ±{a.pct:g}%" for a in mine)
    rounds = max((s.reach.rounds for s in job.statuses if s.reach), default=None)
    time = (f"{rounds} rounds, about {human_seconds(job.seconds)}, "
            f"{job.per_hour:.2f} answers/h" if job.seconds else "time unknown")
    build = (builds or {}).get(job.label)
    built = (f", and about {human_seconds(build[1])} first to build the lab VM image "
             f"{', '.join(build[0])}" if build else "")
    resumed = "; resumes an interrupted run" if _progress(wd, job, profile).is_file() else ""
    return (f"  {n}. {job.label}: {len(job.statuses)} claim"
            f"{'s' * (len(job.statuses) != 1)}, {time}{built}; budget "
            f"{human_seconds(budget)}{resumed}\n     aims: {claims}")


def image_builds(jobs: list[Job], wd: Path, profile: str,
                 recipes_dir: Path = files.RECIPES_DIR) -> dict:
    """{job label: (the lab VM images its runs boot that are not built yet, about how long
    building them takes)} for the jobs in the lab VM: a first campaign on a machine builds
    them before its first run, time the runs' estimates do not count. Each image is counted
    once, for the first job that needs it."""
    from tuninglab.engine.lab import image  # only where a job runs in the lab VM
    out, counted = {}, set()
    for job in jobs:
        recipe = load(job.recipe, recipes_dir=recipes_dir, variant=job.variant)
        if not recipe.in_lab_vm:
            continue
        flavours = {p.lab["image"] for p in plan.build(recipe.experiment(profile)).points}
        missing = sorted(f for f in flavours - counted if not image.cached(wd, f))
        counted |= flavours
        if missing:
            out[job.label] = (missing, sum(image_build_s(f) for f in missing))
    return out


def image_build_s(flavour: str) -> float:
    """About how long the lab VM image of a flavour takes to build here: debootstrap and the
    kernel, and for "-zfs" DKMS compiling OpenZFS (measured on 2 cores: 4 minutes)."""
    return IMAGE_BUILD_S + (ZFS_BUILD_S if flavour.endswith("-zfs") else 0.0)


def schedule(jobs: list[Job], budget: float, builds: dict | None = None) -> tuple[list, list]:
    """([(job, its budget)] that fit the campaign's budget in order, [jobs left out]); a job's
    image build (image_builds) comes out of the budget before its run."""
    left, chosen, out = budget, [], []
    for job in jobs:
        build = (builds or {}).get(job.label, ((), 0.0))[1]
        need = (job.seconds or 0.0) + build
        if need > left or left - build < 60:
            out.append(job)
            continue
        share = run_budget(job, left - build)
        chosen.append((job, share))
        left -= share + build
    return chosen, out


def rerun(topic=None, budget="3h", profile="full", dry_run=False, workdir=None, say=print,
          claims=None, recipes_dir: Path = files.RECIPES_DIR, server=None) -> list:
    """The campaign (module docstring); the claims it answered, as (Status before, after).
    server: the server to run by name (roots.py), None for the host's own."""
    seconds = parse_budget(budget)
    wd = Path(workdir or files.default_workdir())
    for line in result_files.unread():  # a link, a FIFO in data/: not counted
        say(f"warning: {line}")
    me = here(wd, profile, recipes_dir, server=server)
    before = {st.claim.id: st for st in claim_status.statuses(topic, me, claims)}
    jobs = ordered(claim_jobs.jobs(list(before.values())), wd, profile)
    builds = image_builds(jobs, wd, profile, recipes_dir)
    chosen, left_out = schedule(jobs, seconds, builds)
    say(f"Campaign (profile {profile}, budget {human_seconds(seconds)}, host {me.sitting[:8]}, "
        f"adding to {me.where}): {len(chosen)} run{'s' * (len(chosen) != 1)} for the open claims, interrupted ones "
        "first, then by expected answers per hour")
    for n, (job, share) in enumerate(chosen, 1):
        say(job_line(n, job, share, wd, profile, builds))
    for job in left_out:
        say(f"  left out: {job.label} ({_left_out_why(job)})")
    say(_not_run(before.values()))
    say(f"Estimates assume: {claim_status.ASSUMPTIONS}.")
    if dry_run:
        say("dry run: nothing was started")
        return []
    return _run(chosen, seconds, before, me, wd, profile, say, server)


def _left_out_why(job) -> str:
    """Why a run did not fit: its time, or, unknown, that the known ones took the budget."""
    if job.seconds is None:
        return "time unknown: it runs after those whose time is known, and they take the budget"
    return f"about {human_seconds(job.seconds)}, more than the budget has left"


def _not_run(found) -> str:
    found = list(found)
    blocks = claim_jobs.blocked(found)
    counted = ", ".join(f"{n} {b}" for b, n in blocks.items()) or "none"
    return (f"Answered already: {sum(st.answered for st in found)}. Not run, no run here "
            f"answers them: {counted} (`invoke claims.status` says why for each).")


def _run(chosen, seconds, before, me, wd, profile, say, server=None) -> list:
    """Each chosen run in turn, each claim's verdict recomputed after it; the answered."""
    answered, clock = [], _Clock(seconds)
    try:
        for n, (job, share) in enumerate(chosen, 1):
            share = min(share, clock.left())
            if share < 60:
                say(f"[{n}/{len(chosen)}] {job.label}: the campaign's budget is spent")
                break
            say(f"\n[{n}/{len(chosen)}] {job.label}: budget {human_seconds(share)}")
            _one(job, share, me, wd, profile, say, server)
            answered += _changes(job, before, me, say)
    except Interrupted:
        _summary(answered, say)
        raise
    _summary(answered, say)
    return answered


def _one(job: Job, share: float, me: Here, wd: Path, profile: str, say, server=None) -> None:
    opts = runner.Options(profile=profile, workdir=wd, budget=f"{int(share)}s", server=server,
                          data_dir=Path(result_files.DATA_DIR), recipes_dir=me.recipes_dir,
                          variant=job.variant, aims=aims(job.statuses))
    try:
        runner.run_all(job.recipe, opts, job.variant, say)
    except Interrupted:
        raise
    except UserError as exc:  # this run cannot be done here: the others may
        say(f"skipped {job.label}: {exc}")


def _changes(job: Job, before: dict, me: Here, say) -> list:
    """Each of the run's claims, before -> after; the ones answered now."""
    out = []
    for st in job.statuses:
        now = claim_status.status(st.claim, me)
        old = before[st.claim.id]
        say(f"  {st.claim.id}: {old.verdict.kind} -> {now.verdict.kind}"
            + (f" (±{now.current_pct:.1f}%, needs ±{now.aim.pct:g}%"
               + " at today's ratio" * (now.need_now is not None) + ")"
               if now.current_pct is not None else ""))
        if now.answered:
            out.append((old, now))
    return out


def _summary(answered: list, say) -> None:
    say(f"\nAnswered {len(answered)} claim{'s' * (len(answered) != 1)}" +
        (":" if answered else "."))
    for old, now in answered:
        say(f"  {now.claim.id}: {old.verdict.kind} -> {now.verdict.kind}")


class _Clock:
    """The campaign's time left."""

    def __init__(self, budget: float):
        self._end = time.monotonic() + budget

    def left(self) -> float:
        return self._end - time.monotonic()
