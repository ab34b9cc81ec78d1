"""The source claims' pooled verdicts in the terminal (`invoke data.claims`, and after `invoke
recipe`): the same verdicts, in the same words, as the claims page (claim_verdicts, and
results/verdicts.py's vocabulary), one line per claim and evidence set."""

from tuninglab.errors import UserError
from tuninglab.recipes.load import check_name, list_names
from tuninglab.site import claim_verdicts, claims_map
from tuninglab.site.verdict_tables import source_text, times_text


def _line(c, v) -> str:
    where = (f"{v.evidence.host_class.name}, {v.evidence.server}" if v.evidence
             else "no result yet")
    today = times_text(v.ratio)
    counted = f" ({v.counted})" if v.counted else ""
    why = f": {v.why}" if v.why else ""
    return (f"  {c.id}: then {source_text(c)}, today {today}{counted}: {v.text}{why}\n"
            f"      on {where}")


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
            + "\n".join(found))
