"""lab.noise's figures from made-up A/A results, and how results and dry runs use them."""

import dataclasses
import json
import math

import pytest

from helpers import duet_doc, fixture_recipe, make_doc
from tuninglab import calibrate
from tuninglab.engine.measure import noise
from tuninglab.engine.run import duet, runner
from tuninglab.errors import UserError
from tuninglab.evidence.host_class import host_class
from tuninglab.recipes import plan as planner
from tuninglab.recipes.load import load
from tuninglab.results import calibrations, document


def switchback_doc():
    doc = make_doc(on_tps=[1000.0, 1100.0, 900.0, 1000.0], off_tps=[1010.0, 1089.0, 909.0, 990.0])
    doc["plan"].update(design="switchback", settle_s=2.0, duration_s=5.0, warmup_s=20.0,
                       repeats=4)
    doc["points"][1]["stats"] = {"ratio": {"verdict": "too noisy to tell"}}
    return doc


def restart_doc():
    doc = make_doc(on_tps=[1000.0, 1100.0, 900.0], off_tps=[1000.0, 1050.0, 950.0])
    doc["plan"].update(duration_s=20.0, warmup_s=5.0)
    doc["points"][1]["stats"] = {"ratio": {"verdict": "too noisy to tell"}}
    return doc


def test_a_switchback_round_spread_is_that_of_its_log_ratios():
    figures = calibrate.switchback_figures(switchback_doc())
    logs = [math.log(a / b) for a, b in zip([1010, 1089, 909, 990], [1000, 1100, 900, 1000])]
    mean = sum(logs) / 4
    sd = math.sqrt(sum((x - mean) ** 2 for x in logs) / 3)
    assert figures["round_log_ratio_sd_pct"] == pytest.approx(sd * 100, abs=0.01)
    assert figures["five_minute_repeats"] == 20  # (300 - 20) // (2 * 7)
    assert 0 < figures["five_minute_half_width_pct"] < figures["five_minute_smallest_effect_pct"]
    assert figures["rounds"] == 4 and figures["a_a_verdict"] == "too noisy to tell"


def test_a_restart_spread_is_pooled_over_the_points():
    figures = calibrate.restart_figures(restart_doc())
    on = [math.log(x) for x in (1000, 1100, 900)]
    off = [math.log(x) for x in (1000, 1050, 950)]
    ss = sum((x - sum(v) / 3) ** 2 for v in (on, off) for x in v)
    assert figures["run_to_run_sd_pct"] == pytest.approx(math.sqrt(ss / 4) * 100, abs=0.01)
    assert figures["five_minute_repeats"] == 5  # 300 // (2 * (5 + 20 + 2))


def test_the_per_second_variation_is_the_median_over_the_runs():
    doc = restart_doc()
    for p in doc["points"]:
        for run in p["runs"]:
            run["series"]["tps"] = [90.0, 110.0, None]
    assert calibrate.per_second_cv_pct(doc) == pytest.approx(100 * math.sqrt(200) / 100, abs=0.01)


def figures():
    return {"host_id": "a" * 16, "measured": "2026-11-23T01:00:00+00:00",
            "switchback": calibrate.switchback_figures(switchback_doc()),
            "restart": calibrate.restart_figures(restart_doc())}


def test_figures_are_loaded_for_their_own_host_only(tmp_path):
    (tmp_path / noise.FILE).write_text(json.dumps(figures()))
    assert noise.load(tmp_path, "a" * 16)["switchback"]["rounds"] == 4
    assert noise.load(tmp_path, "b" * 16) is None
    (tmp_path / noise.FILE).write_text("[1]")
    assert noise.load(tmp_path, "a" * 16) is None
    assert noise.load(tmp_path / "none", "a" * 16) is None


def test_the_expected_precision_narrows_with_rounds_and_block_length(tmp_path):
    fixture_recipe(tmp_path, "tiny-switchback")
    e = load("tiny-switchback", recipes_dir=tmp_path).experiment()
    few = noise.expected_half_width_pct(figures(), planner.build(e))
    more = noise.expected_half_width_pct(figures(), planner.build(e.__class__(
        **{**e.__dict__, "measure": e.measure.__class__(**{**e.measure.__dict__,
                                                           "repeats": 40})})))
    assert few > more > 0
    restart = noise.expected_half_width_pct(figures(), planner.build(e, design="restart"))
    assert restart > 0


def test_the_report_says_every_figure():
    text = calibrate.report(figures())
    for words in ("one second to the next", "one run to the next", "an A/B of 5 minutes",
                  "8 times in 10", "the A/A verdicts"):
        assert words in text


def test_the_calibration_recipes_are_valid(tmp_path):
    for design in ("switchback", "restart", "duet"):
        for quick in (False, True):
            (tmp_path / design).mkdir(exist_ok=True)
            (tmp_path / design / "recipe.toml").write_text(calibrate.recipe_text(design, quick))
            plan = planner.build(load(design, recipes_dir=tmp_path).experiment())
            assert plan.design == design
            assert plan.estimate(template_cached=True) <= (400 if design == "duet" else 330)


def test_the_calibration_record_is_written_under_data_never_over_another(tmp_path):
    docs = {"switchback": switchback_doc(), "restart": restart_doc()}
    docs["switchback"]["plan"]["design"] = "switchback"
    first = calibrate.write_record(docs, "2026-11-24T04:30:08+00:00", False, tmp_path)
    second = calibrate.write_record(docs, "2026-11-24T04:30:08+00:00", False, tmp_path)
    assert first.parent == tmp_path / calibrations.DIR and first != second
    assert first.name.startswith("20261124T043008Z-")
    assert calibrations.problems(first) == [] and calibrations.problems(second) == []
    assert [r["quick"] for r in calibrations.load_all(tmp_path)] == [False, False]


def test_a_second_record_from_the_same_machine_adds_no_sitting(tmp_path):
    docs = {"switchback": switchback_doc(), "restart": restart_doc()}
    docs["switchback"]["plan"]["design"] = "switchback"
    first = calibrate.write_record(docs, "2026-11-24T04:30:08+00:00", False, tmp_path)
    record = json.loads(first.read_text())
    said = calibrate.sittings_text(record, tmp_path)
    assert "had a record already" not in said and "records from 1 machine:" in said
    assert "its verdicts on mariadb 10.11 take the between-sitting sd as about " in said
    again = calibrate.write_record(docs, "2026-11-25T04:30:08+00:00", False, tmp_path)
    said = calibrate.sittings_text(json.loads(again.read_text()), tmp_path)
    assert said.startswith(f"this machine ({record['host']['id'][:8]}) had a record already: "
                           "a sitting is one machine, so the host class (")
    assert "records from 1 machine:" in said
    other = json.loads(again.read_text())
    other["host"]["id"] = "0" * 16
    (tmp_path / calibrations.DIR / "other.json").write_text(json.dumps(other))
    said = calibrate.sittings_text(other, tmp_path)
    assert "records from 2 machines: with them, its verdicts on mariadb 10.11 take " in said
    # another server's record on the class counts for that server only
    mysql = {**other, "server": {"flavor": "mysql", "version": "9.7.4"}}
    mysql["host"] = {**other["host"], "id": "1" * 16}
    (tmp_path / calibrations.DIR / "mysql.json").write_text(json.dumps(mysql))
    said = calibrate.sittings_text(mysql, tmp_path)
    assert "has mysql 9.7's records from 1 machine: with them, its verdicts on mysql 9.7" in said


# --- the duet's A/A ---------------------------------------------------------------------------

def duet_aa_doc(halves=6):
    """A duet A/A: the points alike, the first place 5% faster, 40 s halves, 20 s warm-ups."""
    doc = document.finish(duet_doc(effect=1.0, placement=1.05, halves=halves, seconds=40))
    doc["plan"]["warmup_s"] = 20.0
    return doc


def test_a_duets_figures_keep_the_placement_in_a_half_and_out_of_a_batch():
    figures = calibrate.duet_figures(duet_aa_doc())
    assert figures["halves"] == 6 and figures["half_s"] == 40 and figures["batch_s"] == 8
    # the place's own 5% is taken out of a half's spread: what is left is the 1% noise's
    assert figures["half_log_ratio_sd_pct"] < 1 and figures["batch_log_ratio_sd_pct"] < 1
    assert calibrate.duet_figures(duet_aa_doc(halves=2))["half_log_ratio_sd_pct"] is None
    assert figures["five_minute_halves"] == 4   # 300 // (20 + 40 + 2) = 4, whole pairs
    assert 0 < figures["five_minute_half_width_pct"] < 2
    assert figures["placement"] == pytest.approx(1.05, rel=0.01)
    assert figures["a_a_verdict"].startswith("equivalent")


def test_a_duets_expected_precision_narrows_with_halves_and_needs_two_repeats(tmp_path):
    fixture_recipe(tmp_path, "tiny-switchback")
    e = load("tiny-switchback", recipes_dir=tmp_path).experiment()
    with_duet = {**figures(), "duet": calibrate.duet_figures(duet_aa_doc())}

    def half_width(repeats, seconds):
        measure = dataclasses.replace(e.measure, repeats=repeats, duration=seconds)
        return noise.expected_half_width_pct(
            with_duet, planner.build(dataclasses.replace(e, measure=measure), design="duet"))
    assert half_width(1, 40) is None   # one repeat: no interval
    assert half_width(2, 40) > half_width(3, 40) > 0
    # shorter halves than the A/A's average fewer seconds; longer ones keep the place's
    # moving from half to half, which no length averages out
    assert half_width(3, 10) > half_width(3, 40) == half_width(3, 160)
    assert noise.round_sd(with_duet, planner.build(e, design="duet")) > 0


def test_a_dry_run_of_a_duet_says_whether_this_host_has_a_duet_calibration(tmp_path,
                                                                             monkeypatch):
    fixture_recipe(tmp_path, "tiny-switchback")
    plan = planner.build(load("tiny-switchback", recipes_dir=tmp_path).experiment(),
                         design="duet")
    monkeypatch.setattr("tuninglab.engine.measure.provenance.host_id", lambda: "a" * 16)
    (tmp_path / noise.FILE).write_text(json.dumps(figures()))
    assert "`invoke lab.noise --designs duet`" in runner._expected_precision(plan, tmp_path)
    (tmp_path / noise.FILE).write_text(json.dumps(
        {**figures(), "duet": calibrate.duet_figures(duet_aa_doc())}))
    assert runner._expected_precision(plan, tmp_path).startswith(
        "expected precision: about ±")


def test_the_designs_to_calibrate_are_checked_and_a_duet_needs_two_cpus(monkeypatch):
    assert calibrate.chosen("duet, switchback") == ("switchback", "duet")
    assert calibrate.chosen(calibrate.DESIGNS) == ("switchback", "restart", "duet")
    with pytest.raises(UserError, match=r"--designs 'swtchback': expected one or more of "
                                        r"switchback, restart, duet"):
        calibrate.chosen("swtchback")
    monkeypatch.setattr(duet.pinning, "available", lambda: [0])
    said = []
    assert calibrate.chosen("restart,duet", said.append) == ("restart",)
    assert said[0].startswith("no duet A/A: a duet runs two servers")
    with pytest.raises(UserError, match="nothing to calibrate here"):
        calibrate.chosen("duet")


def test_a_run_of_one_design_keeps_this_hosts_figures_of_the_others(tmp_path):
    (tmp_path / noise.FILE).write_text(json.dumps(figures()))
    assert set(calibrate._earlier(tmp_path, "a" * 16)) == {"switchback", "restart"}
    assert calibrate._earlier(tmp_path, "b" * 16) == {}


def test_the_report_says_the_duets_figures():
    text = calibrate.report({**figures(), "duet": calibrate.duet_figures(duet_aa_doc())})
    assert "(a duet's half of 40 s, its place's effect (x1.0" in text
    assert "(a batch of 8 s in a half)" in text
    assert "duet ±" in text and "6 halves" not in text and "4 halves" in text
    assert "duet equivalent within" in text.splitlines()[-1]
    only = calibrate.report({"measured": "2026-12-06T00:00:00+00:00",
                             "duet": calibrate.duet_figures(duet_aa_doc())})
    assert "switchback" not in only and "restart" not in only


def test_a_duets_record_calibrates_the_duet_class_and_only_it(tmp_path):
    docs = {"switchback": switchback_doc(), "restart": restart_doc(), "duet": duet_aa_doc()}
    docs["switchback"]["plan"]["design"] = "switchback"
    path = calibrate.write_record(docs, "2026-12-06T04:30:08+00:00", False, tmp_path)
    assert calibrations.problems(path) == []
    record = json.loads(path.read_text())
    entry = record["designs"]["duet"]
    assert entry["paired"] and len(entry["point_values"]) == 6
    assert entry["point_first"] == [True, False] * 3   # the tested point (OFF) first, swapped
    (duet_aa,) = calibrations.aa_estimates(record, duet=True)
    assert duet_aa.paired and duet_aa.df == 4   # the places' effect cancelled, at a df
    assert len(calibrations.aa_estimates(record)) == 2   # the whole machine's: no duet
    assert host_class(record, duet=True).duet and not host_class(record).duet
    said = calibrate.sittings_text(record, tmp_path).splitlines()
    assert len(said) == 2 and "(duet, " in said[1] and "a duet's per-run excess" in said[1]


def test_a_dry_run_says_what_a_duet_would_give_in_about_the_same_time(tmp_path, monkeypatch):
    fixture_recipe(tmp_path, "tiny-switchback")
    e = load("tiny-switchback", recipes_dir=tmp_path).experiment()
    long = dataclasses.replace(e, measure=dataclasses.replace(e.measure, repeats=40))
    with_duet = {**figures(), "duet": calibrate.duet_figures(duet_aa_doc())}
    plan = planner.build(long, design="switchback")
    width, halves, seconds = noise.duet_in_the_same_time(with_duet, plan)
    assert seconds == 40 and halves >= 2 and halves % 2 == 0 and width > 0
    per_half = long.measure.warmup + 40 + planner.RUN_OVERHEAD_S
    assert halves * per_half <= plan.estimate(template_cached=True) < (halves + 2) * per_half
    assert noise.duet_in_the_same_time(figures(), plan) is None             # no duet figures
    assert noise.duet_in_the_same_time(with_duet, planner.build(long, design="duet")) is None
    monkeypatch.setattr("tuninglab.engine.measure.provenance.host_id", lambda: "a" * 16)
    (tmp_path / noise.FILE).write_text(json.dumps(with_duet))
    line = runner._expected_precision(plan, tmp_path)
    assert f"; a duet in about the same time: about ±{width:g}% ({halves} halves of 40 s" in line


def test_another_servers_calibration_runs_it_and_leaves_the_hosts_figures_alone(tmp_path,
                                                                               monkeypatch):
    ran = []

    def run(name, opts, say):   # the runner's result file, from a captured A/A document
        ran.append(opts.server)
        path = tmp_path / f"{name}.json"
        path.write_text(json.dumps(restart_doc()))
        return path

    monkeypatch.setattr(runner, "run", run)
    (tmp_path / noise.FILE).write_text(json.dumps(figures()))
    said = []
    calibrate.calibrate(tmp_path, say=said.append, data_dir=tmp_path / "data",
                        designs="restart", server="mariadb-11.8")
    assert ran == ["mariadb-11.8"]
    assert json.loads((tmp_path / noise.FILE).read_text()) == figures()
    assert any(line.startswith(f"\nleft {tmp_path / noise.FILE} alone") for line in said)
    assert len(calibrations.load_all(tmp_path / "data")) == 1
