"""What keeps a run from being silently wrong, without a server: the template's verification
and manifest, the leftovers a failed run leaves (removed by the next run and by lab.clean), and
a failure on a full disk told as one sentence."""

import json
import shutil
from collections import namedtuple
from pathlib import Path

import pytest

from tuninglab import cli
from tuninglab.engine.host import workdir
from tuninglab.engine.run import leftovers
from tuninglab.engine.server import datadir, template_check
from tuninglab.errors import UserError

Dataset = namedtuple("Dataset", "tables table_size")


class FakeServer:
    """Answers the verification's queries from a table of rows, indexes and CHECK results."""

    def __init__(self, rows: dict, indexes: set, check="OK"):
        self.rows, self.indexes, self.check = rows, indexes, check

    def query(self, sql: str):
        if "information_schema.tables" in sql:
            return [(t,) for t in self.rows]
        if "information_schema.statistics" in sql:
            return sorted(self.indexes)
        table = sql.rsplit(".", 1)[-1]
        if sql.startswith("SELECT COUNT(*)"):
            return [(self.rows[table],)]
        if sql.startswith("CHECK TABLE"):
            return [(f"sbtest.{table}", "check", "status", self.check)]
        if sql.startswith("CHECKSUM TABLE"):
            return [(f"sbtest.{table}", 1000 + self.rows[table])]
        raise AssertionError(sql)


WHOLE = {"sbtest1": 500, "sbtest2": 500}
INDEXES = {("sbtest1", "PRIMARY"), ("sbtest1", "k_1"), ("sbtest2", "PRIMARY"), ("sbtest2", "k_2")}


def test_a_whole_dataset_is_verified_and_its_checksums_recorded():
    tables = template_check.sysbench_tables(FakeServer(WHOLE, INDEXES), Dataset(2, 500))
    assert tables == {"sbtest1": {"rows": 500, "checksum": 1500},
                      "sbtest2": {"rows": 500, "checksum": 1500}}


@pytest.mark.parametrize("rows, indexes, check, expected", [
    ({"sbtest1": 500}, INDEXES, "OK", r"table\(s\) sbtest2 missing"),
    ({"sbtest1": 500, "sbtest2": 297}, INDEXES, "OK", "sbtest2 has 297 rows, expected 500"),
    (WHOLE, INDEXES - {("sbtest1", "k_1")}, "OK", "sbtest1 has no index k_1"),
    (WHOLE, INDEXES, "Corrupt", "CHECK TABLE sbtest1: Corrupt"),
])
def test_a_short_dataset_is_refused(rows, indexes, check, expected):
    with pytest.raises(template_check.TemplateBroken,
                       match="the template's dataset is incomplete: " + expected):
        template_check.sysbench_tables(FakeServer(rows, indexes, check), Dataset(2, 500))


def fake_template(root: Path) -> Path:
    data = root / "templates" / "abc" / "data"
    (data / "sbtest").mkdir(parents=True)
    (data / "ibdata1").write_bytes(b"i" * 5000)
    (data / "sbtest" / "sbtest1.ibd").write_bytes(b"t" * 3000)
    return data


def test_the_manifest_finds_truncated_changed_missing_and_extra_files(tmp_path):
    data = fake_template(tmp_path)
    recorded = template_check.manifest(data)
    assert sorted(recorded) == ["ibdata1", "sbtest/sbtest1.ibd"]
    assert template_check.changed_files(data, recorded) == []
    (data / "ibdata1").write_bytes(b"i" * 4000)
    (data / "sbtest" / "sbtest1.ibd").write_bytes(b"x" * 3000)
    (data / "stray").write_text("")
    assert sorted(template_check.changed_files(data, recorded)) == [
        "ibdata1 is 4,000 bytes, expected 5,000", "sbtest/sbtest1.ibd changed (sha256)",
        "stray not in the template's manifest"]
    (data / "ibdata1").unlink()
    assert "ibdata1 missing" in template_check.changed_files(data, recorded)


def write_meta(data: Path, **meta):
    (data.parent / "meta.json").write_text(json.dumps(meta))


def test_a_cached_template_is_reused_only_while_its_files_are_as_built(tmp_path):
    data = fake_template(tmp_path)
    write_meta(data, files=template_check.manifest(data))
    lines = []
    assert datadir.intact(data.parent, lines.append) and lines == []
    with open(data / "sbtest" / "sbtest1.ibd", "r+b") as f:
        f.truncate(100)
    assert not datadir.intact(data.parent, lines.append)
    assert lines == [f"the cached template {data.parent} is not as it was built: "
                     "sbtest/sbtest1.ibd is 100 bytes, expected 3,000; building it again"]
    assert not data.parent.exists()


def test_a_template_without_a_manifest_is_built_again(tmp_path):
    data = fake_template(tmp_path)
    write_meta(data, tables=2)  # cached by a version that verified nothing
    lines = []
    assert not datadir.intact(data.parent, lines.append)
    assert "built by an older version, without a manifest of its files" in lines[0]
    assert not data.parent.exists()


# --- leftovers ----------------------------------------------------------------------------------

def leave_a_failed_run(wd: Path) -> None:
    (wd / workdir.MARKER).write_text("")  # the lab made this work directory
    (wd / "runs" / "innodb_doublewrite=ON-r1" / "data").mkdir(parents=True)
    (wd / "runs" / "innodb_doublewrite=ON-r1" / "data" / "ibdata1").write_bytes(b"x" * 2**21)
    (wd / "templates" / "abc.building-4242" / "data").mkdir(parents=True)
    (wd / "templates" / "def" / "data").mkdir(parents=True)  # a cached template: kept
    (wd / "progress").mkdir()
    (wd / "progress" / ".doublewrite-quick.json.tmp-99").write_text("{")
    (wd / "progress" / "doublewrite-quick.stale-1.json").write_text("{}")  # runs kept aside


def test_a_failed_runs_files_are_removed_and_reported(tmp_path):
    leave_a_failed_run(tmp_path)
    lines = leftovers.remove_stale_files(tmp_path)
    assert lines == [
        f"removed {tmp_path}/runs/innodb_doublewrite=ON-r1 (2 MiB), left by a failed run",
        f"removed {tmp_path}/templates/abc.building-4242 (0 MiB), left by a failed run",
        f"removed {tmp_path}/progress/.doublewrite-quick.json.tmp-99 (0 MiB), left by a failed "
        "run"]
    assert sorted(p.name for p in (tmp_path / "templates").iterdir()) == ["def"]
    assert [p.name for p in (tmp_path / "progress").iterdir()] == \
        ["doublewrite-quick.stale-1.json"]
    assert leftovers.remove_stale_files(tmp_path) == []


def test_lab_clean_removes_a_failed_runs_files_and_says_so(tmp_path):
    leave_a_failed_run(tmp_path)
    lines = []
    cli.lab_clean(tmp_path, lines.append)
    assert sum("left by a failed run" in line for line in lines) == 3
    assert lines[-1] == f"clean: 3 resources removed from {tmp_path}"
    assert not (tmp_path / "runs" / "innodb_doublewrite=ON-r1").exists()


def test_a_tree_holding_a_mount_is_left_alone(tmp_path, monkeypatch):
    leave_a_failed_run(tmp_path)
    mounted = tmp_path / "runs" / "innodb_doublewrite=ON-r1" / "data"
    monkeypatch.setattr(leftovers.os.path, "ismount", lambda p: Path(p) == mounted)
    lines = leftovers.remove_stale_files(tmp_path)
    assert lines[0] == f"kept {mounted.parent}: something is mounted in it"
    assert mounted.is_dir()


def test_a_directory_the_lab_did_not_make_loses_nothing(tmp_path):
    """`--workdir ~` removed ~/runs/ as "left by a failed run" (issue 57)."""
    leave_a_failed_run(tmp_path)
    (tmp_path / workdir.MARKER).unlink()
    (tmp_path / "notes.txt").write_text("mine")
    before = sorted(p.relative_to(tmp_path) for p in tmp_path.rglob("*"))
    assert leftovers.remove_stale_files(tmp_path) == [
        f"kept everything in {tmp_path}: not a work directory the lab made "
        "(no .tuninglab-workdir)"]
    with pytest.raises(UserError) as info:
        cli.lab_clean(tmp_path, print)
    assert str(info.value).startswith(f"work directory {tmp_path}: holds files the lab did not "
                                      "make (notes.txt); a run removes")
    assert sorted(p.relative_to(tmp_path) for p in tmp_path.rglob("*")) == before


def test_a_new_or_empty_directory_is_marked_and_an_earlier_versions_adopted(tmp_path):
    for wd in (tmp_path / "new", tmp_path / "empty"):
        (tmp_path / "empty").mkdir(exist_ok=True)
        with workdir.held(wd):
            assert workdir.is_marked(wd)
    earlier = tmp_path / "earlier"   # a work directory from before the mark: the lab's lock
    (earlier / "runs").mkdir(parents=True)
    (earlier / ".lock").write_text("123")
    with workdir.held(earlier):
        assert workdir.is_marked(earlier)


# --- a full disk --------------------------------------------------------------------------------

Usage = namedtuple("Usage", "total used free")


def test_a_failure_on_a_full_disk_is_one_sentence(tmp_path, monkeypatch):
    usage = iter([Usage(800 * 2**20, 0, 300 * 2**20), Usage(800 * 2**20, 0, 2**20)])
    monkeypatch.setattr(shutil, "disk_usage", lambda _: next(usage))
    with pytest.raises(UserError) as err:
        with workdir.blame_full_disk(tmp_path, "measuring run x-r1"):
            raise UserError("sysbench run failed (exit 1):\nFATAL: The table 'sbtest1' is full")
    assert str(err.value) == (
        f"the work directory's filesystem filled up while measuring run x-r1: {tmp_path} had "
        "300 MiB free at the start, 1 MiB of 800 MiB when it failed; free space (or pass "
        "--workdir DIR) and run the same command again to resume: finished runs are kept")


def test_a_failure_with_space_left_keeps_its_own_words(tmp_path):
    with pytest.raises(UserError, match="server did not start"):
        with workdir.blame_full_disk(tmp_path, "measuring run x-r1"):
            raise UserError("server did not start")
