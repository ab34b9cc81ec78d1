"""The stop rule aimed at claims (Options.aims, handed to stop_rule): each claim's comparison
within its own aim, --precision overriding them, and the smallest effect when no claim is aimed
at."""

from helpers import STOP_RULE_START as START, doc_with, tiny_plan
from tuninglab.engine.run import stop_rule
from tuninglab.results import stats


WIDE = ((1000.0, 1100.0, 900.0), (1500.0, 1300.0, 1700.0))    # OFF / ON about ±25%
NARROW = ((1000.0, 1001.0, 999.0), (1500.0, 1501.0, 1499.0))  # within ±1%


def aim(pct, claim="c1", metric=""):
    return (("tiny", (stop_rule.Aim("OFF", metric, pct, claim),)),)


def test_without_precision_the_target_is_the_tightest_aim(tmp_path):
    plan = tiny_plan(tmp_path, budget="1h")
    both = (("tiny", (stop_rule.Aim("OFF", "", 8.0, "c1"), stop_rule.Aim("OFF", "", 5.5, "c2"))),)
    assert stop_rule.target_pct(plan) == 3.0  # no aim: the smallest effect worth knowing
    assert stop_rule.target_pct(plan, both) == 5.5
    assert "c1 ±8%, c2 ±5.5%" in stop_rule.describe(plan, both)
    assert stop_rule.aims_of(plan, (("tiny:other", both[0][1]),)) == ()  # another recipe's


def test_precision_overrides_the_aims(tmp_path):
    plan = tiny_plan(tmp_path, precision="2%", budget="1h")
    aims = aim(40.0)
    assert stop_rule.target_pct(plan, aims) == 2.0 and stop_rule.aims_of(plan, aims) == ()
    bigger, why = stop_rule.next_round(plan, doc_with(*WIDE), now=START, aims=aims)
    assert bigger is not None and "not within ±2%" in why


def test_an_aim_met_stops_and_names_the_claim(tmp_path):
    plan = tiny_plan(tmp_path, budget="1h")
    bigger, why = stop_rule.next_round(plan, doc_with(*WIDE), now=START,
                                       aims=aim(40.0, "redo-claim"))
    assert bigger is None
    assert why.startswith("stop rule: claims: redo-claim ±") and "(aim ±40%)" in why
    assert why.endswith("each within its aim")


def test_an_aim_not_met_adds_a_round(tmp_path):
    plan = tiny_plan(tmp_path, budget="1h")
    bigger, why = stop_rule.next_round(plan, doc_with(*WIDE), now=START, aims=aim(5.0))
    assert bigger.experiment.measure.repeats == 4
    assert why.endswith("not each within its aim: round 4")
    done, _ = stop_rule.next_round(plan, doc_with(*NARROW), now=START, aims=aim(5.0))
    assert done is None


def test_the_aim_is_the_result_own_half_width_as_the_pool_computes_it(tmp_path):
    plan = tiny_plan(tmp_path, budget="1h")
    doc = doc_with(*WIDE)
    width = stop_rule.aim_pct(doc, plan, stop_rule.Aim("OFF", "", 1.0, "c"))
    # the same comparison as the stored ratio's 95% interval (Welch on the logs), within 1%
    ratio = stats.compare([1500.0, 1300.0, 1700.0], [1000.0, 1100.0, 900.0]).to_dict()
    assert abs(width - stats.ratio_half_width_pct(ratio)) < 1.0


def test_an_aim_at_a_metric_the_runs_lack_does_not_hold_the_rule(tmp_path):
    plan = tiny_plan(tmp_path, budget="1h")
    bigger, why = stop_rule.next_round(plan, doc_with(*WIDE), now=START,
                                       aims=aim(5.0, "cost-claim", "device_read_bytes_per_trx"))
    assert bigger is None and "cost-claim not measured" in why


def test_the_record_keeps_the_tightest_aim_and_a_short_reason(tmp_path):
    plan = tiny_plan(tmp_path, budget="1h")
    doc = doc_with(*WIDE)
    stop_rule.record(doc, plan, "stop rule: " + "x" * 400, aim(12.5))
    assert doc["plan"]["precision_pct"] == 12.5 and len(doc["plan"]["stopped"]) == 300
