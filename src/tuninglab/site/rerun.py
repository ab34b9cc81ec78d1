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
from tuninglab.units import human_seconds

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
    """"quick: 4m37s measured on 2026-12-03; full: about 21m" (what is known of each)."""
    out = []
    for profile in ("quick", "full"):
        measured = took(recipe, variant, profile)
        if measured:
            out.append(f"{profile}: {human_seconds(measured[0])}, measured on {measured[1]}")
        elif (seconds := estimate(recipe, variant, profile)) is not None:
            out.append(f"{profile}: about {human_seconds(seconds)}")
    return "; ".join(out)


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
