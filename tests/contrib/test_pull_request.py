"""contrib/pull_request.py, on captured `git diff --raw -z --no-renames --no-abbrev` output: every
path as git holds it (issue 36: `--name-only` quoted a name holding a non-ASCII byte, " or \\,
and the quoted name matched no pattern), its git mode and its file in the checkout, its kind,
one line per refusal. The script on a real repository: test_data_workflow.py."""

import os

import pytest

from tuninglab.contrib import pull_request as pr

ZERO, BLOB = "0" * 40, "ab" * 20


def record(path: bytes, status="A", mode="100644") -> bytes:
    old = "000000" if status == "A" else "100644"
    return f":{old} {mode} {ZERO} {BLOB} {status}".encode() + b"\0" + path + b"\0"


def test_every_path_is_read_as_git_holds_it():
    raw = b"".join(record(p) for p in [
        "data/doublewrite/20261120T020000Z-c0ffee00-quické-0badc0de.json".encode(),
        b'data/doublewrite/q"uo\\te.json', b"data/doublewrite/two\nlines.json",
        b"data/doublewrite/latin1-\xe9.json"])
    paths = [c.path for c in pr.changes(raw)]
    assert paths == ["data/doublewrite/20261120T020000Z-c0ffee00-quické-0badc0de.json",
                     'data/doublewrite/q"uo\\te.json', "data/doublewrite/two\nlines.json",
                     "data/doublewrite/latin1-\udce9.json"]
    assert os.fsencode(paths[-1]) == b"data/doublewrite/latin1-\xe9.json"


def test_a_record_keeps_status_mode_and_blob():
    (change,) = pr.changes(record(b"data/x/y.json", "M", "120000"))
    assert change == pr.Change("M", "120000", BLOB, "data/x/y.json")
    assert pr.changes(b"") == []


@pytest.mark.parametrize("raw", [b":100644 100644 a b\0data/x\0", b"data/x\0",
                                 record(b"data/x.json")[:-1] + b"\0extra"])
def test_output_that_is_not_raw_z_is_refused(raw):
    with pytest.raises(ValueError, match="not `git diff --raw -z --no-renames` output"):
        pr.changes(raw)


@pytest.mark.parametrize("path, kind", [
    ("data/doublewrite/20261121T233847Z-209a4cf4-quick.json", pr.RESULT),
    ("data/doublewrite/quické.json", pr.RESULT),  # a result; its name is checked with it
    ("data/claims/zfs-innodb-2009.toml", pr.CLAIMS),
    ("data/historical/zfs-innodb-2009/source.toml", pr.HISTORICAL),
    ("data/historical/zfs-innodb-2009/doublewrite.csv", pr.HISTORICAL),
    ("data/doublewrite/notes.txt", None),
    ("data/doublewrite/deeper/x.json", None),
    ("data/x.json", None),
    ("data/claims/x.json", None),
    ("data/claims/Zfs.toml", None),
    ("data/claims/sub/x.toml", None),
    ("data/historical/x.json", None),
    ("data/historical/zfs-innodb-2009/notes.md", None),
    ("data/historical/zfs-innodb-2009/Doublewrite.csv", None),
    ("data/historical/Zfs/source.toml", None),
    ("src/tuninglab/contrib/check.py", None),
])
def test_the_kind_of_a_path(path, kind):
    assert pr.kind(path) == kind


@pytest.fixture
def checkout(tmp_path):
    (tmp_path / "data" / "doublewrite").mkdir(parents=True)
    return tmp_path


def change(path, status="A", mode="100644"):
    return pr.Change(status, mode, BLOB, path)


def test_a_regular_file_of_a_kind_is_taken(checkout):
    (checkout / "data" / "doublewrite" / "x.json").write_text("{}")
    assert pr.refusal(change("data/doublewrite/x.json"), checkout) is None
    assert pr.refusal(change("data/doublewrite/x.json", "M", "100755"), checkout) is None


@pytest.mark.parametrize("path, status, mode, why", [
    ("data/doublewrite/x.json", "A", "120000", "a symbolic link: add the result file itself"),
    ("data/claims/x.toml", "T", "120000", "a symbolic link: add the claims file itself"),
    ("data/doublewrite/x.json", "A", "160000",
     "a git submodule (gitlink): add the result file itself"),
    ("data/doublewrite/x.json", "A", "040000",
     "git mode 040000; expected a regular file (mode 100644)"),
    ("data/doublewrite/x.json", "U", "100644",
     "git reports status 'U'; expected a file added or modified"),
    ("data/doublewrite/gone.json", "A", "100644",
     "not in the checkout; expected the file git lists"),
])
def test_what_is_no_file_is_refused_by_git_s_word(checkout, path, status, mode, why):
    assert pr.refusal(change(path, status, mode), checkout) == why


def test_the_checkout_s_file_must_be_regular_too(checkout):
    where = checkout / "data" / "doublewrite"
    (where / "link.json").symlink_to(where / "target.json")
    (where / "dir.json").mkdir()
    assert pr.refusal(change("data/doublewrite/link.json"), checkout) == \
        "a symbolic link in the checkout: add the result file itself"
    assert pr.refusal(change("data/doublewrite/dir.json"), checkout) == \
        "not a regular file in the checkout: add the result file itself"


def test_a_file_of_no_kind_is_refused_naming_the_kinds(checkout):
    (checkout / "data" / "doublewrite" / "notes.txt").write_text("x")
    assert pr.refusal(change("data/doublewrite/notes.txt"), checkout) == (
        "not a result file, a claims file or a historical file; expected "
        "data/<recipe>/<name>.json, data/claims/<source>.toml, "
        "data/historical/<source>/source.toml or data/historical/<source>/<table>.csv")


def test_each_refusal_is_one_line_and_a_deletion_is_left_to_the_workflow(checkout, tmp_path):
    raw = record(b"data/doublewrite/two\nlines.json", mode="120000") + \
        record("data/doublewrite/é.txt".encode()) + record(b"data/doublewrite/old.json", "D")
    lines, taken = pr.check_changes(raw, checkout, tmp_path / "tree")
    assert lines == ["data/doublewrite/two\\nlines.json: a symbolic link: add the result file "
                     "itself",
                     "data/doublewrite/é.txt: not in the checkout; expected the file git lists"]
    assert taken == {pr.RESULT: 0, pr.CLAIMS: 0, pr.HISTORICAL: 0}
    assert not (tmp_path / "tree").exists()  # nothing refused is copied
