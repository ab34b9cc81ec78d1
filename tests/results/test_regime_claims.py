"""The regime checks issue 37's corrected claims rest on, on committed results: page-table
isolation at the baseline (kernels), a scan that reads its table from the device (the 2008
scheduler scan), a redo log on a disk of its own (logs-separate)."""

import copy
import json

import pytest

from helpers import DATA
from tuninglab.errors import UserError
from tuninglab.recipes.regime import declared
from tuninglab.results import document, regime, stats
from tuninglab.results.metrics import REGIME_METRICS

KERNELS = json.loads((DATA / "kernels" / "20261124T063014Z-48806fd0-quick-mitigations-e9af8136"
                                         ".json").read_text())
SCAN = json.loads((DATA / "io-schedulers" / "20261123T123944Z-341b2f15-quick-scan-b63b7b61.json"
                   ).read_text())
LOGS = json.loads((DATA / "logs-separate" / "20261123T122834Z-341b2f15-quick-c19822f2.json"
                   ).read_text())


def with_conditions(doc, text, variant=""):
    """The doc held to the conditions a recipe text declares (as the recipe's file would)."""
    doc = copy.deepcopy(doc)
    doc["regime"] = declared(text, variant)
    return doc


def verdicts(doc):
    doc = document.recompute(doc)
    return {p["id"]: p["stats"]["ratio"]["verdict_kind"] for p in doc["points"]
            if p["stats"]["ratio"]}


def test_page_table_isolation_reads_the_cpu_flag_or_the_meltdown_file():
    assert regime.pti_value({"vulnerabilities": {"meltdown": "Mitigation: PTI"}}) == 1
    # pti=on on a CPU the kernel thinks safe: the file says "Not affected", the flag is set
    assert regime.pti_value({"vulnerabilities": {"meltdown": "Not affected"},
                             "page_table_isolation": True}) == 1
    assert regime.pti_value({"vulnerabilities": {"meltdown": "Vulnerable"},
                             "page_table_isolation": False}) == 0
    assert regime.pti_value({}) is None


PTI = """
[[regime]]
metric = "guest_pti"
at_least = 1
of = "baseline"
why = "isolation on at the baseline"
"""


def test_a_baseline_without_page_table_isolation_is_regime_not_reached():
    # both committed points read meltdown "Not affected": isolation was never on
    doc = with_conditions(KERNELS, PTI)
    assert set(verdicts(doc).values()) == {stats.REGIME_NOT_REACHED}
    for p in doc["points"]:
        for run in p["runs"]:
            run["lab"]["page_table_isolation"] = p["value"] == "auto"
    assert stats.REGIME_NOT_REACHED not in verdicts(doc).values()


SCAN_CHECK = """
[[regime]]
metric = "scan_device_read_pct"
at_least = 90
why = "the scan reads from the device"
"""


def test_a_scan_served_from_the_page_cache_is_regime_not_reached():
    run = SCAN["points"][0]["runs"][0]
    assert regime.fact_value(run, "scan_device_read_pct") == 109.1   # 380.5 of 348.8 MiB
    doc = with_conditions(SCAN, SCAN_CHECK)
    assert stats.REGIME_NOT_REACHED not in verdicts(doc).values()
    for run in document.point(doc, "storage.scheduler=bfq")["runs"]:
        run["summary"]["io"]["read_bytes"] //= 10   # nine tenths from the page cache
    found = verdicts(doc)
    assert found["storage.scheduler=bfq"] == stats.REGIME_NOT_REACHED
    assert found["storage.scheduler=kyber"] != stats.REGIME_NOT_REACHED
    no_io = copy.deepcopy(run)
    del no_io["summary"]["io"]
    assert regime.fact_value(no_io, "scan_device_read_pct") is None


MINUTE_CHECK = """
[[regime]]
metric = "scan_seconds"
at_least = 60
why = "the scan reads for a minute"
"""


def test_a_scan_shorter_than_a_minute_is_regime_not_reached():
    """Issue 59: the 2008 scans read for 300-480 s from one disk; a half-second scan of a
    cached loop device answers another question."""
    run = SCAN["points"][0]["runs"][0]
    assert regime.fact_value(run, "scan_seconds") == run["summary"]["runtime_s"] < 60
    assert set(verdicts(with_conditions(SCAN, MINUTE_CHECK)).values()) == {
        stats.REGIME_NOT_REACHED}
    slow = copy.deepcopy(SCAN)
    for p in slow["points"]:
        for r in p["runs"]:
            r["summary"]["runtime_s"] = 300.0
    assert stats.REGIME_NOT_REACHED not in verdicts(with_conditions(slow, MINUTE_CHECK)).values()
    untimed = copy.deepcopy(run)
    del untimed["summary"]["runtime_s"]
    assert regime.fact_value(untimed, "scan_seconds") is None


LOGS_CHECK = """
[sweep]
setting = "storage.logs"
values = ["same", "separate"]
baseline = "same"

[[regime]]
metric = "logs_shared_disk"
at_most = 0
point = "separate"
why = "two disks"
"""


def test_a_redo_log_on_the_datas_disk_is_regime_not_reached():
    doc = with_conditions(LOGS, LOGS_CHECK)
    # the committed runs predate the record of the disks: not shown, so not reached
    assert verdicts(doc) == {"storage.logs=separate": stats.REGIME_NOT_REACHED}
    separate = document.point(doc, "storage.logs=separate")
    for run in separate["runs"]:   # two loop devices over files on the host's one disk
        run["storage"]["physical_disks"] = ["vda"]
        run["logs_storage"]["physical_disks"] = ["vda"]
    assert verdicts(doc) == {"storage.logs=separate": stats.REGIME_NOT_REACHED}
    checks = document.recompute(copy.deepcopy(doc))
    [check] = document.point(checks, "storage.logs=separate")["stats"]["regime"]["checks"]
    assert check["value"] == 1
    for run in separate["runs"]:   # --device naming two disks
        run["logs_storage"]["physical_disks"] = ["vdb"]
    assert verdicts(doc)["storage.logs=separate"] != stats.REGIME_NOT_REACHED
    same = document.point(doc, "storage.logs=same")
    assert regime.fact_value(same["runs"][0], "logs_shared_disk") is None   # no log device


def test_the_new_facts_take_no_statistic():
    bad = SCAN_CHECK.replace("at_least", 'statistic = "max"\nat_least')
    with pytest.raises(UserError, match="regime\\[0\\].statistic: scan_device_read_pct is one "
                                        "number per run"):
        declared(bad)


def test_the_result_schema_takes_every_metric_a_condition_may_name():
    """A result file carries its conditions (regime[i].metric, an enum in the schema): a metric
    the schema lacks fails the write of every run of a recipe that names it."""
    doc = with_conditions(LOGS, LOGS_CHECK)
    assert document.validate(document.recompute(doc)) == []
    enums = []

    def walk(node):
        if isinstance(node, dict):
            enum = node.get("enum")
            if isinstance(enum, list) and "checkpoint_fill_pct" in enum:
                enums.append(enum)
            for value in node.values():
                walk(value)
        elif isinstance(node, list):
            for value in node:
                walk(value)
    walk(document.schema())
    assert enums and all(set(REGIME_METRICS) <= set(e) for e in enums)
