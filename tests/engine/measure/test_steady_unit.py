"""The steady-state warm-up ([measure] steady, the default): what counts as still trending,
its window and bound, and sysbench stopped once the measured seconds may start."""

import random
import subprocess
import time

import pytest
from scipy.stats import t as student_t

from tuninglab.engine.measure import steady
from tuninglab.engine.workloads import sysbench
from tuninglab.recipes.model import Measure


def noisy(levels, cv=0.12, seed=1):
    rng = random.Random(seed)
    return [v * (1 + rng.gauss(0, cv)) for v in levels]


def test_a_climbing_load_is_still_trending():
    assert steady.trending(noisy([500 + 25 * t for t in range(30)]), 20)
    assert steady.trending(noisy([500 + 25 * t for t in range(10)], cv=0.03), 5)


def test_a_flat_load_is_not_trending_most_of_the_time():
    for window in (5, 20):
        called = sum(steady.trending(noisy([1000] * window, seed=s), window) for s in range(200))
        assert called <= 20  # a significant slope by chance: about 5% of the windows


def test_a_small_significant_drift_is_not_worth_waiting_for():
    # 1% over the window: significant with so little noise, yet under MAX_DRIFT
    assert not steady.trending(noisy([1000 + 0.5 * t for t in range(20)], cv=0.0005), 20)


def test_too_few_seconds_count_as_trending():
    assert steady.trending([1000.0] * 19, 20)
    assert steady.drift([1000.0, 1000.0], 20) == (0.0, False)


@pytest.mark.parametrize("df", [3, 4, 5, 8, 18, 30, 100, 1000])
def test_the_t_quantile_needs_no_scipy_and_matches_it(df):
    assert steady.t_975(df) == pytest.approx(student_t.ppf(0.975, df), abs=0.004)


@pytest.mark.parametrize("warmup, window, bound", [
    (60, 20, 100), (20, 20, 60), (10, 10, 30), (5, 5, 15),
    (3, 0, 3),    # too short to show a trend: fixed
])
def test_the_window_is_the_recipe_s_warm_up_up_to_20_s_and_the_bound_two_more(warmup, window,
                                                                               bound):
    m = Measure(warmup, 10, 1)
    assert (m.steady_window, m.warmup_bound) == (window, bound)


def test_steady_false_keeps_the_recipe_s_warm_up():
    m = Measure(20, 10, 1, steady=False)
    assert (m.steady_window, m.warmup_bound) == (0, 20)


def test_the_warm_up_ends_at_the_bound_even_while_trending():
    m = Measure(20, 10, 1)
    climbing = [100.0 + 10 * t for t in range(60)]
    assert not steady.ready(climbing[:59], m) and steady.ready(climbing, m)


def test_the_recipes_warm_up_is_a_minimum():
    flat = noisy([1000] * 40, cv=0.0)
    m = Measure(20, 10, 1)
    assert not steady.ready(flat[:19], m) and steady.ready(flat[:20], m)


INTERVAL = ("[ {t}s ] thds: 2 tps: 2610.80 qps: 15671.80 (r/w/o: 0.00/10448.20/5223.60) "
            "lat (ms,95%): 1.16 err/s: 0.00 reconn/s: 0.00")


def test_enough_stops_sysbench_before_its_time():
    script = "; ".join(f"echo '{INTERVAL.format(t=t)}'; sleep 0.2" for t in range(1, 60))
    seen = []

    def on_interval(interval):
        seen.append(interval.t)
        if len(seen) == 3:
            raise sysbench.Enough

    started = time.monotonic()
    assert sysbench.run(["sh", "-c", script], on_interval) is None
    assert seen == [1.0, 2.0, 3.0] and time.monotonic() - started < 5
    assert subprocess.run(["pgrep", "-f", "sleep 0.2; echo"], capture_output=True).stdout == b""


# --- a restart run's warm-up to a steady state (measure.warm) ---------------------------------

class Clock:
    def phase(self, *_):
        pass

    def tick(self, _interval):
        pass


def warm_up(levels, steady_on=True, warmup=5.0):
    """measure.warm over a fake sysbench whose per-second throughput is levels; the seconds
    it ran and what warm() reported."""
    from tuninglab.engine.measure import phase as measure
    from tuninglab.recipes.model import Measure
    ran, asked = [], []

    def fake_run(command, on_interval=None, timeout=None):
        asked.append(command)
        try:
            for t, tps in enumerate(levels[:command], 1):
                ran.append(t)
                if on_interval:
                    on_interval(sysbench.Interval(t, 4, tps, tps * 10, 5.0, 0.0, 0.0))
        except sysbench.Enough:
            return None

    original = sysbench.run
    sysbench.run = fake_run
    try:
        m = Measure(warmup, 10.0, 1, steady=steady_on)
        found = measure.warm(lambda seconds: int(seconds), m, Clock())
    finally:
        sysbench.run = original
    return len(ran), asked, found


def test_a_restart_run_warms_up_until_its_load_stops_trending():
    levels = noisy([400 + 30 * t for t in range(12)] + [1000] * 100, cv=0.03)
    seconds, asked, found = warm_up(levels, warmup=10.0)
    assert asked == [30]   # sysbench started for the bound, stopped once steady
    assert 10 < seconds < 30
    assert found == {"seconds": seconds, "steady": True, "bound_s": 30}


def test_a_steady_load_warms_up_for_the_recipe_s_seconds_only():
    seconds, _, found = warm_up(noisy([1000] * 100, cv=0.0), warmup=10.0)
    assert seconds == 10 and found == {"seconds": 10, "steady": True, "bound_s": 30}


def test_a_load_that_keeps_trending_warms_up_to_the_bound_and_says_so():
    seconds, _, found = warm_up([100.0 + 20 * t for t in range(100)])
    assert seconds == 15 and found == {"seconds": 15, "steady": False, "bound_s": 15}


def test_without_steady_the_warm_up_is_the_recipe_s_seconds_and_reports_nothing():
    seconds, asked, found = warm_up([1000.0] * 100, steady_on=False)
    assert (seconds, asked, found) == (5, [5], None)


def test_a_warm_up_too_short_to_show_a_trend_is_fixed():
    seconds, asked, found = warm_up([100.0 + 20 * t for t in range(100)], warmup=3.0)
    assert (seconds, asked, found) == (3, [3], None)
