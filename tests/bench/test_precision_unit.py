"""The precision benchmark's arithmetic on made-up results: half-widths and the A/A trials."""

import math
import random

import pytest

from helpers import make_doc
from tuninglab.bench import precision
from tuninglab.results import stats


def a_a_doc(rounds, shared, own, seed=3, shift=1.0):
    """A switchback result of `rounds` rounds whose two points run the same thing (`shift`
    times the baseline's level), each round's level moving by `shared`, each block by `own`."""
    rng = random.Random(seed)
    levels = [1000 * math.exp(rng.gauss(0, shared)) for _ in range(rounds)]
    doc = make_doc(on_tps=[lv * math.exp(rng.gauss(0, own)) for lv in levels],
                   off_tps=[lv * shift * math.exp(rng.gauss(0, own)) for lv in levels])
    doc["plan"].update(design="switchback", settle_s=2.0, repeats=rounds)
    return doc


def test_equal_settings_are_called_different_about_as_often_as_the_level_allows():
    rate = precision.false_verdict_rate(a_a_doc(40, 0.1, 0.03), trials=400)
    assert rate <= 0.12


def test_the_trials_are_drawn_from_the_seed():
    doc = a_a_doc(40, 0.1, 0.05)
    assert precision.false_verdict_rate(doc, trials=100, seed=4) == \
        precision.false_verdict_rate(doc, trials=100, seed=4)


def test_too_few_rounds_for_a_trial_is_an_error():
    with pytest.raises(ValueError, match="3 rounds, fewer than a trial's 20"):
        precision.false_verdict_rate(a_a_doc(3, 0.1, 0.01))


def test_half_width_is_relative_to_the_ratio():
    assert stats.ratio_half_width_pct({"ratio": 1.2, "ci_low": 1.14, "ci_high": 1.26}) == \
        pytest.approx(5.0)


def test_the_bench_recipes_are_valid_recipes(tmp_path):
    from tuninglab.recipes.load import load
    for name, sweep, rounds in (precision.AB, precision.AA):
        (tmp_path / name).mkdir()
        (tmp_path / name / "recipe.toml").write_text(precision.recipe_text(sweep, rounds))
        e = load(name, recipes_dir=tmp_path).experiment()
        assert e.measure.design == "switchback" and e.measure.repeats == rounds
        assert (e.measure.warmup, e.measure.settle, e.measure.duration) == (20, 2, 5)
        assert e.sweep.setting == sweep["setting"]
