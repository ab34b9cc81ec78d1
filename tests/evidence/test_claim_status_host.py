"""Whose evidence `invoke claims.status` and `claims.rerun` weigh: the set a new result from this
host would join (its server and its machine's host class), not always the claims page's first
set (evidence/claim_status.py: Here.joins, verdict_here; evidence/sets.py: machine_of;
evidence/host_class.py: runs_on)."""

import dataclasses
import json

import pytest

from tuninglab.evidence import sets as evidence
from tuninglab.evidence import claim_status as cs
from tuninglab.evidence import claim_reach as cr
from tuninglab.evidence import claim_verdicts, claims_map, claims_text, result_files
from tuninglab.evidence.host_class import HostClass, host_class, runs_on
from tuninglab.results import calibrations, pooling
from tuninglab.results import verdicts as words
from tuninglab.results.result import Result

NATIVE = HostClass("X, 2 cores", "X, 2 cores", "X", False, False)
LAB_ON_NATIVE = HostClass("lab VM (TCG) on X, 2 cores", "lab VM (TCG) on X, 2 cores", "lab", False,
                          True)
OTHER = HostClass("Y, 64 cores", "Y, 64 cores", "Y", False, False)
CONTRIBUTED = HostClass("contributed|contributed: X, 2 cores", "contributed: X, 2 cores", "X",
                        True, False)


@pytest.fixture
def committed(committed_data, monkeypatch):
    monkeypatch.setattr(result_files, "DATA_DIR", committed_data)
    return committed_data


def project_record(data) -> dict:
    """The latest A/A calibration record of the machine that measured the most results (a new
    machine's record comes before its results)."""
    records = [json.loads(p.read_text()) for p in sorted((data / "calibrations").glob("*.json"))]
    counts = {}
    for path in data.glob("*/*.json"):
        if path.parent.name not in ("calibrations", "claims", "historical"):
            host = json.loads(path.read_text()).get("host", {}).get("id")
            counts[host] = counts.get(host, 0) + 1
    return max(reversed(records), key=lambda r: counts.get(Result.of(r).host_id, 0))


def test_a_class_runs_on_itself_and_its_lab_vm_on_it_never_on_another():
    assert runs_on(NATIVE, NATIVE) and runs_on(LAB_ON_NATIVE, NATIVE)
    assert not runs_on(OTHER, NATIVE) and not runs_on(LAB_ON_NATIVE, OTHER)
    assert not runs_on(CONTRIBUTED, NATIVE) and not runs_on(NATIVE, CONTRIBUTED)


def test_a_machine_is_known_by_what_it_measured(committed):
    record = project_record(committed)
    me = Result.of(record).host_id
    assert evidence.machine_of(me) == host_class(record)
    assert evidence.machine_of("0123456789abcdef") is None


def test_a_machine_without_a_record_is_known_by_its_results(committed):
    record = project_record(committed)
    me = Result.of(record).host_id
    for path in (committed / "calibrations").glob("*.json"):
        path.rename(path.with_suffix(".moved"))
    try:
        found = evidence.machine_of(me)
    finally:
        for path in (committed / "calibrations").glob("*.moved"):
            path.rename(path.with_suffix(".json"))
    assert found is not None and found.key == host_class(record).key


def test_the_project_machine_weighs_the_claims_page_verdicts(committed):
    record = project_record(committed)
    here = cs.Here(sitting="f" * 16, server=evidence.server_of(record),
                   machine=host_class(record))
    for c in claims_map.load_map()[0]:
        # The page's first verdict on the machine's own server and class (a claim another
        # server or class has measured and this one has not is "not measured yet" here).
        mine = [v for v in claim_verdicts.verdicts(c)
                if v.evidence is None or (v.evidence.server == here.server and
                                          runs_on(v.evidence.host_class, here.machine))]
        expected = mine[0].kind if mine else words.NOT_MEASURED
        assert cs.verdict_here(c, here).kind == expected, c.id


def test_another_class_starts_its_own_evidence(committed):
    here = cs.Here(sitting="f" * 16, server="mariadb 10.11", machine=OTHER)
    measured = [c for c in claims_map.load_map()[0] if claim_verdicts.verdicts(c)[0].evidence]
    assert measured
    for c in measured:
        v = cs.verdict_here(c, here)
        assert v.kind == words.NOT_MEASURED and v.evidence is None
        assert v.why.startswith("no result on mariadb 10.11, Y, 64 cores yet: run invoke recipe "
                                f"{c.recipe}")
    out = claims_text.status_report(here=here)
    assert out.startswith("Claims: the verdict on the evidence a result from this host would "
                          "join (mariadb 10.11, Y, 64 cores), the 95% half-width")


def test_on_another_class_a_claim_opens_from_this_hosts_noise(committed, monkeypatch):
    """No results of its own yet: its time comes from this host's noise figures, and the pool is
    this host's result alone with its class's calibrations; without any, the priors' spread
    leaves it out of reach from one sitting, and the reason names lab.noise; with many, one
    machine still cannot tell how far the effect differs between machines: its run adds a
    sitting towards the need."""
    here = cs.Here(sitting="f" * 16, server="mariadb 10.11", machine=OTHER,
                   noise_sd=lambda plan: 0.05)
    c = next(c for c in claims_map.load_map()[0] if c.id == "zaitsev-read-ahead-off-large")
    alone = cs.status(c, here)
    assert alone.block == cs.OUT_OF_REACH and "`invoke lab.noise` on each" in alone.why
    quiet = tuple(pooling.Estimate(0.002 * (-1) ** i, 0.004, 30, f"aa{i // 2}", i % 2 == 0)
                  for i in range(24))  # a switchback's and a restart's A/A on 12 machines
    monkeypatch.setattr(claim_verdicts, "calibration", lambda s: quiet)
    st = cs.status(c, here)
    assert st.verdict.kind == words.NOT_MEASURED and st.open
    assert st.reach is not None and st.basis == "this host's lab.noise figures"
    assert st.block == cs.OUT_OF_REACH and "`invoke lab.noise` on each" not in st.why
    assert st.reach.pooled_pct > st.aim.pct * cr.AIM_INSIDE
    unknown = cs.status(c, dataclasses.replace(here, noise_sd=None))
    assert unknown.open and unknown.block == cs.UNKNOWN


def test_a_lab_vm_result_answers_for_the_server_it_ran_alone(committed):
    """The lab VM runs its guest's own MariaDB 10.11: its result is that server's answer, never
    another server's (issue 59: one lab VM result was counted in every server's column), and on
    another server a lab VM claim is not testable, with the reason (a server no result in data/
    ran on, so every native set is "not measured yet" for it)."""
    record = project_record(committed)
    here = cs.Here(sitting="f" * 16, server="percona 8.0", machine=host_class(record))
    for c in claims_map.load_map()[0]:
        first = claim_verdicts.verdicts(c)[0]
        if first.evidence is None:
            continue
        got = cs.verdict_here(c, here)
        if first.evidence.host_class.lab:
            assert got.kind == words.NOT_TESTABLE, c.id
            assert got.why.endswith("the lab VM runs its guest's own MariaDB 10.11"), c.id
        else:
            assert got.kind == words.NOT_MEASURED, c.id
    mine = dataclasses.replace(here, server="mariadb 10.11")
    lab = next(c for c in claims_map.load_map()[0]
               if claim_verdicts.verdicts(c)[0].evidence is not None
               and claim_verdicts.verdicts(c)[0].evidence.host_class.lab)
    assert cs.verdict_here(lab, mine).evidence is not None


def test_without_a_known_class_the_report_says_whose_verdicts_it_gives(committed):
    out = claims_text.status_report(here=cs.Here(sitting="f" * 16))
    assert out.startswith("Claims: the verdict on the claim's first evidence set (the claims "
                          "page's: this host's server and class are not known), the 95%")


def test_on_another_server_the_command_names_it(committed):
    here = cs.Here(sitting="f" * 16, server="mysql 9.7", machine=OTHER)
    c = next(c for c in claims_map.load_map()[0] if c.recipe == "doublewrite")
    v = cs.verdict_here(c, here)
    assert v.kind == words.NOT_MEASURED
    assert v.why.endswith("run invoke recipe doublewrite --server mysql-9.7 to measure it")


def test_a_first_result_pools_with_its_classs_calibrations(committed):
    """A claim not measured yet on a class whose machines have A/A calibrations: the pool a
    first result starts holds every one of them, whatever server it ran; a lab VM recipe's,
    whose class is known once it ran, none."""
    records = [json.loads(p.read_text()) for p in (committed / "calibrations").glob("*.json")]
    record = records[0]
    mine = [r for r in records if host_class(r).key == host_class(record).key]
    here = cs.Here(sitting="f" * 16, server="mysql 9.7", machine=host_class(record))
    unmeasured = claim_verdicts.Verdict(words.NOT_MEASURED, words.NOT_MEASURED, None, None)
    c = claims_map.claim("scan2008-deadline-vs-noop")
    pool = cs.pool_of(c, unmeasured, here)
    assert {e.sitting for e in pool.calibration} == {Result.of(r).host_id for r in mine}
    assert len(pool.calibration) == sum(len(calibrations.aa_estimates(r)) for r in mine)
    lab = claims_map.claim("zaitsev-write-cache-off-large")
    assert cs.pool_of(lab, unmeasured, here).calibration == ()
