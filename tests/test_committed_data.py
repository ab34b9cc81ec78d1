"""The tests read the committed result files, never the checkout's data/: a user's own runs add
result files there (the README's first command writes two), and a test that counted them would
fail after it. helpers.DATA is a copy of the committed files outside the checkout; the
committed_data fixture another; conftest points the site's results at the copy in every test."""

import re

from helpers import DATA, REPO, committed_data_files
from tuninglab.contrib import check
from tuninglab.evidence import result_files

# What names the checkout's data/ in a test module. A line that only names a path there (to
# compare a path, never to read it) says so with this comment.
READS_CHECKOUT = re.compile(r'(REPO|PROJECT_DIR|ROOT)\s*/\s*"data"|\bDATA_DIR\s*/|'
                            r'\bCHECKOUT_DATA\b|\bDATA\.parent\b|import\s+DATA_DIR\b')
NAMED_ONLY = "# named, not read"


def offending_lines(text: str) -> list[int]:
    return [n for n, line in enumerate(text.splitlines(), 1)
            if READS_CHECKOUT.search(line) and NAMED_ONLY not in line]


def test_no_test_module_reads_the_checkouts_data():
    found = {}
    for path in sorted((REPO / "tests").rglob("*.py")):
        if path.name in ("helpers.py", "test_committed_data.py"):
            continue
        lines = offending_lines(path.read_text())
        if lines:
            found[str(path.relative_to(REPO))] = lines
    assert found == {}, ("these lines read the checkout's data/ (where a user's runs add "
                         f"files); read helpers.DATA or the committed_data fixture: {found}")


def test_the_rule_finds_the_ways_a_test_named_the_checkouts_data():
    for line in ('X = REPO / "data" / "doublewrite"', "doc = (DATA_DIR / name)",
                 "from tuninglab.files import DATA_DIR", "p = DATA.parent / 'src'",
                 'sorted((PROJECT_DIR / "data").glob("*"))'):
        assert offending_lines(line) == [1], line
    for line in ('monkeypatch.setattr(check, "DATA_DIR", committed_data)',
                 'assert p.parent == files.DATA_DIR / "x"  # named, not read',
                 'sorted((DATA / "doublewrite").glob("*.json"))'):
        assert offending_lines(line) == [], line


def test_data_is_a_copy_of_the_committed_files_outside_the_checkout():
    assert not DATA.resolve().is_relative_to(REPO.resolve())
    copied = {p.relative_to(DATA).as_posix() for p in DATA.rglob("*") if p.is_file()}
    assert copied and copied <= set(committed_data_files())


def test_every_test_reads_the_site_results_and_project_hosts_from_the_copy():
    assert result_files.DATA_DIR == DATA and check.DATA_DIR == DATA
