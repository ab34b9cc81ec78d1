"""`invoke data.claims` (evidence/claims_text.py): the claims page's verdicts, in the terminal, in
the same words."""

import pytest

from tuninglab import cli
from tuninglab.errors import UserError
from tuninglab.evidence import claim_verdicts, claims_map, claims_text
from tuninglab.results import verdicts as words


def test_each_claim_of_a_recipe_has_a_line_per_evidence_set_in_the_sites_words():
    claims = [c for c in claims_map.load_map()[0] if c.recipe == "doublewrite"]
    out = claims_text.report("doublewrite")
    assert out.startswith("Source claims answered by recipe doublewrite")
    for c in claims:
        for v in claim_verdicts.verdicts(c):
            assert f"  {c.id}: then " in out and v.text in words.VOCABULARY
            assert f": {v.text}" in out


def test_a_recipe_without_claims_and_an_unknown_recipe_say_so():
    mapped = {c.recipe for c in claims_map.load_map()[0]}
    from tuninglab.recipes.load import list_names
    unmapped = next(n for n in list_names() if n not in mapped)
    assert claims_text.report(unmapped) == (f"No source claim maps to recipe {unmapped} "
                                            "(data/claims/).")
    with pytest.raises(UserError, match="no recipe 'nope'"):
        claims_text.report("nope")
    with pytest.raises(UserError):
        claims_text.report("../etc")


def test_the_command_prints_the_report():
    said = []
    cli.data_claims("doublewrite", say=said.append)
    assert said == [claims_text.report("doublewrite")]
