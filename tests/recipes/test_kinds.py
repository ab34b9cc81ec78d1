"""The workload kinds (results/metrics.TOOLS, each with its primary metric, and the schema's
enum) and the rule of the lab VM (model.in_lab_vm), each defined once."""

from tuninglab.recipes.model import Workload, in_lab_vm
from tuninglab.results import document
from tuninglab.results.metrics import PRIMARY, SCAN, SYSBENCH, TOOLS, TPCC


def test_results_know_the_same_workload_kinds():
    assert set(PRIMARY) == set(TOOLS) == {SYSBENCH, SCAN, TPCC}
    tool = document.schema()["properties"]["workload"]["properties"]["tool"]
    assert tool["enum"] == list(TOOLS)


def test_a_workload_says_which_kind_it_is():
    kinds = {tool: Workload(tool, "x", 1) for tool in TOOLS}
    assert [t for t, w in kinds.items() if w.is_tpcc] == [TPCC]
    assert [t for t, w in kinds.items() if w.is_scan] == [SCAN]
    assert [t for t, w in kinds.items() if w.timed] == [SYSBENCH, TPCC]


def test_any_of_raid_lab_or_zfs_puts_a_recipe_in_the_lab_vm():
    assert not in_lab_vm((), (), ())
    assert in_lab_vm((("level", "1"),), (), ())
    assert in_lab_vm((), (("kernel", "amd64"),), ())
    assert in_lab_vm((), (), (("recordsize", "16K"),))
