"""Unit tests for tuninglab.plan: interleaved run order, run keys, estimate and dry-run listing."""

from collections import Counter

import pytest

from helpers import fixture_recipe
from tuninglab.recipes import plan
from tuninglab.recipes.load import load
from tuninglab.units import human_seconds


def flush_method(tmp_path, name, values, baseline, repeats, replace=None):
    """The flush-method fixture recipe, its sweep's values and baseline and its repeats set (and
    replace's edits made), written as <name> under tmp_path; its full experiment."""
    fixture_recipe(tmp_path, "flush-method", name, replace={
        'values = ["fsync", "O_DSYNC", "O_DIRECT"]':
            "values = [" + ", ".join(f'"{v}"' for v in values) + "]",
        'baseline = "fsync"': f'baseline = "{baseline}"',
        "repeats = 3": f"repeats = {repeats}",
        **(replace or {})})
    return load(name, recipes_dir=tmp_path).experiment()


def experiment(tmp_path, values=("fsync", "O_DSYNC", "O_DIRECT"), baseline="fsync", repeats=3):
    return flush_method(tmp_path, "flush", values, baseline, repeats)


def order_of(p, repeat):
    return [r.point.value for r in p.runs if r.repeat == repeat]


# --- points -------------------------------------------------------------------------------------

def test_points_follow_the_sweep_values(tmp_path):
    p = plan.build(experiment(tmp_path))
    assert [pt.value for pt in p.points] == ["fsync", "O_DSYNC", "O_DIRECT"]
    assert [pt.id for pt in p.points] == ["innodb_flush_method=fsync",
                                          "innodb_flush_method=O_DSYNC",
                                          "innodb_flush_method=O_DIRECT"]


def test_point_settings_are_the_experiments(tmp_path):
    e = experiment(tmp_path)
    p = plan.build(e)
    for pt in p.points:
        assert pt.settings == e.settings_for(pt.value)
        assert pt.settings["innodb_flush_method"] == pt.value


def test_baseline_point(tmp_path):
    p = plan.build(experiment(tmp_path, baseline="O_DIRECT"))
    assert p.baseline.value == "O_DIRECT"
    assert p.baseline.id == "innodb_flush_method=O_DIRECT"


@pytest.mark.parametrize("value,expected", [
    ("ON", "innodb_doublewrite=ON"),
    ("64M", "innodb_doublewrite=64M"),
    ("a b/c", "innodb_doublewrite=a_b_c"),
    ("x:y*z", "innodb_doublewrite=x_y_z"),
    ("1.5-beta_2", "innodb_doublewrite=1.5-beta_2"),
])
def test_point_id_is_file_name_safe(value, expected):
    assert plan.point_id("innodb_doublewrite", value) == expected


# --- interleaving -------------------------------------------------------------------------------

def test_each_repeat_visits_every_point_once(tmp_path):
    p = plan.build(experiment(tmp_path, repeats=4))
    assert len(p.runs) == 3 * 4
    for repeat in range(1, 5):
        assert sorted(order_of(p, repeat)) == sorted(["fsync", "O_DSYNC", "O_DIRECT"])


def test_runs_are_grouped_by_repeat_in_order(tmp_path):
    p = plan.build(experiment(tmp_path, repeats=3))
    assert [r.repeat for r in p.runs] == [1, 1, 1, 2, 2, 2, 3, 3, 3]
    assert [r.index for r in p.runs] == list(range(9))


def rotations(order):
    return {tuple(order[shift:] + order[:shift]) for shift in range(len(order))}


@pytest.mark.parametrize("seed", [1, 2, 3, 42])
def test_each_group_of_rounds_is_the_rotations_of_one_order(tmp_path, seed):
    p = plan.build(experiment(tmp_path, repeats=6), seed=seed)
    for group in ((1, 2, 3), (4, 5, 6)):
        orders = [order_of(p, repeat) for repeat in group]
        assert {tuple(o) for o in orders} == rotations(orders[0])


def test_orders_are_drawn_anew_for_each_group(tmp_path):
    values = [f"v{i}" for i in range(4)]
    p = plan.build(experiment(tmp_path, values=values, baseline="v0", repeats=40), seed=5)
    groups = {frozenset(rotations(order_of(p, first))) for first in range(1, 41, 4)}
    assert len(groups) > 1  # not one order rotated throughout


def test_two_points_come_in_balanced_pairs_of_rounds(tmp_path):
    p = plan.build(experiment(tmp_path, values=["a", "b"], baseline="a", repeats=20), seed=3)
    pairs = [(order_of(p, r), order_of(p, r + 1)) for r in range(1, 21, 2)]
    assert all(first == second[::-1] for first, second in pairs)
    assert len({tuple(first) for first, _ in pairs}) == 2  # AB BA and BA AB both drawn


@pytest.mark.parametrize("n_points,repeats", [(2, 2), (2, 6), (3, 3), (3, 6), (4, 8), (5, 5)])
def test_each_point_in_each_position_equally_often(tmp_path, n_points, repeats):
    values = [f"v{i}" for i in range(n_points)]
    p = plan.build(experiment(tmp_path, values=values, baseline="v0", repeats=repeats), seed=7)
    positions = Counter()
    for repeat in range(1, repeats + 1):
        for position, value in enumerate(order_of(p, repeat)):
            positions[value, position] += 1
    expected = repeats // n_points
    assert positions == {(v, i): expected for v in values for i in range(n_points)}


def test_same_seed_same_order(tmp_path):
    e = experiment(tmp_path, values=[f"v{i}" for i in range(6)], baseline="v0")
    a, b = plan.build(e, seed=11), plan.build(e, seed=11)
    assert [r.key for r in a.runs] == [r.key for r in b.runs]
    assert a.seed == b.seed == 11


def test_another_seed_can_give_another_order(tmp_path):
    e = experiment(tmp_path, values=[f"v{i}" for i in range(6)], baseline="v0")
    orders = {tuple(order_of(plan.build(e, seed=s), 1)) for s in range(1, 11)}
    assert len(orders) > 1


def test_default_seed_is_one(tmp_path):
    e = experiment(tmp_path)
    assert plan.build(e).seed == 1
    assert [r.key for r in plan.build(e).runs] == [r.key for r in plan.build(e, seed=1).runs]


def test_single_point(tmp_path):
    p = plan.build(experiment(tmp_path, values=["fsync"], repeats=3))
    assert [r.key for r in p.runs] == [f"innodb_flush_method=fsync#{i}" for i in (1, 2, 3)]


def test_run_keys_are_unique(tmp_path):
    p = plan.build(experiment(tmp_path, repeats=7))
    keys = [r.key for r in p.runs]
    assert len(set(keys)) == len(keys) == 21
    assert "innodb_flush_method=O_DIRECT#7" in keys


def test_run_key_format(tmp_path):
    p = plan.build(experiment(tmp_path), design="restart")
    run = p.runs[0]
    assert run.key == f"{run.point.id}#{run.repeat}"


# --- estimate -----------------------------------------------------------------------------------

def test_run_seconds(tmp_path):
    p = plan.build(experiment(tmp_path), design="restart")
    assert p.run_seconds() == 10 + 30 + plan.RUN_OVERHEAD_S


def test_estimate_by_hand(tmp_path):
    e = experiment(tmp_path, repeats=2)
    p = plan.build(e, design="restart")
    rows = e.dataset.tables * e.dataset.table_size
    template = plan.TEMPLATE_BASE_S + plan.TEMPLATE_PER_ROW_S * rows
    assert p.estimate() == pytest.approx(6 * (40 + plan.RUN_OVERHEAD_S) + template
                                         + plan.BASELINE_S)


def test_estimate_grows_with_repeats(tmp_path):
    estimates = [plan.build(experiment(tmp_path, repeats=n)).estimate() for n in (1, 2, 5, 10)]
    assert estimates == sorted(estimates)
    assert len(set(estimates)) == 4


def test_estimate_drops_when_template_cached_or_baseline_done(tmp_path):
    p = plan.build(experiment(tmp_path), design="restart")
    full = p.estimate()
    cached = p.estimate(template_cached=True)
    done = p.estimate(baseline_done=True)
    both = p.estimate(template_cached=True, baseline_done=True)
    assert cached < full and done < full and both < cached and both < done
    assert full - done == pytest.approx(plan.BASELINE_S)
    assert both == pytest.approx(len(p.runs) * p.run_seconds())


def test_estimate_counts_only_pending_runs(tmp_path):
    p = plan.build(experiment(tmp_path), design="restart")
    pending = list(p.runs[4:])
    assert p.estimate(pending, True, True) == pytest.approx(len(pending) * p.run_seconds())
    assert p.estimate([], True, True) == 0


# --- describe -----------------------------------------------------------------------------------

def test_describe_mentions_everything(tmp_path):
    p = plan.build(experiment(tmp_path), seed=5, design="restart")
    text = plan.describe(p, "MariaDB 10.11.19")
    assert "recipe flush (full profile): Which innodb_flush_method is fastest?" in text
    assert "server MariaDB 10.11.19" in text
    assert "sysbench oltp_write_only, 2 threads" in text
    assert ("each run: at least 10s, longer while its throughput still trends (at most 30s) "
            "warm-up (discarded) + 30s measured; 3 repeats per point; seed 5") in text
    assert "data shape cpu-bound: 4 tables x 50000 rows, buffer pool 256M" in text
    for pt in p.points:
        assert f"  {pt.id}" in text
    assert "  innodb_flush_method=fsync (baseline)" in text
    assert text.count("(baseline)") == 1
    assert "run order (9 runs):" in text
    assert "(done)" not in text
    for repeat in (1, 2, 3):
        assert f"  repeat {repeat}: " + ", ".join(order_of(p, repeat)) in text


def test_describe_shows_the_estimate(tmp_path):
    p = plan.build(experiment(tmp_path), design="restart")
    text = plan.describe(p, "MySQL 8.4.3")
    assert f"estimated time: {human_seconds(p.estimate())}" in text
    assert "(includes building the template datadir)" in text
    text = plan.describe(p, "MySQL 8.4.3", template_cached=True, baseline_done=True)
    assert f"estimated time: {human_seconds(p.estimate(None, True, True))}" in text
    assert "template datadir" not in text


def test_describe_marks_done_runs(tmp_path):
    p = plan.build(experiment(tmp_path), design="restart")
    done = p.runs[:4]
    pending = list(p.runs[4:])
    text = plan.describe(p, "MariaDB 10.11.19", pending)
    assert "run order (9 runs, 4 already done):" in text
    assert text.count("(done)") == 4
    row1 = next(line for line in text.splitlines() if line.startswith("  repeat 1: "))
    assert row1 == "  repeat 1: " + ", ".join(f"{r.point.value} (done)" for r in p.runs[:3])
    row2 = next(line for line in text.splitlines() if line.startswith("  repeat 2: "))
    assert row2.startswith(f"  repeat 2: {done[3].point.value} (done), ")
    assert f"estimated time: {human_seconds(p.estimate(pending))}" in text


# --- a workload.* sweep: each point its own workload --------------------------------------------

def batch_experiment(tmp_path):
    return flush_method(tmp_path, "batch", ("statement", "100", "1s"), "statement", 2, replace={
        'script = "oltp_write_only"\nthreads = 2\n':
            'script = "insert_batch"\nthreads = 1\n\n[workload.options]\nkey = "primary"\n',
        'setting = "innodb_flush_method"': 'setting = "workload.commit"'})


def test_points_get_their_workload_options(tmp_path):
    e = batch_experiment(tmp_path)
    p = plan.build(e)
    assert [pt.id for pt in p.points] == ["workload.commit=statement", "workload.commit=100",
                                          "workload.commit=1s"]
    for pt in p.points:
        assert dict(pt.workload.options) == {"commit": pt.value, "key": "primary"}
        assert (pt.workload.script, pt.workload.threads) == ("insert_batch", 1)
        assert pt.settings == e.settings_for(pt.value)  # the server is the same at every point
    assert p.baseline.workload.options == (("commit", "statement"), ("key", "primary"))


def test_points_of_other_sweeps_share_the_experiments_workload(tmp_path):
    e = experiment(tmp_path)
    assert all(pt.workload == e.workload for pt in plan.build(e).points)


def test_describe_names_the_fixed_options(tmp_path):
    text = plan.describe(plan.build(batch_experiment(tmp_path)), "MariaDB 10.11.19")
    assert "sysbench insert_batch --key=primary, 1 threads" in text
    assert "--commit" not in text   # swept: the points show it
    assert "  workload.commit=statement (baseline)" in text


def test_a_steady_state_warm_up_is_described_and_estimated_with_its_bound(tmp_path):
    e = flush_method(tmp_path, "steady", ("fsync", "O_DIRECT"), "fsync", 2)
    p = plan.build(e, design="restart")
    assert e.measure.steady and e.measure.warmup_bound == 30   # 10 s + two 10 s windows
    assert p.run_seconds() == 10 + 30 + plan.RUN_OVERHEAD_S
    assert p.run_seconds(at_most=True) == 30 + 30 + plan.RUN_OVERHEAD_S
    text = plan.describe(p, "MariaDB 10.11.19")
    assert ("each run: at least 10s, longer while its throughput still trends (at most 30s) "
            "warm-up (discarded) + 30s measured") in text
    assert "if every warm-up runs to its bound" in text


def test_steady_false_is_a_fixed_warm_up(tmp_path):
    e = flush_method(tmp_path, "fixed", ("fsync", "O_DIRECT"), "fsync", 2,
                     replace={"[measure]": "[measure]\nsteady = false"})
    p = plan.build(e, design="restart")
    assert p.run_seconds() == p.run_seconds(at_most=True)
    text = plan.describe(p, "MariaDB 10.11.19")
    assert "each run: 10s warm-up (discarded)" in text and "its bound" not in text


def test_a_threads_sweep_runs_each_point_with_its_threads_and_says_so(tmp_path):
    e = flush_method(tmp_path, "threads", ("1", "4", "64"), "4", 2, replace={
        'setting = "innodb_flush_method"': 'setting = "workload.threads"'})
    p = plan.build(e)
    assert [pt.workload.threads for pt in p.points] == [1, 4, 64]
    assert p.design == "restart"  # the clients change, not the server
    text = plan.describe(p, "MariaDB 10.11.19")
    assert "sysbench oltp_write_only, the sweep's client threads" in text
    assert "  workload.threads=4 (baseline)" in text
