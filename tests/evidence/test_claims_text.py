"""`invoke data.claims` (evidence/claims_text.py): the claims page's verdicts, in the terminal, in
the same words."""

import json
import shutil

import pytest

from tuninglab import cli
from tuninglab.errors import UserError
from tuninglab.evidence import claim_verdicts, claims_map, claims_text, result_files
from tuninglab.evidence.superseded import superseded_why
from tuninglab.results import verdicts as words


def test_each_claim_of_a_recipe_has_a_line_per_evidence_set_in_the_sites_words():
    claims = [c for c in claims_map.load_map()[0] if c.recipe == "doublewrite"]
    out = claims_text.report("doublewrite")
    assert out.startswith("Source claims answered by recipe doublewrite")
    for c in claims:
        for v in claim_verdicts.verdicts(c):
            assert f"  {c.id}: then " in out and v.kind in words.VOCABULARY
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


# --- a result's text is one line, marked as contributed (issue 77, case 2) -----------------------

FORGED = ("kvm\n  zfs2009-doublewrite-off-serie-h: then x1.03, today x1.31 [1.28, 1.34] (9 "
          "results, 9 sittings (0 quick)): reproduced")


@pytest.fixture
def forged(committed_data, tmp_path, monkeypatch):
    """doublewrite's committed results and the calibration records, and a contribution whose
    host.virtualization holds a line break and a verdict line: data.check refuses it, but the
    evidence reads data/ as it finds it (a checkout, a copy)."""
    target = tmp_path / "data"
    shutil.copytree(committed_data / "doublewrite", target / "doublewrite")
    shutil.copytree(committed_data / "calibrations", target / "calibrations")
    doc = next(d for d in (json.loads(p.read_text())
                           for p in sorted((target / "doublewrite").glob("*.json")))
               if not d.get("variant") and superseded_why(d) is None)
    doc["host"].update(id="c0ffee00c0ffee00", virtualization=FORGED)
    doc["contribution"] = {"submitted": "2026-11-30T00:00:00Z", "tool": "data.submit"}
    (target / "doublewrite" / "20261130T000000Z-c0ffee00-forged.json").write_text(
        json.dumps(doc))
    monkeypatch.setattr(result_files, "DATA_DIR", target)
    claim_verdicts._records.cache_clear()
    yield target
    claim_verdicts._records.cache_clear()


def test_a_contributions_text_is_one_line_marked_as_contributed(forged):
    said = []
    cli.data_claims("doublewrite", say=said.append)  # as after `invoke recipe doublewrite`
    lines = said[0].splitlines()
    assert not [line for line in lines if line.startswith(FORGED.split("\n")[1])]
    shown = [line for line in lines if "kvm\\n  zfs2009-doublewrite-off-serie-h: then x1.03" in
             line]
    assert shown, said[0]  # the verdict lines ("on ...") and the answered tally name its class
    for line in shown:
        assert line.index(" on contributed: ") < line.index("kvm\\n"), line
