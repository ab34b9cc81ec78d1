"""data.check against results that claim more than they measured (issue 16): statistics their
runs do not give, dates in the future, a pull request's file posing as the project's host,
impossible magnitudes, numbers no JSON reader agrees on, and text that reorders or hides itself.
Each bad document is made from a real committed one; each line names the file, the JSON path,
what is wrong and what was expected."""

import copy
import datetime as dt
import hashlib
import json

import pytest

from helpers import (
    contributed,
    COSTS,
    DATA,
    REPO,
    place_result as place,
    result_problems as problems_of,
    with_costs,
)
from tuninglab import cli
from tuninglab.contrib import check, forgery, values
from tuninglab.results import document, stats

BASE = DATA / "doublewrite" / "20261121T233847Z-209a4cf4-quick.json"  # 2 points x 5 repeats
PROJECT_HOST = json.loads(BASE.read_text())["host"]["id"]
# Another start of the base result, so another file: before its runs (23:38:47), after the
# commit it ran from (23:38:40: a start long before it is refused, contrib/history.py).
OTHER_START = "2026-11-21T23:38:45+00:00"
EXPECTED_STATS = ("expected the recomputed value (stored statistics must be what the runs "
                  "give; invoke data.submit recomputes them)")


def base_doc() -> dict:
    return json.loads(BASE.read_text())


# --- A: statistics the runs do not give ---------------------------------------------------------

def test_forged_statistics_are_named_with_the_stored_and_the_recomputed_value(tmp_path):
    doc = base_doc()
    on, off = doc["points"]
    real = document.point_stats(doc)
    on["stats"]["tps"]["median"] = -5
    off["stats"]["tps"]["median"] = 99999
    off["stats"]["ratio"].update(ratio=62, verdict="faster")
    path, problems = problems_of(tmp_path, doc)
    assert problems == [
        f"{path}: points/0/stats/tps/median: stored -5, recomputed from the runs "
        f"{json.dumps(real[0]['stats']['tps']['median'])}; {EXPECTED_STATS}",
        f"{path}: points/1/stats/tps/median: stored 99999, recomputed from the runs "
        f"{json.dumps(real[1]['stats']['tps']['median'])}; {EXPECTED_STATS}",
        f"{path}: points/1/stats/ratio/ratio: stored 62, recomputed from the runs "
        f"{json.dumps(real[1]['stats']['ratio']['ratio'])}; {EXPECTED_STATS}",
        f"{path}: points/1/stats/ratio/verdict: stored \"faster\", recomputed from the runs "
        f"\"too noisy to tell\"; {EXPECTED_STATS}"]


def test_missing_and_extra_statistics_and_trends_and_the_method(tmp_path):
    doc = base_doc()
    del doc["points"][0]["stats"]["write_bytes_per_trx"]
    doc["points"][1]["trends"]["dips"] = 7
    doc["points"][1]["stats"]["mib_per_s"] = doc["points"][1]["stats"]["tps"]
    doc["methods"]["summary"] = "median of repeats; 95% CI: Student t interval of the mean"
    path, problems = problems_of(tmp_path, doc)
    assert problems[:3] == [
        f"{path}: points/0/stats/write_bytes_per_trx: stored nothing, recomputed from the runs "
        f"an object of 6 keys; {EXPECTED_STATS}",
        f"{path}: points/1/stats/mib_per_s: stored an object of 6 keys, recomputed from the "
        f"runs nothing; {EXPECTED_STATS}",
        f"{path}: points/1/trends/dips: stored 7, recomputed from the runs 0; {EXPECTED_STATS}"]
    line = (f"{path}: methods/summary: stored \"median of repeats; 95% CI: Student t interval "
            f"of the mean\", recomputed from the runs {json.dumps(stats.SUMMARY_METHOD)}; "
            f"{EXPECTED_STATS}")
    assert problems[3:] == [check.one_line(line)]  # cut in the middle: a long line


def test_the_last_digits_of_a_recomputation_may_differ(tmp_path):
    doc = base_doc()
    s = doc["points"][1]["stats"]["tps"]
    s["ci_low"] *= 1 + 1e-12
    s["ci_high"] *= 1 - 1e-12
    assert problems_of(tmp_path, doc)[1] == []
    s["ci_low"] *= 1 + 1e-6
    [line] = problems_of(tmp_path, doc)[1]
    assert ": points/1/stats/tps/ci_low: stored " in line


def test_a_file_that_differs_everywhere_gets_ten_lines_and_a_count(tmp_path):
    doc = base_doc()
    for p in doc["points"]:
        for summary in p["stats"].values():
            if summary:
                summary.update({k: 1 for k in summary
                                if k not in ("verdict", "verdict_kind", "n")})
    path, problems = problems_of(tmp_path, doc)
    assert len(problems) == forgery.MAX_SHOWN + 1
    # 2 points x 5 numbers of tps and of write_bytes_per_trx, and 5 of the one ratio (the
    # ratio, its 95% interval and its equivalence interval): 25
    assert problems[-1] == (f"{path}: points: 15 more stored statistics differ from the "
                            "recomputed ones; expected none")


def test_runs_that_give_no_statistics_are_said_once(tmp_path):
    doc = base_doc()
    doc["workload"]["metric"] = "new_order_tpm"  # the runs hold no new-order throughput
    path, problems = problems_of(tmp_path, doc)
    assert f"{path}: points: the statistics cannot be computed from the runs " \
           "('new_order_tpm'); expected runs whose summaries hold the primary metric as a real " \
           "run measures it" in problems


def test_repeats_whose_interval_overflows_are_said_not_crashed_on(tmp_path):
    doc = base_doc()
    for run, tps in zip(doc["points"][0]["runs"], (1e-300, 1e-300, 1e8, 1e8, 1e8)):
        run["summary"]["tps"] = tps
    path, problems = problems_of(tmp_path, doc)
    assert problems == [f"{path}: points/0/runs/0/summary/tps: 1e-300, 100% off the mean of its "
                        "per-second series (1615.19) (and 4 more runs of the point); expected "
                        "within 15% of it (the summary is the whole run's, the series its "
                        "seconds)",
                        f"{path}: points: the statistics cannot be computed from the runs (math "
                        "range error); expected runs whose summaries hold the primary metric as "
                        "a real run measures it"]


def test_a_forged_equivalence_is_named(tmp_path):
    """A "too noisy to tell" ratio passed off as "equivalent": its kind and its text."""
    doc = base_doc()
    doc["points"][1]["stats"]["ratio"].update(verdict="equivalent within ±3%",
                                               verdict_kind="equivalent")
    path, problems = problems_of(tmp_path, doc)
    assert problems == [
        f"{path}: points/1/stats/ratio/verdict: stored \"equivalent within ±3%\", "
        f"recomputed from the runs \"too noisy to tell\"; {EXPECTED_STATS}",
        f"{path}: points/1/stats/ratio/verdict_kind: stored \"equivalent\", recomputed from "
        f"the runs \"too noisy to tell\"; {EXPECTED_STATS}"]


def test_a_margin_widened_to_call_an_effect_equivalent_is_named(tmp_path):
    """Statistics recomputed with a margin of 50% agree with themselves: the margin itself
    must be the recipe's."""
    doc = base_doc()
    doc["plan"]["smallest_effect_pct"] = 50
    document.recompute(doc)
    assert doc["points"][1]["stats"]["ratio"]["verdict"] == "equivalent within ±50%"
    path, problems = problems_of(tmp_path, doc)
    assert problems == [f"{path}: plan/smallest_effect_pct: 50 is not the smallest effect "
                        "worth knowing of the recipe; expected 3, what recipe/text names none: "
                        "the default"]


def test_the_margin_is_the_one_the_recipe_text_names_for_the_variant():
    doc = base_doc()
    text = doc["recipe"]["text"].replace("[measure]\n", '[measure]\nsmallest_effect = "5%"\n')
    doc["recipe"]["text"] = text + '\n[variants.tpcc.measure]\nsmallest_effect = "2.5%"\n'
    assert check.check_smallest_effect(doc) == [
        "plan/smallest_effect_pct: 3 is not the smallest effect worth knowing of the recipe; "
        "expected 5, what recipe/text names in [measure] smallest_effect"]
    doc["plan"]["smallest_effect_pct"] = 5.0
    assert check.check_smallest_effect(doc) == []
    doc["variant"] = "tpcc"
    assert "expected 2.5," in check.check_smallest_effect(doc)[0]
    doc["plan"]["smallest_effect_pct"] = 2.5
    assert check.check_smallest_effect(doc) == []


def test_a_margin_out_of_range_is_refused_by_the_schema(tmp_path):
    for pct in (0, 100, -3):
        doc = base_doc()
        doc["plan"]["smallest_effect_pct"] = pct
        assert any(": plan/smallest_effect_pct: " in line
                   for line in problems_of(tmp_path, doc)[1])


def cost_doc() -> dict:
    """base_doc with costs in its runs (issue 17) and the statistics they give: OFF uses 20%
    less server CPU."""
    off = base_doc()["points"][1]["id"]
    return document.recompute(with_costs(base_doc(), {off: {"server_cpu_us_per_trx": 0.8}}))


def test_a_result_with_costs_and_their_statistics_passes(tmp_path):
    doc = cost_doc()
    assert doc["points"][1]["stats"]["cost"]["server_cpu_us_per_trx"]["ratio"]["verdict"] == \
        stats.LESS
    assert problems_of(tmp_path, doc)[1] == []


def test_forged_cost_statistics_are_named(tmp_path):
    doc = cost_doc()
    real = copy.deepcopy(doc["points"][1]["stats"]["cost"])
    cpu = doc["points"][1]["stats"]["cost"]["server_cpu_us_per_trx"]
    cpu["median"] = 1.0
    cpu["ratio"].update(verdict="equivalent within ±3%", verdict_kind="equivalent")
    path, problems = problems_of(tmp_path, doc)
    where = f"{path}: points/1/stats/cost/server_cpu_us_per_trx"
    assert problems == [
        f"{where}/median: stored 1.0, recomputed from the runs "
        f"{json.dumps(real['server_cpu_us_per_trx']['median'])}; {EXPECTED_STATS}",
        f"{where}/ratio/verdict: stored \"equivalent within ±3%\", recomputed from the runs "
        f"\"less\"; {EXPECTED_STATS}",
        f"{where}/ratio/verdict_kind: stored \"equivalent\", recomputed from the runs "
        f"\"less\"; {EXPECTED_STATS}"]


def test_costs_claimed_without_runs_that_measured_them_are_named(tmp_path):
    doc = base_doc()
    doc["points"][1]["stats"]["cost"] = cost_doc()["points"][1]["stats"]["cost"]
    path, problems = problems_of(tmp_path, doc)
    assert problems == [f"{path}: points/1/stats/cost: stored an object of {len(COSTS)} keys, "
                        f"recomputed from the runs nothing; {EXPECTED_STATS}"]


def test_costs_measured_but_left_out_of_the_statistics_are_named(tmp_path):
    doc = cost_doc()
    del doc["points"][0]["stats"]["cost"]
    del doc["methods"]["cost"]
    path, problems = problems_of(tmp_path, doc)
    assert problems[0] == (f"{path}: points/0/stats/cost: stored nothing, recomputed from the "
                           f"runs an object of {len(COSTS)} keys; {EXPECTED_STATS}")
    assert problems[1].startswith(f"{path}: methods/cost: stored nothing, recomputed from the "
                                  "runs \"costs per transaction: ")


# --- B: dates in the future, and a pull request's files -----------------------------------------

def test_dates_in_the_future_are_refused(tmp_path):
    doc = contributed(base_doc())
    doc["finished"] = "2099-01-01T00:00:00+00:00"
    doc["contribution"]["submitted"] = "2099-01-01T00:00:00Z"
    path, problems = problems_of(tmp_path, doc)
    assert [p.split(" (the checker's clock says ")[0] for p in problems] == [
        f"{path}: finished: 2099-01-01T00:00:00+00:00 is in the future",
        f"{path}: contribution/submitted: 2099-01-01T00:00:00Z is in the future"]
    assert problems[0].endswith("; expected a time that has passed (5 minutes of clock skew "
                                "allowed)")


def test_a_few_minutes_of_clock_skew_are_allowed(tmp_path):
    doc = base_doc()
    ahead = dt.datetime.now(dt.timezone.utc) + dt.timedelta(minutes=4)
    doc["finished"] = ahead.isoformat(timespec="seconds")
    assert problems_of(tmp_path, doc)[1] == []
    doc["finished"] = (ahead + dt.timedelta(minutes=3)).isoformat(timespec="seconds")
    [line] = problems_of(tmp_path, doc)[1]
    assert ": finished: " in line and "is in the future" in line


def test_runs_dated_in_the_future_are_named(tmp_path, monkeypatch):
    """A clock that says the result has only just started: its runs are all to come."""
    doc = base_doc()
    clock = dt.datetime.fromisoformat(doc["started"]) - document.CLOCK_SKEW
    monkeypatch.setattr(values, "now", lambda: clock)
    problems = problems_of(tmp_path, doc)[1]
    run = doc["points"][0]["runs"][0]
    assert ": finished: " in problems[0]
    assert problems[1].split(" (the checker")[0].endswith(
        f": points/0/runs/0/started: {run['started']} is in the future")
    assert len(problems) == 1 + 2 * 10  # the end, and the start and end of each of 10 runs


def test_a_pull_requests_result_must_be_a_contribution(data):
    own = place(data.parent, {**base_doc(), "started": OTHER_START})
    assert check.check_paths([own]) == []
    assert check.check_paths([own], contributions=True) == [
        f"{own}: contribution: missing: a pull request adds contributed results only; expected "
        "a result prepared by invoke data.submit"]


@pytest.mark.parametrize("host", [PROJECT_HOST, PROJECT_HOST[:8] + "00000000"])
def test_a_contribution_cannot_pose_as_a_project_host(data, host):
    posing = place(data.parent, contributed(base_doc(), host))
    [line] = check.check_paths([posing], contributions=True)
    assert line.startswith(f"{posing}: host/id: {host} is (or begins as) the host of the "
                           "project's own result ")
    assert line.endswith("; expected the id your own run recorded (a contribution never "
                         "stands for the project's hosts)")
    assert check.check_paths([posing]) == []  # the rule of a pull request's files only


def test_a_contribution_from_its_own_host_passes(data):
    assert check.check_paths([place(data.parent, contributed(base_doc()))],
                             contributions=True) == []


def test_the_checked_files_are_no_project_hosts_of_their_own(data):
    doc = contributed(base_doc())
    lone = copy.deepcopy(doc)
    del lone["contribution"]
    lone["started"] = OTHER_START
    paths = [place(data.parent, lone), place(data.parent, doc)]
    assert [line.split(": ")[1] for line in check.check_paths(paths, contributions=True)] == [
        "contribution"]  # the second is not refused as the host of the first


def test_data_check_with_contributions_prints_and_fails(data):
    own = place(data.parent, {**base_doc(), "started": OTHER_START})
    lines = []
    with pytest.raises(SystemExit) as info:
        cli.data_check([str(own)], lines.append, contributions=True)
    assert info.value.code == 1
    assert lines == [f"{own}: contribution: missing: a pull request adds contributed results "
                     "only; expected a result prepared by invoke data.submit",
                     "1 result file checked, 1 problem"]


def test_the_workflow_checks_new_files_as_contributions():
    script = (REPO / ".github" / "check-new-results.sh").read_text()
    assert "-m tuninglab.contrib.pull_request" in script
    module = REPO / "src" / "tuninglab" / "contrib" / "pull_request.py"
    assert "check.check_paths(results, contributions=True)" in module.read_text()


# --- D: magnitudes, long numbers, format characters ---------------------------------------------

def test_implausible_magnitudes_are_named_with_their_bound(tmp_path):
    doc = base_doc()
    doc["points"][0]["runs"][0]["summary"]["tps"] = 1e300
    doc["points"][0]["runs"][1]["summary"]["io"]["write_bytes"] = 10**18
    doc["points"][1]["runs"][2]["series"]["latency_p95_ms"][3] = 2e9
    doc["device_baseline"]["fsync_per_s"] = 1e12
    document.recompute(doc)  # statistics in line with the runs: only this rule speaks
    path, problems = problems_of(tmp_path, doc)
    assert problems == [
        f"{path}: device_baseline/fsync_per_s: 1e+12 is beyond what a machine measures; "
        "expected at most 1e+08 (a second: 100 million, 10 times the fastest published single "
        "server)",
        f"{path}: points/0/runs/0/summary/tps: 1e+300 is beyond what a machine measures; "
        "expected at most 1e+08 (a second: 100 million, 10 times the fastest published single "
        "server)",
        f"{path}: points/0/runs/1/summary/io/write_bytes: 1e+18 is beyond what a machine "
        "measures; expected at most 1e+17 (bytes: 100 PB, more than a day of IO at 1 TB/s)",
        f"{path}: points/1/runs/2/series/latency_p95_ms/3: 2e+09 is beyond what a machine "
        "measures; expected at most 1e+09 (ms: 11 days, longer than any run)"]


@pytest.mark.parametrize("key, bound", [
    (("summary", "mib_per_s"), 1e7), (("summary", "new_order_tpm"), 6e9),
    (("series", "cpu_busy_pct", 4), 100), (("series", "resync_kib_s", 0), 1e10),
    (("summary", "runtime_s"), 1e6), (("series", "t", 9), 1e6),
    (("summary", "tpcc", "transactions", "payment", "count"), 1e15),
    (("summary", "array_io", "read_bytes_per_trx"), 1e17)])
def test_each_unit_has_its_bound(key, bound):
    assert values.bound_of(("points", 0, "runs", 0, *key))[0] == bound


@pytest.mark.parametrize("digits", [21, 5000])
def test_a_number_of_too_many_digits_is_named_without_pythons_advice(tmp_path, digits):
    path = place(tmp_path, base_doc())
    path.write_text(path.read_text().replace('"seed": 1,', f'"seed": {"9" * digits},', 1))
    assert check.check_file(path) == [
        f"{path}: plan/seed: a number of {digits:,} digits; expected a number of at most 20 "
        "digits (a 64-bit counter has 20)"]


def test_format_characters_are_refused_in_every_string(tmp_path):
    doc = base_doc()
    doc["host"]["cpu_model"] = "AMD\u202eCPYE"
    doc["points"][0]["value"] = "ON\u200b"
    doc["points"][1]["effective"] = {"\u2066key": "1"}
    text = doc["recipe"]["text"] + "# \u2069\n"
    doc["recipe"].update(text=text, sha256=hashlib.sha256(text.encode()).hexdigest())
    path, problems = problems_of(tmp_path, doc)
    expected = "; expected text without bidi controls or zero-width characters (Unicode " \
               "category Cf)"
    assert problems[:4] == [
        f"{path}: recipe/text: format character U+2069 (POP DIRECTIONAL ISOLATE) at character "
        f"{len(text) - 2}{expected}",
        f"{path}: host/cpu_model: format character U+202E (RIGHT-TO-LEFT OVERRIDE) at "
        f"character 3{expected}",
        f"{path}: points/0/value: format character U+200B (ZERO WIDTH SPACE) at character 2"
        f"{expected}",
        f"{path}: points/1/effective/\\u2066key: the key format character U+2066 (LEFT-TO-RIGHT "
        f"ISOLATE) at character 0{expected}"]
    assert all(c not in "".join(problems) for c in "\u202e\u200b\u2066\u2069")
