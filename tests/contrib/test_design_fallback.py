"""A switchback's fallback to restart is recorded and required (contrib/design.py): a restart
result of a recipe whose design ("auto") would have switched carries plan/fallback, which
names swept settings; a switchback of a setting the recorded server reads only at startup is
refused. Results from before the engine recorded it (RECORDS_FALLBACK_FROM) pass without."""

import json

import pytest

from helpers import DATA, committed_results, result_problems as problems_of
from tuninglab.contrib import design
from tuninglab.results import document

# doublewrite --quick, "auto", measured as restarts on MariaDB 10.11.19 (the server reads
# innodb_doublewrite only at startup), started 2026-11-24: before the rule
RESTART = DATA / "doublewrite" / "20261124T044854Z-48806fd0-quick-a005932b.json"
REDO = DATA / "redo-size" / "20261124T043959Z-48806fd0-quick-938e4700.json"  # design "restart"
SWITCHBACK = DATA / "flush-log-at-trx-commit" / "20261123T124052Z-341b2f15-quick-4831c4f7.json"
FALLBACK = {"from": "switchback", "reason": "MariaDB 10.11.19 reads innodb_doublewrite only "
                                            "at startup", "startup_only": ["innodb_doublewrite"]}
MISSING = ("plan/fallback: missing; expected the engine's record of why this restart design is "
           "no switchback (the recipe's design is \"auto\" and its sweep changes only server "
           "settings, so the engine switches them unless the server reads one only at startup)")


def doc_of(path):
    return json.loads(path.read_text())


@pytest.fixture
def recorded(monkeypatch):
    """The rule in force from before the committed files' dates: as for a file made today."""
    monkeypatch.setattr(design, "RECORDS_FALLBACK_FROM", "2026-11-01T00:00:00+00:00")


def test_a_restart_of_an_auto_recipe_without_its_fallback_is_refused(tmp_path, recorded):
    path, problems = problems_of(tmp_path, doc_of(RESTART))
    assert problems == [f"{path}: {MISSING}"]


def test_the_recorded_fallback_is_accepted(tmp_path, recorded):
    doc = doc_of(RESTART)
    doc["plan"]["fallback"] = FALLBACK
    assert problems_of(tmp_path, doc)[1] == []


def test_a_fallback_naming_a_setting_the_sweep_does_not_change(tmp_path, recorded):
    doc = doc_of(RESTART)
    doc["plan"]["fallback"] = {**FALLBACK, "startup_only": ["innodb_flush_method"]}
    path, problems = problems_of(tmp_path, doc)
    assert problems == [f"{path}: plan/fallback/startup_only: 'innodb_flush_method' is no "
                        "setting the sweep changes; expected some of: innodb_doublewrite"]


def test_a_fallback_where_the_recipe_never_switches(tmp_path):
    doc = doc_of(REDO)
    doc["plan"]["fallback"] = {**FALLBACK, "startup_only": ["innodb_log_file_size"]}
    path, problems = problems_of(tmp_path, doc)
    assert problems == [f"{path}: plan/fallback: a fallback to restart where the recipe and "
                        "design give none; expected no plan/fallback (only a restart under "
                        "design \"auto\" of a sweep of server settings has one)"]


def test_a_fallback_is_no_part_of_the_schema_unless_well_formed(tmp_path):
    doc = doc_of(RESTART)
    doc["plan"]["fallback"] = {"from": "restart", "reason": "x"}
    path, problems = problems_of(tmp_path, doc)
    assert any("plan/fallback/from" in line for line in problems), problems


def test_files_from_before_the_rule_pass_without_it(tmp_path):
    """Decided by date: the committed results started before RECORDS_FALLBACK_FROM pass
    without the record; those started since (the answers campaign's) carry it where due."""
    assert problems_of(tmp_path, doc_of(RESTART))[1] == []
    started = {f: json.loads((DATA / f).read_text()).get("started", "")
               for f in committed_results()}
    assert min(started.values()) < design.RECORDS_FALLBACK_FROM
    for f in (f for f, when in started.items() if when >= design.RECORDS_FALLBACK_FROM):
        assert problems_of(tmp_path, doc_of(DATA / f))[1] == [], f


def test_a_switchback_of_a_setting_the_server_reads_only_at_startup(tmp_path):
    """doublewrite's restarts relabelled a switchback on the MariaDB 10.11.19 they ran on:
    SET GLOBAL innodb_doublewrite is refused there, whatever the date."""
    doc = doc_of(RESTART)
    doc["plan"].update(design="switchback", settle_s=2.0)
    document.recompute(doc)
    path, problems = problems_of(tmp_path, doc)
    assert problems == [f"{path}: plan/design: 'switchback' of innodb_doublewrite, which "
                        "MariaDB 10.11.19 reads only at startup; expected 'restart' (the engine "
                        "falls back to it, recording plan/fallback)"]


def test_a_switchback_of_a_dynamic_setting_passes(tmp_path, recorded):
    assert problems_of(tmp_path, doc_of(SWITCHBACK))[1] == []


@pytest.mark.parametrize("name, flavor, version, fixed", [
    ("innodb_doublewrite", "mariadb", (10, 11, 19), True),
    ("innodb_doublewrite", "mysql", (8, 0, 29), True),
    ("innodb_doublewrite", "mysql", (8, 0, 30), False),   # dynamic from 8.0.30
    ("innodb_doublewrite", "mariadb", (11, 4, 5), False),  # not known: not refused
    ("innodb_flush_method", "percona", (8, 4, 3), True),
    ("innodb_use_native_aio", "mysql", (8, 4, 3), True),
    ("innodb_io_capacity", "mariadb", (10, 11, 19), False),
])
def test_the_startup_only_table(name, flavor, version, fixed):
    assert design.startup_only(name, flavor, version) is fixed
