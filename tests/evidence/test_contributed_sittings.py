"""Contributions cannot outvote (issue 57): 20 copies of a committed result, each under a new
random host id, with 3% jitter and the point scaled x0.6, made "reversed x0.69 [0.67, 0.71]
(20 results, 20 sittings)" for the contributed class. Every contribution of a class now counts
as one sitting, whatever host ids it carries."""

import json
import random
import shutil

import pytest

from tuninglab.evidence import claim_verdicts, result_files
from tuninglab.evidence.superseded import superseded_why

POINT = "innodb_doublewrite=OFF"


def sybil(doc: dict, rng: random.Random) -> dict:
    copy = json.loads(json.dumps(doc))
    copy["host"]["id"] = f"{rng.getrandbits(64):016x}"
    copy["contribution"] = {"submitted": "2026-11-30T00:00:00Z", "tool": "data.submit"}
    for point in copy["points"]:
        scale = 0.6 if point["id"] == POINT else 1.0
        for run in point["runs"]:
            run["summary"]["tps"] = run["summary"]["tps"] * scale * rng.uniform(0.97, 1.03)
    return copy


@pytest.fixture
def data(committed_data, tmp_path, monkeypatch):
    target = tmp_path / "data"
    (target / "doublewrite").mkdir(parents=True)
    shutil.copytree(committed_data / "calibrations", target / "calibrations")  # never a link
    source = next(p for p in sorted((committed_data / "doublewrite").glob("*.json"))
                  if not json.loads(p.read_text()).get("variant")
                  and superseded_why(json.loads(p.read_text())) is None)
    (target / "doublewrite" / source.name).write_bytes(source.read_bytes())
    rng = random.Random(57)
    for i in range(20):
        copy = sybil(json.loads(source.read_text()), rng)
        (target / "doublewrite" / f"{source.stem}-sybil{i:02d}.json").write_text(json.dumps(copy))
    monkeypatch.setattr(result_files, "DATA_DIR", target)
    claim_verdicts._records.cache_clear()
    yield target
    claim_verdicts._records.cache_clear()


def test_twenty_invented_hosts_are_one_sitting(data):
    found = {c.evidence.host_class.contributed: c
             for c in claim_verdicts.comparisons("doublewrite", "", "OFF")}
    contributed, own = found[True], found[False]
    assert len(contributed.evidence.results) == 20 and contributed.evidence.sittings == 1
    assert contributed.pooled is not None, (contributed.kind, contributed.why)
    assert contributed.pooled.k == 20 and contributed.pooled.sittings == 1
    assert own.pooled.sittings == 1 and "contributed" not in own.evidence.host_class.key
