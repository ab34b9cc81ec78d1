"""The source claims' pooled verdicts in the terminal (`invoke data.claims`, and after `invoke
recipe`): the same verdicts, in the same words, as the claims page (claim_verdicts, and
results/verdicts.py's vocabulary), one line per claim and evidence set; and where each claim
stands with the precision it needs and the time answering it would take here (`invoke
claims.status`, claim_status.py).

Each line is one line whatever the results hold (visible.visible: a line break or a control
character in a result's text is written as its escape, never obeyed), and a contributed
result's class and server are named as contributed (host_class.CONTRIBUTED): a contribution's
"host.virtualization" once printed as a verdict line of the project's own."""

from tuninglab.errors import UserError
from tuninglab.evidence import (claim_jobs, claim_status, claim_verdicts, claims_answered,
                                claims_counts, claims_map, servers)
from tuninglab.evidence.citations import source_text, times_text
from tuninglab.evidence.host_class import in_words
from tuninglab.recipes.load import check_name, list_names
from tuninglab.results import document
from tuninglab.results import verdicts as words
from tuninglab.units import human_seconds
from tuninglab.visible import visible


def _line(c, v) -> str:
    """One line per claim and evidence set, in plain words: the claim, then and today, the
    verdict, the server and the machine in a DBA's words, what the pool counts and why."""
    where = (f"{servers.label(v.evidence.server)}, {in_words(v.evidence.latest)}"
             if v.evidence and v.evidence.latest else
             servers.label(v.on_server) if v.on_server else "no result yet")
    notes = "; ".join(x for x in (v.counted, v.reasons) if x)
    return visible(f"  {c.id}: then {source_text(c)}, today {times_text(v.ratio)}: {v.text}, "
                   f"on {where}" + (f" ({notes})" if notes else ""))


def lines(recipe: str | None = None) -> list[str]:
    """The claims (of one recipe, or all), each with a line per evidence set."""
    if recipe is not None:
        check_name(recipe)
        if recipe not in list_names():
            raise UserError(f"no recipe {recipe!r} (see `invoke recipe.list`)")
    claims = [c for c in claims_map.load_map()[0] if recipe is None or c.recipe == recipe]
    out = []
    for c in claims:
        out += [_line(c, v) for v in claim_verdicts.verdicts(c)]
    return out


def report(recipe: str | None = None) -> str:
    """The lines under a heading; a recipe no source claim maps says so."""
    found = lines(recipe)
    what = f"recipe {recipe}" if recipe else "every recipe"
    if not found:
        return f"No source claim maps to {what} (data/claims/)."
    return (f"Source claims answered by {what}: pooled over every comparable result "
            "(one server, one host class); the words are defined on the site's claims page.\n"
            + "\n".join(found) + "\n" + answered_text(recipe))


def answered_text(recipe: str | None = None) -> str:
    """Per server and host class, the distinct source results answered (claims_answered)."""
    claims = [c for c in claims_map.load_map()[0] if recipe is None or c.recipe == recipe]
    total = claims_answered.distinct(claims)
    return "Answered, each source result once:\n" + "\n".join(
        visible("  " + claims_answered.line(a, total)) for a in claims_answered.tally(claims))


# --- invoke claims.status ---------------------------------------------------------------------

def verdict_text(st) -> str:
    """"too noisy to tell, x0.99 [0.73, 1.33]", or the verdict with its reason."""
    v = st.verdict
    if v.ratio is not None:
        return f"{v.text}, {times_text(v.ratio)}"
    shown = v.why and v.kind != words.NOT_TESTABLE  # a claim not testable: its line says why
    return f"{v.text} ({v.why})" if shown else v.text


def here_text(st) -> str:
    """What answering it would take here, or why nothing here can."""
    if st.answered:
        return "answered"
    if st.reach:
        r = st.reach
        run = (f"{r.rounds} rounds, about {human_seconds(r.seconds)} (to ±{r.pooled_pct:.1f}% "
               f"pooled; noise from {st.basis})")
        if st.block == claim_status.OUT_OF_REACH:   # a sitting toward it (claim_reach.toward)
            return f"a sitting toward it here: {run}; {st.why}"
        return f"here: {run}"
    return st.why or "nothing to run"


def status_line(st) -> str:
    c = st.claim
    has = f", has ±{st.current_pct:.1f}%" if st.current_pct is not None else ""
    now = (f" (±{st.need_now.pct:g}% at today's x{st.verdict.ratio.ratio:.2f})"
           if st.need_now else "")
    return visible(f"  {c.id} ({c.topic}): {verdict_text(st)}; needs {st.need.text}{now}{has}; "
                   f"{here_text(st)}")


def totals(found: list) -> list[str]:
    """Answered N of M, and the time to answer the rest here."""
    answered = sum(st.answered for st in found)
    jobs = claim_jobs.jobs(found)
    known = [j for j in jobs if j.seconds]
    counted = sum(len(j.statuses) for j in known)
    unknown = sum(len(j.statuses) for j in jobs if not j.seconds)
    blocks = claim_jobs.blocked(found)
    toward = sum(st.open and st.block == claim_status.OUT_OF_REACH for st in found)
    out = [f"Answered {answered} of {len(found)} claims. Open and answerable here: "
           f"{counted + unknown}; {counted} of them in about "
           f"{human_seconds(sum(j.seconds for j in known))} ({len(known)} run"
           f"{'s' * (len(known) != 1)})" + (f", {unknown} in a time unknown" if unknown else "")
           + (f"; {toward} of them need more machines than this one, to which a run here adds "
              "a sitting" if toward else "") + "."]
    if blocks:
        out.append("Not answerable here now: " + ", ".join(f"{n} {k}" for k, n in
                                                           blocks.items()) +
                   " (the line of each says why).")
    if answered:
        n, seconds = evidence_time(found)
        out.append(f"The answers rest on {n} result{'s' * (n != 1)}, "
                   f"{human_seconds(seconds)} of runs (each result's start to its finish).")
    return out


def evidence_time(found: list) -> tuple[int, float]:
    """(how many results the answered claims' verdicts pool, their runs' time in seconds): what
    answering them has taken so far, each result counted once."""
    results = {}
    for st in found:
        if st.answered and st.verdict.evidence is not None:
            results.update((r.run_id or id(r), r) for r in st.verdict.evidence.results)
    spans = [document.parse_time(r.finished) - document.parse_time(r.started)
             for r in results.values()
             if document.parse_time(r.raw.get("started", "")) and
             document.parse_time(r.raw.get("finished", ""))]
    return len(results), sum(s.total_seconds() for s in spans)


def _whose(here) -> str:
    """The evidence the report's verdicts are on."""
    if here.server is None and here.machine is None:
        return ("the claim's first evidence set (the claims page's: this host's server and "
                "class are not known)")
    return f"the evidence a result from this host would join ({here.where})"


def status_report(topic: str | None = None, here=claim_status.Here(), claims=None) -> str:
    """Every claim (of one topic) with its status, the totals and the estimates' assumptions."""
    found = claim_status.statuses(topic, here, claims)
    head = (f"Claims{f' of topic {topic}' if topic else ''}: the verdict on {_whose(here)}, "
            "the 95% half-width it needs to be answered ("
            f"{', '.join(words.ANSWERS)} or equivalent) and has, and what answering it would "
            f"take here (profile {here.profile}).")
    rest = []
    if topic is None and claims is None:
        n = claims_counts.counts()
        rest = [f"Besides the claims, the map's other source results: {n.not_testable} no "
                f"recipe here can test and {n.not_an_effect} that are no effect (the claims "
                "page gives each one's reason)."]
    return "\n".join([visible(head), *(status_line(st) for st in found), *totals(found), *rest,
                      f"Estimates assume: {claim_status.ASSUMPTIONS}."])
