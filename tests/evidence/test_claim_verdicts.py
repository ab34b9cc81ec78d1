"""Evidence sets and the pooled, sized verdicts of source claims (evidence/host_class.py,
evidence/sets.py, evidence/claim_verdicts.py): one verdict per host class and server from every
comparable result, never the latest file alone."""

import copy
import json
import re
import shutil

import pytest

from helpers import DATA
from tuninglab.evidence import sets as evidence
from tuninglab.evidence import claim_verdicts as cv
from tuninglab.evidence import claims_map, result_files
from tuninglab.evidence.claims_map import Claim
from tuninglab.evidence.host_class import host_class, server_of
from tuninglab.results import verdicts as words
from tuninglab.results.result import Result
from tuninglab.site import home_table, verdict_tables

# The main experiment's results with the memory cap: current.
DOUBLEWRITE = [DATA / "doublewrite" / name for name in (
    "20261123T083311Z-a1011588-quick-5cbc0881.json", "20261124T044854Z-48806fd0-quick-a005932b.json")]
UNCAPPED = DATA / "doublewrite" / "20261121T233847Z-209a4cf4-quick.json"


def load(path) -> dict:
    return json.loads(path.read_text())


def claim(source_ratio=1.035, point="OFF", recipe="doublewrite", variant="", **changes) -> Claim:
    fields = dict(id="c", source="s", table="t.csv", row="r", column="", source_baseline="",
                  source_ratio=source_ratio, recipe=recipe, variant=variant, point=point,
                  invert=False, metric="", headline=False, why="", topic=recipe)
    fields.update(changes)
    return Claim(**fields)


@pytest.fixture
def data_dir(tmp_path, monkeypatch):
    """A data directory holding the committed doublewrite results (main experiment)."""
    (tmp_path / "doublewrite").mkdir()
    for path in [*DOUBLEWRITE, UNCAPPED]:
        shutil.copy(path, tmp_path / "doublewrite" / path.name)
    monkeypatch.setattr(result_files, "DATA_DIR", tmp_path)
    return tmp_path


def add(data_dir, doc: dict, host_id: str, started: str) -> dict:
    """Another result file: doc run again on machine host_id."""
    doc = copy.deepcopy(doc)
    doc["host"]["id"], doc["started"] = host_id, started
    (data_dir / "doublewrite" / f"{started[:10]}-{host_id[:8]}.json").write_text(json.dumps(doc))
    return doc


# --- host classes -----------------------------------------------------------------------------

def test_the_projects_vms_of_one_kind_are_one_class_whatever_their_host_id():
    docs = [load(p) for p in DOUBLEWRITE + [UNCAPPED]]
    assert len({Result.of(d).host_id for d in docs}) == 3
    assert len({host_class(d) for d in docs}) == 1
    cls = host_class(docs[0])
    assert cls.name == ("AMD EPYC, 2 cores, 24 GiB, VM (docker), virtio disk, "
                        "flushes 300-30,000/s") and not cls.contributed and not cls.lab
    assert server_of(docs[0]) == "mariadb 10.11"


def test_other_hardware_a_contribution_and_the_lab_vm_are_other_classes():
    doc = load(DOUBLEWRITE[0])
    base = host_class(doc)
    other = copy.deepcopy(doc)
    other["host"]["cpu_model"] = "Intel Xeon"
    given = copy.deepcopy(doc)
    given["contribution"] = {"submitted": "2026-11-24T00:00:00+00:00"}
    fast = copy.deepcopy(doc)
    fast["device_baseline"]["fsync_per_s"] = 90_000.0
    keys = {host_class(d).key for d in (doc, other, given, fast)}
    assert len(keys) == 4 and base.key in keys
    assert host_class(given).name.startswith("contributed: ")
    assert host_class(fast).name.endswith("flushes over 30,000/s")
    lab = load(next((DATA / "kernels").glob("*.json")))
    assert host_class(lab).lab and host_class(lab).name.startswith("lab VM (TCG)")


# --- superseded results -----------------------------------------------------------------------

def test_a_result_without_the_memory_cap_the_recipe_now_sets_is_superseded():
    why = evidence.superseded_why(load(UNCAPPED))
    assert why.startswith("it ran without the memory cap")
    assert evidence.superseded_why(load(DOUBLEWRITE[0])) is None


def test_a_result_of_a_changed_experiment_is_superseded():
    doc = load(DOUBLEWRITE[0])
    doc["recipe"]["text"] = doc["recipe"]["text"].replace("threads = 4", "threads = 8")
    assert "threads = 8" in doc["recipe"]["text"]
    assert "experiment changed" in evidence.superseded_why(doc)
    doc = load(DOUBLEWRITE[0])
    doc["recipe"]["text"] = doc["recipe"]["text"].replace('title = "', 'title = "New words: ')
    assert evidence.superseded_why(doc) is None  # words are not the experiment


def test_a_set_holds_the_current_results_and_keeps_the_superseded_apart(data_dir):
    (s,) = evidence.evidence_sets("doublewrite")
    assert len(s.results) == 2 and s.sittings == 2
    assert [Result.of(d).host_id[:8] for d, _ in s.superseded] == ["209a4cf4"]


# --- pooled verdicts ----------------------------------------------------------------------------

def test_one_more_result_of_the_class_updates_its_pooled_verdict(data_dir):
    (before,) = cv.verdicts(claim())
    assert (before.pooled.k, before.pooled.sittings) == (2, 2)
    add(data_dir, load(DOUBLEWRITE[0]), "ffffffffffffffff", "2026-11-25T00:00:00+00:00")
    (after,) = cv.verdicts(claim())
    assert (after.pooled.k, after.pooled.sittings) == (3, 3)
    assert after.counted == "3 results from 3 machines, 3 quick"  # the fixtures are quick runs
    assert (after.ratio.ci_low, after.ratio.ci_high) != (before.ratio.ci_low,
                                                          before.ratio.ci_high)
    assert after.ratio.ci_high - after.ratio.ci_low < before.ratio.ci_high - before.ratio.ci_low


def test_results_of_one_sitting_count_once_as_a_sitting(data_dir):
    add(data_dir, load(DOUBLEWRITE[0]), Result.of(load(DOUBLEWRITE[0])).host_id,
        "2026-11-25T00:00:00+00:00")
    (v,) = cv.verdicts(claim())
    assert (v.pooled.k, v.pooled.sittings) == (3, 2)


def test_a_contribution_pools_in_its_own_class_never_into_the_projects(data_dir):
    doc = load(DOUBLEWRITE[0])
    doc["contribution"] = {"submitted": "2026-11-25T01:00:00+00:00", "description": "a box"}
    add(data_dir, doc, "eeeeeeeeeeeeeeee", "2026-11-25T00:00:00+00:00")
    own, given = cv.verdicts(claim())
    assert own.pooled.k == 2 and not own.evidence.host_class.contributed
    assert given.pooled.k == 1 and given.evidence.host_class.contributed


def test_the_verdict_is_sized_against_the_source(data_dir):
    (v,) = cv.verdicts(claim())
    iv = words.Interval(v.ratio.ci_low, v.ratio.ci_high, v.ratio.tost_low, v.ratio.tost_high)
    for source in (1.035, 1.5, 3.0, 0.5):
        (v,) = cv.verdicts(claim(source))
        assert v.kind == words.judge(source, iv, 0.03)
    (v,) = cv.verdicts(claim(100.0))
    assert v.kind in (words.SMALLER, words.NOT_REPRODUCED)  # a hundredfold is ruled out


def test_a_claim_whose_source_is_in_doubt_judges_no_ratio_of_the_source(data_dir):
    (plain,) = cv.verdicts(claim())
    (v,) = cv.verdicts(claim(caveat="its base configuration lists the setting already"))
    assert v.ratio.ratio == plain.ratio.ratio  # the same measurement
    iv = words.Interval(v.ratio.ci_low, v.ratio.ci_high, v.ratio.tost_low, v.ratio.tost_high)
    assert v.kind == words.doubted(plain.kind, iv, 0.03)
    # what was measured and the doubt, against the band it was judged by
    assert v.text == words.doubted_text(plain.kind, v.kind)
    assert v.band == words.doubted_band(plain.band)


def test_an_inverted_claim_reads_the_pooled_comparison_the_other_way(data_dir):
    (v,) = cv.verdicts(claim())
    (w,) = cv.verdicts(claim(invert=True))
    assert w.ratio.ratio == pytest.approx(1 / v.ratio.ratio)
    assert (w.ratio.ci_low, w.ratio.ci_high) == pytest.approx((1 / v.ratio.ci_high,
                                                               1 / v.ratio.ci_low))


def test_a_result_that_missed_its_regime_is_left_out_and_said(data_dir):
    path = sorted((data_dir / "doublewrite").glob("*-quick-*.json"))[0]
    doc = load(path)
    off = next(p for p in doc["points"] if p["value"] == "OFF")
    off["stats"]["regime"] = {"reached": False, "checks": []}
    path.write_text(json.dumps(doc))
    (v,) = cv.verdicts(claim())
    # The site recomputes a result's statistics from its runs: the regime stands only if its
    # runs say so. Whichever it is, a result left out is counted and said.
    if v.left_out:
        assert v.pooled.k == 1 and "left out: regime not reached" in v.why
    else:
        assert v.pooled.k == 2


def test_a_lab_vm_throughput_is_not_testable_but_its_cost_is():
    (v,) = [x for x in cv.verdicts(claim(0.1, recipe="zfs-recordsize", point="16K"))[:1]]
    assert v.kind == cv.NOT_TESTABLE and "its throughput is not the hardware's" in v.why
    cost = claim(0.1, recipe="zfs-recordsize", point="16K", metric="server_read_bytes_per_trx")
    assert cv.verdicts(cost)[0].pooled is not None


def test_only_superseded_results_are_older_evidence_and_none_is_not_measured(data_dir):
    for path in (data_dir / "doublewrite").glob("*-quick-*.json"):
        path.unlink()
    (v,) = cv.verdicts(claim())
    assert v.kind == cv.ONLY_OLDER and "memory cap" in v.why and v.ratio is None
    (v,) = cv.verdicts(claim(recipe="swap", variant="no-such-variant"))
    assert v.kind == cv.NOT_MEASURED and "invoke recipe swap --variant no-such-variant" in v.why


def test_no_committed_claim_whose_interval_rules_the_source_out_reads_too_noisy():
    claims, _ = claims_map.load_map()
    for c in claims:
        for v in cv.verdicts(c):
            if v.ratio is None:
                continue
            band = (c.source_ratio / 1.03, c.source_ratio * 1.03)
            holds = v.ratio.ci_low <= band[1] and band[0] <= v.ratio.ci_high
            if not holds and not words.no_difference_claimed(c.source_ratio, 0.03,
                                                            c.source_noise):
                assert v.kind != cv.TOO_NOISY, c.id


# --- the claims page --------------------------------------------------------------------------

def test_the_claims_page_defines_every_verdict_once_with_its_count():
    claims, untestable = claims_map.load_map()
    page = verdict_tables.vocabulary(claims, untestable)
    for kind, meaning in words.VOCABULARY.items():
        assert page.count(f">{kind}</strong>") == 1
    counted = verdict_tables.counts(claims, untestable)
    assert sum(counted.values()) == len(claims) + len(untestable)


def test_a_topic_row_shows_how_many_results_and_sittings_its_verdict_rests_on():
    table = verdict_tables._topic_table("doublewrite")
    assert re.search(r"\d+ results? from \d+ machines?", table)


# --- the home page ----------------------------------------------------------------------------

def home_rows() -> list[str]:
    """The home table's rows."""
    page = home_table.topics_fence("", "topics", "", {}, None)
    return re.findall(r"<tr><td data-label=\"Topic\">.*?</tr>", page)


def test_the_home_page_judges_the_advice_not_the_source_claim():
    row = next(r for r in home_rows() if 'href="topics/doublewrite/"' in r)
    assert "Keep it ON" in row and "reproduced" not in row
    assert re.search(r'tl-v-(holds|does-not-hold|cannot-tell-here)"', row)


def test_the_home_page_never_shows_lab_vm_throughput_as_a_verdict():
    """A lab VM cell whose advice rests on throughput cannot tell; one that rests on a cost
    per transaction (zfs-recordsize's bytes read) may: that carries over to hardware."""
    cells = [c for row in home_rows() for c in re.findall(r"<td data-label=\"MariaDB[^>]*>"
                                                          r".*?</td>", row)]
    lab = [c for c in cells if "(in the lab VM)" in c]
    assert lab
    for cell in lab:
        if "throughput (transactions/s)" in cell:
            assert 'tl-v-cannot-tell-here"' in cell, cell


def test_the_home_page_names_its_usual_machine_once_in_plain_words():
    """Under the table, the machine most cells were measured on as a DBA names it; no lab
    word (host class, sitting) in what the table shows."""
    page = home_table.topics_fence("", "topics", "", {}, None)
    named = re.search(r'<p class="tl-caption">Measured on (a \d+-core [^,<]*VM with [^,]*), '
                      r"unless a cell says otherwise", page)
    assert named and page.count(named.group(1)) == 1
    shown = re.sub(r'<[^>]+>', " ", re.sub(r' (title|data-[a-z]+)="[^"]*"', "", page))
    for word in ("host class", "sitting", "duet", "regime", "older evidence", "variant"):
        assert word not in shown, word


def test_a_lab_vm_throughput_claim_says_the_command_that_answers_it_on_hardware():
    """Not testable here, and how it would be: the same recipe on a host with KVM, on as many
    disks of its own as the widest point's array needs (issue 38, item 4)."""
    from tuninglab.evidence import functional
    doc = load(next(DATA.glob("raid-degraded/*-quick-raid10-*.json")))
    text = functional.hardware_rerun(doc)
    assert text.startswith("on a host with KVM (/dev/kvm) and 5 spare disks of at least 1G")
    assert text.endswith("invoke recipe raid-degraded --variant raid10 --device DISK1 --device "
                         "DISK2 --device DISK3 --device DISK4 --device DISK5 --destroy-data")
    claim = next(c for c in claims_map.load_map()[0] if c.recipe == "raid-level")
    v = next(v for v in cv.verdicts(claim) if v.kind == cv.NOT_TESTABLE)
    assert v.rerun.endswith("invoke recipe raid-level --device DISK1 --device DISK2 --device "
                            "DISK3 --device DISK4 --destroy-data")
    assert "KVM" not in v.why  # the reason is shared by every lab VM row; the command is not


def test_a_duet_class_is_calibrated_by_duet_a_as_and_the_whole_machine_by_the_others(data_dir):
    """One lab.noise record holds both: its duet A/A calibrates the duet's class (each server
    on half the machine), its switchback and restart A/As the whole machine's (issue 62)."""
    from tuninglab.results import calibrations
    duet_result = DATA / "doublewrite" / "20261206T184147Z-c9f6d3ed-quick-a86c5654.json"
    shutil.copy(duet_result, data_dir / "doublewrite" / duet_result.name)
    record = load(DATA / calibrations.DIR / "20261206T165657Z-c9f6d3ed.json")
    record["designs"]["duet"] = {**record["designs"]["switchback"], "point_values": [
        1000.0, 1040.0, 990.0, 1010.0], "baseline_values": [1005.0, 1000.0, 1000.0, 1030.0],
        "point_first": [True, False, False, True]}
    entry = record["designs"]["duet"]
    est = calibrations.estimate_of(entry)
    entry.update(log_ratio=est.log_ratio, se=est.se, df=est.df)
    (data_dir / calibrations.DIR).mkdir()
    (data_dir / calibrations.DIR / "record.json").write_text(json.dumps(record))
    sets = {s.host_class.duet: s for s in evidence.evidence_sets("doublewrite")}
    duet = cv.calibration(sets[True])
    assert [(e.log_ratio, e.df) for e in duet] == [(est.log_ratio, 2)] and duet[0].paired
    whole = cv.calibration(sets[False])   # the same machine's class: the record's other A/As
    assert sets[True].host_class.name.endswith(" on " + sets[False].host_class.name)
    assert len(whole) == 2 and est.log_ratio not in [e.log_ratio for e in whole]
    # the duet result pools with its places cancelled, never narrower than its batches say:
    # here they spread more than its 4 halves (2 degrees of freedom), 4 x 4 degrees of freedom
    (mine,) = cv.regime_estimates(sets[True], "OFF")[0]
    assert mine.paired and mine.df == 16


def test_a_duet_never_answers_a_servers_column_it_shows_beside_it_on_half_a_machine(data_dir):
    """A source's claim ran on a whole machine: MariaDB 11.8 measured only by a duet (each
    server on half the machine) reads "not measured yet" and why, its duet's verdict after it,
    and the claims page folds the duet under "on half the machine"."""
    duet_result = DATA / "doublewrite" / "20261206T184147Z-c9f6d3ed-quick-a86c5654.json"
    shutil.copy(duet_result, data_dir / "doublewrite" / duet_result.name)
    found = cv.verdicts(claim())
    eleven = [v for v in found if v.on_server == "mariadb 11.8"]
    assert [v.kind for v in eleven][0] == words.NOT_MEASURED and eleven[0].evidence is None
    assert cv.HALF_MACHINE in eleven[0].why and "--server mariadb-11.8" in eleven[0].why
    assert eleven[1].evidence.host_class.duet and eleven[1].pooled is not None
    # a server with a whole machine's evidence keeps it first
    assert not next(v for v in found if v.on_server == "mariadb 10.11").evidence.host_class.duet
    cell = verdict_tables._server_cell(claim(), eleven, "mariadb 11.8", verdict_tables.Notes("t"))
    assert words.NOT_MEASURED in cell and "on half the machine (a duet)" in cell
    assert "half of a 2-core" in cell and "data-answer" not in cell


def test_a_server_with_its_own_a_as_on_the_class_is_calibrated_by_them_alone(data_dir):
    """`invoke lab.noise --server` records calibrate that server's sets; a server with none
    on the class borrows every server's records."""
    from tuninglab.results import calibrations
    record = load(DATA / calibrations.DIR / "20261206T165657Z-c9f6d3ed.json")
    eleven = copy.deepcopy(record)
    eleven["host"]["id"] = "e" * 16
    eleven["server"] = {"flavor": "mariadb", "version": "11.8.9"}
    (data_dir / calibrations.DIR).mkdir()
    for name, r in (("a.json", record), ("b.json", eleven)):
        (data_dir / calibrations.DIR / name).write_text(json.dumps(r))
    cls = host_class(record)
    for server, expected in (("mariadb 10.11", {record["host"]["id"]}),
                             ("mariadb 11.8", {"e" * 16}),
                             ("mysql 9.7", {"e" * 16, record["host"]["id"]})):
        s = evidence.EvidenceSet("doublewrite", "", server, cls, (), ())
        assert {e.sitting for e in cv.calibration(s)} == expected
