"""A topic page's rerun line (issue 60), above its first table: the command that reruns the
comparison the table puts first on that server, quick, with the time its latest quick result
took (else the plan's estimate) and the full profile's estimate; and where the lab VM's
throughput answers nothing, the form that measures it on real hardware
(functional.hardware_rerun). The Reproduce boxes further down give the rest."""

import datetime as dt
import html

from tuninglab.errors import UserError
from tuninglab.evidence import result_files
from tuninglab.evidence.functional import hardware_rerun
from tuninglab.recipes import plan as planner
from tuninglab.recipes.load import load

e = html.escape


def took(recipe: str, variant: str, profile: str) -> tuple[float, str] | None:
    """(seconds, day) the latest finished result of this profile took, or None."""
    done = [r for r in result_files.results_for(recipe, variant)
            if r.profile == profile and r.finished]
    if not done:
        return None
    r = done[-1]
    seconds = (dt.datetime.fromisoformat(r.finished) - result_files.started(r)).total_seconds()
    return seconds, r.date


def estimate(recipe: str, variant: str, profile: str) -> float | None:
    try:
        e_ = load(recipe, variant=variant).experiment(profile)
    except (UserError, KeyError, ValueError):
        return None
    return planner.build(e_).estimate(template_cached=False)


def times_text(recipe: str, variant: str) -> str:
    """"about 5 minutes; the full run about 21 minutes": how long the rerun takes, in plain
    words on a page's first screen (the profile's name is the lab's word: its --quick flag is
    in the command beside it), from its latest result where there is one, else the plan's
    estimate."""
    out = []
    for profile, said in (("quick", "{}"), ("full", "the full run {}")):
        measured = took(recipe, variant, profile)
        seconds = measured[0] if measured else estimate(recipe, variant, profile)
        if seconds is not None:
            out.append(said.format(about(seconds)))
    return "; ".join(out)


def about(seconds: float) -> str:
    """A duration in round words: "about 11 minutes", "about 2.5 hours"."""
    minutes = round(seconds / 60)
    if minutes <= 1:
        return "about a minute"
    if minutes < 90:
        return f"about {minutes} minutes"
    return f"about {round(seconds / 3600, 1):g} hours"


def rerun_html(command: str | None, recipe: str, variant: str) -> str:
    """The rerun line for a command (servers.command of the comparison's recipe variant)."""
    if not command:
        return ""
    quick = f"{command} --quick"
    times = times_text(recipe, variant)
    out = (f'<p class="tl-rerun"><strong>Rerun it:</strong> <code>{e(quick)}</code>'
           + (f" ({e(times)})" if times else "") + "</p>")
    latest = result_files.results_for(recipe, variant)
    real = hardware_rerun(latest[-1]) if latest and latest[-1].labs else ""
    if real:
        out += f'<p class="tl-rerun">Its throughput answers only {e(real)}</p>'
    return out
