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
