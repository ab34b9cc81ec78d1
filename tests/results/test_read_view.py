"""A held read view ([workload] hold_read_view): the recipe key and its checks, the regime
conditions that read its windows and its drain (recipes/regime.py), and what results/ computes
from a run's per-second series (results/read_view.py, results/regime.py)."""

import copy

import pytest

from helpers import load_error, make_doc, recipe_text, write_recipe
from tuninglab.errors import UserError
from tuninglab.recipes.load import load
from tuninglab.recipes.regime import declared
from tuninglab.results import document, read_view, regime
from tuninglab.results.result import Result

HOLD = 'hold_read_view = "10s"\n'
WORKLOAD = '[workload]\nscript = "oltp_update_index"\nthreads = 4\n'
MEASURE = '[measure]\ndesign = "restart"\nwarmup = "5s"\nduration = "30s"\nrepeats = 2\n'
PROFILES = '[profiles.quick]\nduration = "20s"\nrepeats = 2\n'


def held_recipe(workload=WORKLOAD + HOLD, measure=MEASURE, profiles=PROFILES, regime_text=""):
    return recipe_text(workload=workload, measure=measure, profiles=profiles) + regime_text


# --- the recipe key ----------------------------------------------------------------------

def test_a_workload_holds_a_read_view_for_its_seconds(tmp_path):
    write_recipe(tmp_path, "demo", held_recipe())
    recipe = load("demo", recipes_dir=tmp_path)
    assert recipe.workload.hold_read_view == 10.0
    assert recipe.experiment("quick").workload.hold_read_view == 10.0
    write_recipe(tmp_path, "plain", recipe_text(workload=WORKLOAD))
    assert load("plain", recipes_dir=tmp_path).workload.hold_read_view == 0.0


@pytest.mark.parametrize("value, expected", [
    ('"0s"', "at least 1s"), ('"soon"', "hold_read_view"), ("-3", "hold_read_view")])
def test_a_hold_that_is_no_duration_is_refused(tmp_path, value, expected):
    message = load_error(tmp_path, held_recipe(workload=WORKLOAD + f"hold_read_view = {value}\n"))
    assert "workload.hold_read_view" in message and expected in message


def test_a_scan_holds_no_read_view(tmp_path):
    message = load_error(tmp_path, held_recipe(workload='[workload]\ntool = "scan"\n' + HOLD))
    assert "hold_read_view" in message


def test_the_measured_seconds_must_outlast_the_hold_with_a_drain_to_see(tmp_path):
    write_recipe(tmp_path, "demo", held_recipe(profiles='[profiles.quick]\nduration = "12s"\n'))
    recipe = load("demo", recipes_dir=tmp_path)
    with pytest.raises(UserError, match=r"hold_read_view: the view is released at 10 s, but "
                                        r"profile quick .* measures 12 s; expected at least 15 s"):
        recipe.experiment("quick")
    with pytest.raises(UserError, match="--duration"):
        recipe.experiment("full", duration="14s")
    assert recipe.experiment("full", duration="15s").measure.duration == 15


def test_only_a_restart_run_holds_a_read_view(tmp_path):
    write_recipe(tmp_path, "demo", held_recipe(measure=MEASURE.replace("restart", "switchback")))
    with pytest.raises(UserError, match='only a restart run holds a read view; expected '
                                        r'\[measure\] design = "restart"'):
        load("demo", recipes_dir=tmp_path).experiment("full")


# --- the regime conditions ---------------------------------------------------------------

GROWS = """
[[regime]]
metric = "history_list_length"
statistic = "slope"
window = "held"
at_least = 100
of = "baseline"
why = "the history list grows while the view is held"

[[regime]]
metric = "history_list_length"
statistic = "drain"
at_most = 15
why = "purge drains the backlog within the run"
"""


def test_a_condition_reads_the_held_seconds_or_the_drain(tmp_path):
    write_recipe(tmp_path, "demo", held_recipe(regime_text=GROWS))
    grows, drains = (dict(c) for c in load("demo", recipes_dir=tmp_path).regime)
    assert grows["window"] == "held" and grows["unit"] == "undo log records per second"
    assert drains["statistic"] == "drain" and drains["unit"] == "s" and "window" not in drains
    assert [c.get("window") for c in declared(held_recipe(regime_text=GROWS))] == ["held", None]
    assert "while the read view was held" in regime.describe(grows)
    assert "drain (seconds from the read view's release" in regime.describe(drains)


@pytest.mark.parametrize("condition, expected", [
    ('metric = "history_list_length"\nwindow = "later"', "expected one of held, released, "
                                                         "draining"),
    ('metric = "server_cpu_us_per_trx"\nwindow = "held"', "one number per run"),
    ('metric = "tps"\nstatistic = "drain"', 'expected metric = "history_list_length"'),
    ('metric = "history_list_length"\nstatistic = "drain"\nwindow = "held"',
     "drain reads the seconds after the release itself"),
])
def test_a_window_or_drain_that_cannot_be_read_is_refused(tmp_path, condition, expected):
    text = held_recipe(regime_text=f"\n[[regime]]\n{condition}\nat_least = 1\nwhy = \"w\"\n")
    assert expected in load_error(tmp_path, text)


def test_a_window_needs_a_workload_that_holds_a_view(tmp_path):
    text = held_recipe(workload=WORKLOAD, regime_text=GROWS)
    message = load_error(tmp_path, text)
    assert "regime[0].window" in message and "add [workload] hold_read_view" in message


# --- the series of a held view's run ------------------------------------------------------

def held_run(history, tps=None, released_at=4.0):
    """A run whose view was released after its second `released_at`."""
    tps = tps or [1000.0] * len(history)
    return {"summary": {"tps": 1000.0, "read_view": {"hold_s": 4.0,
                                                     "released_at_s": released_at}},
            "series": {"t": list(range(1, len(history) + 1)), "history_list_length": history,
                       "tps": tps}}


# 4 held seconds (1,000 to 40,000), then 3 seconds of drain down to the level it started at.
HISTORY = [1000, 14000, 27000, 40000, 30000, 12000, 3000, 1500, 1200, 900]
TPS = [900.0, 900.0, 900.0, 900.0, 500.0, 600.0, 700.0, 1000.0, 1000.0, 1000.0]


def test_the_windows_of_a_run_cut_at_its_release_and_its_drain():
    run = held_run(HISTORY, TPS)
    assert read_view.released_index(run) == 4
    assert read_view.window(HISTORY, run, "held") == HISTORY[:4]
    assert read_view.window(HISTORY, run, "released") == HISTORY[4:]
    # within 10% of the 39,000 backlog above 1,000 (4,900) at the third second after release
    assert read_view.drain_seconds(run) == 3
    assert read_view.window(TPS, run, "draining") == [500.0, 600.0, 700.0]
    assert read_view.window(TPS, run, None) == TPS
    assert read_view.run_summary(run) == {"backlog": 39000, "drain_s": 3, "tps_held": 900.0,
                                          "tps_released": 800.0, "tps_draining": 600.0}


def test_a_run_without_a_view_or_a_drain_has_no_window():
    plain = {"summary": {"tps": 1.0}, "series": {"history_list_length": HISTORY}}
    assert read_view.window(HISTORY, plain, "held") is None
    assert read_view.drain_seconds(plain) is None and read_view.run_summary(plain) is None
    never = held_run(HISTORY[:4] + [39000, 38000, 37000])
    assert read_view.drain_seconds(never) is None
    assert read_view.window(TPS[:7], never, "draining") is None
    unreleased = held_run(HISTORY, released_at=None)
    assert read_view.released_index(unreleased) is None


def test_a_windowed_metric_compares_each_run_over_its_own_drain():
    # Two restart points of two runs each: the baseline's runs drain in 3 s, the other's in 2;
    # each run's value is its own drain's mean throughput, and a run that never drained has none.
    fast = [1000, 14000, 27000, 40000, 20000, 2000, 1500, 1200, 900, 900]
    doc = {"sweep": {"baseline": "4"}, "plan": {"design": "restart"},
           "points": [{"id": "4", "value": "4", "runs": [held_run(HISTORY, TPS)] * 2},
                      {"id": "1", "value": "1",
                       "runs": [held_run(fast, [900.0] * 4 + [800.0, 1000.0] + [1000.0] * 4),
                                held_run(HISTORY[:4] + [39000] * 6)]}]}
    r = Result(doc)
    values, base, paired = r.compared_values(r.point("1"), "tps_draining")
    assert (values, base, paired) == ([900.0, None], [600.0, 600.0], False)


def condition(metric, statistic, window=None, bound=("at_least", 1.0), of="each"):
    return {"metric": metric, "statistic": statistic, bound[0]: bound[1], "of": of, "why": "w",
            "unit": "", **({"window": window} if window else {})}


def test_a_regime_value_reads_only_its_window():
    run = held_run(HISTORY, TPS)
    grows = regime.run_value(run, condition("history_list_length", "slope", "held"))
    assert grows == pytest.approx(13000, rel=0.01)   # a straight line: its interval is a point
    assert regime.run_value(run, condition("tps", "median", "draining")) == 600.0
    assert regime.run_value(run, condition("tps", "median", "released")) == 850.0
    assert regime.run_value(run, condition("history_list_length", "drain")) == 3
    plain = {"summary": {}, "series": {"tps": TPS}}
    assert regime.run_value(plain, condition("tps", "median", "held")) is None


def test_a_point_that_never_drains_misses_a_drain_bound():
    doc = make_doc()
    for p in doc["points"]:
        for run in p["runs"]:
            run["summary"]["read_view"] = {"hold_s": 4.0, "released_at_s": 4.0}
            run["series"] = {"t": list(range(1, 11)), "tps": TPS,
                             "history_list_length": HISTORY if p["value"] == "ON"
                             else HISTORY[:4] + [40000] * 6}
    doc = copy.deepcopy(doc)
    doc["regime"] = [condition("history_list_length", "drain", bound=("at_most", 5.0))]
    checks = {p["value"]: p["stats"]["regime"] for p in document.recompute(doc)["points"]}
    assert checks["ON"]["checks"][0] == {"condition": 0, "value": 3, "ok": True}
    assert checks["OFF"]["checks"][0] == {"condition": 0, "value": None, "ok": False}
    assert not checks["OFF"]["reached"]


# --- a redo log's checkpoint cycle (the fall statistic) --------------------------------------

def test_a_fill_that_fell_held_a_checkpoint_cycle_and_one_still_filling_did_not():
    def fill_run(fills):
        capacity = 1000
        return {"summary": {}, "series": {
            "checkpoint_age_bytes": [f * capacity / 100 for f in fills],
            "checkpoint_max_age_bytes": [capacity] * len(fills)}}
    fall = condition("checkpoint_fill_pct", "fall", bound=("at_least", 2.0))
    cycle = fill_run([10.0, 40.0, 87.5, 88.0, 3.0, 6.0])
    assert regime.run_value(cycle, fall) == pytest.approx(85.0)
    assert regime.run_value(fill_run([5.0, 10.0, 15.0, 20.0]), fall) == 0
    assert "largest fall (from a higher earlier second)" in regime.describe(fall)


def test_a_point_s_held_view_runs_in_medians():
    runs = [held_run(HISTORY, TPS), held_run(HISTORY[:4] + [39000, 38000, 37000])]
    found = read_view.point_summary(runs)
    assert found["drain_s"] == 3 and found["drained_runs"] == 1
    assert found["backlog"] == 39000
    assert read_view.point_summary([{"summary": {}, "series": {}}]) is None


def test_a_points_trends_carry_its_held_view_and_both_reports_show_its_drain():
    """The whole-run history slope of a view held then drained says little (it is negative):
    the trends carry the backlog and the drain, and the terminal's and the page's tables show
    them (the page in place of the slope)."""
    import re
    from tuninglab.results import report, timeseries
    from tuninglab.site import result_tables
    runs = [held_run(HISTORY, TPS), held_run(HISTORY, TPS)]
    t = timeseries.point_trends(runs)
    assert t["read_view"] == {"backlog": 39000, "drain_s": 3, "tps_held": 900.0,
                              "tps_released": 800.0, "tps_draining": 600.0, "drained_runs": 2}
    assert "read_view" not in timeseries.point_trends([{"series": {"tps": TPS}}])
    assert result_tables.held_view_text(t["read_view"], 2) == (
        "a backlog of 39,000 at the release, drained in 3 s (2 of 2 runs); 900 tps while "
        "held, 600 while draining")
    doc = make_doc()
    for p in doc["points"]:
        for run in p["runs"]:
            held = held_run(HISTORY, TPS)
            run["series"] = held["series"]
            run["summary"]["read_view"] = held["summary"]["read_view"]
    doc = document.recompute(doc)
    text = report.trends_table(doc)
    assert "the held read view" in text and "39,000" in text
    page = re.sub("<[^>]+>", " ", result_tables.trends(doc))
    assert "a backlog of 39,000 at the release" in page and "/s, growing" not in page


def test_a_result_whose_series_show_nothing_has_no_over_time_table():
    """A timed scan samples no seconds of load: its trends are all empty, and neither report
    prints a table of dashes for it."""
    from tuninglab.results import report
    from tuninglab.site import result_tables
    doc = make_doc()
    for p in doc["points"]:
        for run in p["runs"]:
            run["series"] = {"t": []}
    doc = document.recompute(doc)
    assert report.trends_table(doc) == ""
    assert "no per-second series" in result_tables.trends(doc)
    assert "<table" not in result_tables.trends(doc)
