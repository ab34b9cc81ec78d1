"""How many distinct source results are answered per server and host class, from how many
sittings (evidence/claims_answered.py): the claims page's summary and data.claims' last lines."""

import pytest

from tuninglab.evidence import (claim_verdicts, claims_answered, claims_map, claims_text,
                                result_files)
from tuninglab.site import verdict_tables
from tuninglab.results import verdicts as words


@pytest.fixture
def committed(committed_data, monkeypatch):
    monkeypatch.setattr(result_files, "DATA_DIR", committed_data)
    return committed_data


def test_two_claims_of_one_source_result_count_once(committed):
    claims = [c for c in claims_map.load_map()[0] if c.recipe == "direct-io"]
    assert len(claims) == 2 and claims_answered.distinct(claims) == 1
    for a in claims_answered.tally(claims):
        assert a.answered <= a.measured <= 1


def test_an_answer_counts_for_its_own_server_and_class_alone(committed):
    claims = list(claims_map.load_map()[0])
    tally = {(a.server, a.host_class): a for a in claims_answered.tally(claims)}
    expected: dict[tuple, set] = {}
    for c in claims:
        for v in claim_verdicts.verdicts(c):
            if v.evidence is not None and v.kind in words.ANSWERS:
                key = (v.evidence.server, v.evidence.host_class.name)
                expected.setdefault(key, set()).add(claims_answered.source_result(c))
    assert expected, "the committed data answers some claim"
    for key, a in tally.items():
        assert a.answered == len(expected.get(key, ()))
        assert (a.sittings > 0) == (a.answered > 0) and a.results >= a.sittings


def test_data_claims_ends_with_the_counts(committed):
    out = claims_text.report()
    tail = out[out.index("Answered, each source result once:"):].splitlines()[1:]
    total = claims_answered.distinct(claims_map.load_map()[0])
    assert tail and all(f" of {total} source results answered (" in line for line in tail)
    assert tail[0].startswith("  MariaDB 10.11 on ")


def test_the_claims_page_has_the_table(committed):
    claims = list(claims_map.load_map()[0])
    html = verdict_tables.answered_table(claims)
    assert html.startswith('<h2 id="answered">Answered, per server and host class</h2>')
    assert html.count("<tr><td>") == len(claims_answered.tally(claims))
