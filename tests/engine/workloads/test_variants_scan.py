"""Recipe variants and the scan workload: loading, merging, planning, result documents."""

import pytest

from helpers import fixture_recipe_text, make_doc, write_recipe
from tuninglab.engine.run import record
from tuninglab.engine.server.mysqld import ServerBinary
from tuninglab.engine.workloads import scan
from tuninglab.errors import UserError
from tuninglab.recipes import plan
from tuninglab.recipes.load import load, load_all
from tuninglab.results import document, report

# The main experiment (a scheduler sweep on an ext4 sandbox); the tests add variants to it.
MAIN = fixture_recipe_text("scheduler-sweep")

SCAN = '''
[variants.scan.workload]
tool = "scan"
[variants.scan.server.settings]
innodb_flush_method = "fsync"
'''


def test_variants_follow_the_main_experiment(tmp_path):
    write_recipe(tmp_path, "demo", MAIN + SCAN + '[variants.xfs.storage]\nfilesystem = "xfs"\n')
    main, scan_, xfs = load_all("demo", tmp_path)
    assert (main.variant, scan_.variant, xfs.variant) == ("", "scan", "xfs")
    assert scan_.label == "demo:scan" and main.label == "demo"
    # a workload is replaced whole: the scan inherits neither script nor threads
    assert (scan_.workload.tool, scan_.workload.script, scan_.workload.threads) == \
        ("scan", "full-scan", 1)
    assert dict(scan_.server_settings) == {"innodb_flush_method": "fsync"}
    assert main.server_settings == ()
    # other tables merge key by key
    assert dict(xfs.storage)["filesystem"] == "xfs" and dict(xfs.storage)["size"] == "2G"
    assert xfs.workload == main.workload and xfs.sweep == main.sweep
    assert load("demo", tmp_path, "xfs") == xfs


def test_unknown_variant_names_the_known_ones(tmp_path):
    write_recipe(tmp_path, "demo", MAIN + SCAN)
    with pytest.raises(UserError, match=r"no variant 'ssd' \(variants: scan\)"):
        load("demo", tmp_path, "ssd")


@pytest.mark.parametrize("extra,message", [
    ('[variants.Bad_Name]\ntitle = "x"\n', "variants.Bad_Name: expected a variant name"),
    ('[variants.x]\nneeds = ["kvm"]\n', "variants.x.needs: unknown key"),
    ('[variants.x.workload]\ntool = "hammerdb"\n', "variants.x.workload.tool: expected one of"),
    ('[variants.x.sweep]\nvalues = ["none", "none"]\n', "variants.x.sweep.values: expected one"),
])
def test_bad_variants_name_the_key(tmp_path, extra, message):
    path = write_recipe(tmp_path, "demo", MAIN + extra)
    with pytest.raises(UserError) as info:
        load_all("demo", tmp_path)
    assert str(path) in str(info.value) and message in str(info.value)


def test_a_scan_needs_a_sandbox(tmp_path):
    text = MAIN.replace('[storage]\nfilesystem = "ext4"\n', "").replace(
        'setting = "storage.scheduler"', 'setting = "innodb_doublewrite"').replace(
        '"none", "bfq"', '"ON", "OFF"')
    write_recipe(tmp_path, "demo", text + SCAN)
    with pytest.raises(UserError, match="variants.scan.workload.tool: a scan needs a "
                                        r"\[storage\] table"):
        load_all("demo", tmp_path)


def test_a_scan_ignores_timed_settings_and_plans_by_size(tmp_path):
    write_recipe(tmp_path, "demo", MAIN + SCAN)
    r = load("demo", tmp_path, "scan")
    e = r.experiment("quick", repeats=2, duration="30s", warmup="5s")
    assert (e.measure.warmup, e.measure.duration, e.measure.repeats) == (0, 0, 2)
    assert e.workload.threads == 1 and e.workload.metric == "mib_per_s"
    assert e.settings_for("bfq")["innodb_buffer_pool_load_at_startup"] == "OFF"
    p = plan.build(e)
    rows = e.dataset.tables * e.dataset.table_size
    assert p.run_seconds() == pytest.approx(plan.SCAN_ROW_S * rows + plan.RUN_OVERHEAD_S)
    assert "a full scan of every table" in plan.describe(p, "MariaDB 10.11")
    both = plan.profile_estimates(load_all("demo", tmp_path))["quick"]
    alone = plan.profile_estimates([load("demo", tmp_path)])["quick"]
    assert both > alone


def test_scan_statements_read_the_clustered_index():
    sqls = scan.statements(3)
    assert len(sqls) == 3 and sqls[2].startswith("SELECT COUNT(*), SUM(LENGTH(c)) FROM "
                                                 "sbtest.sbtest3 FORCE INDEX (PRIMARY)")


def test_scan_summary_rate():
    s = scan.summarize(2.0, 1000, 100 * 2**20)
    assert s == {"runtime_s": 2.0, "rows": 1000, "scanned_bytes": 100 * 2**20, "mib_per_s": 50.0}
    with pytest.raises(ValueError):
        scan.summarize(0, 1, 1)


def scan_doc(rates=((100.0, 101.0, 99.0), (150.0, 151.0, 149.0))):
    doc = make_doc()
    doc["variant"] = "scan"
    doc["workload"] = {"tool": "scan", "script": "full-scan", "threads": 1,
                       "metric": "mib_per_s", "command": scan.statements(8)}
    for p, point_rates in zip(doc["points"], rates):
        for run, rate in zip(p["runs"], point_rates):
            run["summary"] = {**scan.summarize(400 / rate, 1_600_000, 400 * 2**20),
                              "io": {"reads": 3000, "writes": 2, "read_bytes": 420 * 2**20,
                                     "write_bytes": 8192}}
            run["series"] = {"t": [1, 2], "disk_read_bytes": [1e8, 9e7]}
    return doc


def test_a_scan_result_is_valid_and_compared_by_its_rate(tmp_path):
    doc = document.finish(scan_doc())
    assert document.validate(doc) == []
    off = doc["points"][1]["stats"]
    assert off["mib_per_s"]["median"] == pytest.approx(150.0, rel=1e-3)
    assert off["ratio"]["ratio"] == pytest.approx(1.5, rel=1e-2)
    assert "tps" not in off
    assert "geo. mean MiB/s" in report.results_table(doc)
    assert document.final_path(doc, tmp_path).name.endswith("-quick-scan.json")


def test_a_scan_run_summary_needs_its_fields():
    doc = document.finish(scan_doc())
    del doc["points"][0]["runs"][1]["summary"]["runtime_s"]
    problems = document.validate(doc)
    assert problems and problems[0].startswith("points/0/runs/1/summary")


def test_run_lines_for_both_workloads():
    doc = scan_doc()
    line = report.run_line(doc["points"][0]["runs"][0]["summary"])
    assert line.startswith("scan 4.00s, 100.0 MiB/s (400 MiB read by InnoDB, 420 MiB read from")
    assert "tps" in report.run_line(make_doc()["points"][0]["runs"][0]["summary"])


def test_a_run_without_a_device_of_its_own_says_the_servers_own_writes():
    summary = make_doc()["points"][0]["runs"][0]["summary"]
    summary["io"] = {"write_bytes_per_trx": None}
    assert "written/trx" not in report.run_line(summary)
    summary["cost"] = {"server_write_bytes_per_trx": 2048.0}   # a duet's, on a shared disk
    assert report.run_line(summary).endswith(", 2.0 KiB written/trx by the server")
    summary["io"] = {"write_bytes_per_trx": 4096.0}
    assert report.run_line(summary).endswith(", 4.0 KiB written/trx")


def test_new_document_names_the_variant_and_metric(tmp_path):
    write_recipe(tmp_path, "demo", MAIN + SCAN)
    p = plan.build(load("demo", tmp_path, "scan").experiment("quick"))
    binary = ServerBinary("/usr/sbin/mariadbd", "mariadb", (10, 11, 19), "mariadbd Ver 10.11.19")
    hand = make_doc()
    doc = record.new_document(p, binary, {k: hand[k] for k in
                                           ("software", "host", "storage", "device_baseline")})
    assert doc["variant"] == "scan" and doc["workload"]["metric"] == "mib_per_s"
    assert doc["workload"]["command"] == scan.statements(8)
    assert document.validate(doc) == []
    main = plan.build(load("demo", tmp_path).experiment("quick"))
    assert record.resume_key(main, binary) != record.resume_key(p, binary)
