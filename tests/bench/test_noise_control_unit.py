"""The noise-control benchmark's arithmetic on made-up results: spreads, the F test, and the
word on each control."""

import math
import random

import pytest

from helpers import make_doc
from tuninglab.bench import noise_control
from tuninglab import calibrate


def switchback_doc(rounds, own, seed=1):
    rng = random.Random(seed)
    levels = [1000 * math.exp(rng.gauss(0, 0.1)) for _ in range(rounds)]
    return make_doc(on_tps=[lv * math.exp(rng.gauss(0, own)) for lv in levels],
                    off_tps=[lv * math.exp(rng.gauss(0, own)) for lv in levels])


def test_a_round_log_ratio_pairs_the_blocks_of_a_round():
    doc = make_doc(on_tps=[1000.0, 500.0], off_tps=[1100.0, 550.0])
    doc["sweep"]["baseline"] = "innodb_doublewrite=ON"
    assert calibrate.round_log_ratios(doc) == pytest.approx([math.log(1.1)] * 2)


def test_run_deviations_are_around_the_results_own_mean():
    doc = make_doc(on_tps=[100.0, 400.0], off_tps=[200.0, 200.0])
    devs = noise_control.run_log_deviations(doc)
    assert sum(devs) == pytest.approx(0) and len(devs) == 4


def test_pooled_sd_ignores_differences_between_groups():
    sd, df = calibrate.pooled_sd([[1.0, 3.0], [11.0, 13.0]])
    assert (sd, df) == (pytest.approx(math.sqrt(2)), 2)


def test_a_control_that_lowers_the_spread_clearly_is_kept():
    quiet = calibrate.pooled_sd([calibrate.round_log_ratios(switchback_doc(40, 0.01))])
    loud = calibrate.pooled_sd([calibrate.round_log_ratios(switchback_doc(40, 0.05))])
    p = noise_control.f_test(*quiet, *loud)
    assert p < 0.001
    assert noise_control.verdict(p, quiet[0] / loud[0]).startswith("helps")
    assert noise_control.verdict(noise_control.f_test(*loud, *quiet), loud[0] / quiet[0]) \
        .startswith("does not help here")


def test_an_equal_spread_is_not_kept():
    assert noise_control.f_test(0.05, 20, 0.05, 20) == pytest.approx(0.5)
    assert "not kept" in noise_control.verdict(0.5, 1.0)


def test_the_half_width_grows_with_the_spread_and_shrinks_with_rounds():
    assert noise_control.half_width_pct(0.05) == pytest.approx(
        (math.exp(2.093 * 0.05 / math.sqrt(20)) - 1) * 100, rel=1e-3)
    assert noise_control.half_width_pct(0.05, 40) < noise_control.half_width_pct(0.05)


def test_the_scratch_recipes_name_the_control():
    assert noise_control._pin_recipe(True).endswith("pin = true\n")
    assert "drop_caches = false" in noise_control._drop_recipe(False)
