"""Quick and full results pool as one experiment (evidence/sets.py, claim_verdicts: the verdict
counts how many were quick): that holds only while a profile changes the timing alone. A
profile that changed the dataset, the threads or the design would make another experiment,
whose results must not pool with the full one's (issue 59)."""

import tomllib

from tuninglab import files
from tuninglab.recipes.load import list_names

TIMING = {"warmup", "duration", "repeats", "settle", "precision", "budget"}


def _profiles(recipe: dict) -> list[tuple[str, str, dict]]:
    out = [("", name, p) for name, p in recipe.get("profiles", {}).items()]
    for variant, v in recipe.get("variants", {}).items():
        out += [(variant, name, p) for name, p in v.get("profiles", {}).items()]
    return out


def test_every_profile_changes_the_timing_alone():
    for name in list_names():
        recipe = tomllib.loads((files.RECIPES_DIR / name / "recipe.toml").read_text())
        for variant, profile, keys in _profiles(recipe):
            other = sorted(set(keys) - TIMING)
            assert not other, (f"recipes/{name}: {variant or 'main'} profile {profile} sets "
                               f"{other}: its results would be another experiment")
