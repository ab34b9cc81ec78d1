"""The duet benchmark's arithmetic on made-up halves: the A/A's trials (every four halves, two
in each placement) and the scratch recipes it runs."""

import math
import random

from tuninglab.bench import duet
from tuninglab.recipes import plan as planner
from tuninglab.recipes.load import load


def half(first: bool, effect=1.0, placement=1.05, seconds=60, seed=0, shared=0.2, own=0.01):
    """A half's record as engine/run/duet.py keeps it: both servers' per-second throughput,
    the tested one `effect` times the baseline, whoever has the first place `placement`."""
    rng = random.Random(seed)
    common = [math.exp(rng.gauss(0, shared)) for _ in range(seconds)]

    def series(gain, in_first):
        tps = [1000 * gain * (placement if in_first else 1) * c * math.exp(rng.gauss(0, own))
               for c in common]
        return {"series": {"tps": tps}, "summary": {"tps": sum(tps) / seconds}}
    return {"tested": series(effect, first), "baseline": series(1.0, not first),
            "cpus": {"tested": [0] if first else [1], "baseline": [1] if first else [0]}}


def halves(count, **kw):
    return [half(i % 2 == 0, seed=i, **kw) for i in range(count)]


def test_every_four_halves_two_in_each_placement_are_a_trial():
    called, trials = duet.false_calls(halves(8))
    assert trials == 70 * 6 and 0 <= called <= trials


def test_an_a_a_is_seldom_called_and_a_real_effect_always_is():
    called, trials = duet.false_calls(halves(8, own=0.01))
    assert called / trials <= 0.15
    # halves that differ by 30%: at least the 36 trials that swap no series are called (two
    # of the four first-place halves, two of the others; a swapped half turns the effect
    # round, which only an A/A's halves may have done)
    called, trials = duet.false_calls(halves(8, effect=1.3))
    assert called >= 36


def test_a_half_stands_for_either_placement_with_its_series_swapped():
    h = duet.duet.paired(half(True), first=True)
    swapped = duet._placed(h, False)
    assert swapped.values == h.baseline and swapped.baseline == h.values and not swapped.first
    assert duet._placed(h, True) is h


def test_the_text_says_the_count_and_the_target():
    text = duet.false_calls_text(halves(4))
    assert "of 6 trials (every four of its 4 halves, two in each placement)" in text
    assert "of the 5% target" in text


def test_the_scratch_recipes_plan_as_duets(tmp_path):
    duet.write_recipes(tmp_path)
    plans = {name: planner.build(load(name, tmp_path).experiment("full"), design="duet")
             for name in ("duet-ab", "duet-aa", "duet-disk-aa")}
    assert all(p.duet and len(p.points) == 2 for p in plans.values())
    disk = plans["duet-disk-aa"]
    assert disk.experiment.dataset.shape == "disk-bound"
    assert disk.points[0].storage["filesystem"] == "ext4"
