"""The steady-state check of a switchback's warm-up ([measure] steady): what counts as still
trending, its bound, and sysbench stopped once the blocks have their seconds."""

import random
import subprocess
import time

from tuninglab.engine import steady
from tuninglab.engine.workloads import sysbench


def noisy(levels, cv=0.12, seed=1):
    rng = random.Random(seed)
    return [v * (1 + rng.gauss(0, cv)) for v in levels]


def test_a_climbing_load_is_still_trending():
    assert steady.trending(noisy([500 + 25 * t for t in range(30)]))


def test_a_flat_load_is_not_trending_most_of_the_time():
    called = sum(steady.trending(noisy([1000] * 20, seed=s)) for s in range(200))
    assert called <= 20  # a significant slope by chance: about 5% of the windows


def test_a_small_significant_drift_is_not_worth_waiting_for():
    # 1% over the window: significant with so little noise, yet under MAX_DRIFT
    assert not steady.trending(noisy([1000 + 0.5 * t for t in range(20)], cv=0.0005))


def test_too_few_seconds_count_as_trending():
    assert steady.trending([1000.0] * (steady.WINDOW_S - 1))
    assert steady.drift([1000.0, 1000.0]) == (0.0, False)


def test_the_warm_up_ends_at_the_bound_even_while_trending():
    assert steady.bound(20) == 60 and steady.bound(5) == 45
    climbing = [100.0 + 10 * t for t in range(60)]
    assert not steady.ready(climbing[:59], 20) and steady.ready(climbing, 20)


def test_the_recipes_warm_up_is_a_minimum():
    flat = noisy([1000] * 40, cv=0.0)
    assert not steady.ready(flat[:19], 20) and steady.ready(flat[:20], 20)


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
    from tuninglab.engine import measure
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
    levels = noisy([400 + 30 * t for t in range(20)] + [1000] * 100, cv=0.03)
    seconds, asked, found = warm_up(levels)
    assert asked == [45]   # sysbench started for the bound, stopped once steady
    assert 20 < seconds < 45
    assert found == {"seconds": seconds, "steady": True, "bound_s": 45}


def test_a_load_that_keeps_trending_warms_up_to_the_bound_and_says_so():
    seconds, _, found = warm_up([100.0 + 20 * t for t in range(100)])
    assert seconds == 45 and found == {"seconds": 45, "steady": False, "bound_s": 45}


def test_without_steady_the_warm_up_is_the_recipe_s_seconds_and_reports_nothing():
    seconds, asked, found = warm_up([1000.0] * 100, steady_on=False)
    assert (seconds, asked, found) == (5, [5], None)
