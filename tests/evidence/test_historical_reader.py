"""The historical reader (evidence/historical.py) reads a source.toml only as its schema types it and
a CSV only as the table its metadata describes, or raises ValueError naming the file and the
key or the line (issue 36: on dc97b5d a string "yes" was a true higher_is_better, a short row a
row of None cells, "nan" a number); evidence/check_sources.py gives CI one line per problem."""

import shutil

import pytest

from helpers import DATA
from tuninglab.evidence import check_sources, historical

SLUG = "zaitsev-2004-os-hardware"
TABLE = "binaries.csv"  # configuration,LARGE,LARGE Ratio,SMALL,SMALL Ratio; baseline Static


@pytest.fixture
def base(tmp_path):
    """A copy of one committed source, to be made bad."""
    shutil.copytree(DATA / "historical" / SLUG, tmp_path / SLUG)
    return tmp_path


def edit(path, old, new, count=1):
    text = path.read_text()
    assert old in text, old
    path.write_text(text.replace(old, new, count))


def source_error(base) -> str:
    with pytest.raises(ValueError) as exc:
        historical.historical_source(SLUG, base)
    return str(exc.value)


def table_error(base, table=TABLE) -> str:
    with pytest.raises(ValueError) as exc:
        historical.historical_table(SLUG, table, base)
    return str(exc.value)


def test_the_committed_sources_read(base):
    source, meta, rows = historical.historical_table(SLUG, TABLE, base)
    assert meta["higher_is_better"] is True and rows[0]["configuration"] == "Static (default)"
    lines, sources, claims = check_sources.problems()
    assert (lines, sources, claims) == ([], 5, 5)


@pytest.mark.parametrize("old, new, message", [
    ("higher_is_better = true", 'higher_is_better = "yes"',
     "[[tables]] #1 (binaries.csv) higher_is_better: 'yes' is not of type 'boolean'"),
    ("year = 2004", 'year = "2004"', "source.year: '2004' is not of type 'integer'"),
    ('kind = "table"', 'kind = "table"\ncolour = "red"',
     "[[tables]] #1 (binaries.csv): Additional properties are not allowed ('colour' was "
     "unexpected)"),
    ('file = "binaries.csv"', 'file = "../../../etc/passwd"',
     "[[tables]] #1 (../../../etc/passwd) file: '../../../etc/passwd' does not match"),
    ('value_columns = ["LARGE", "SMALL"]', 'value_columns = "LARGE"',
     "[[tables]] #1 (binaries.csv) value_columns: 'LARGE' is not of type 'array'"),
    ('file = "ext3-mount-options.csv"', 'file = "binaries.csv"',
     "[[tables]] #2 (binaries.csv): file: 'binaries.csv' is listed twice"),
    ('kind = "table"', 'kind = "table"\ncolumn_units = {XL = "TPM"}',
     "[[tables]] #1 (binaries.csv): column_units: 'XL' is not one of value_columns"),
])
def test_a_bad_source_toml_names_the_file_and_the_key(base, old, new, message):
    edit(base / SLUG / "source.toml", old, new)
    text = source_error(base)
    assert text.startswith(f"{base / SLUG / 'source.toml'}: ") and message in text, text


def test_a_source_toml_that_is_no_utf8_is_refused(base):
    path = base / SLUG / "source.toml"
    path.write_bytes(path.read_bytes().replace(b"Peter Zaitsev", b"Peter Za\xefitsev"))
    assert "can't decode byte 0xef" in source_error(base)


@pytest.mark.parametrize("slug", ["../x", "Zaitsev", "a/b", ""])
def test_a_source_is_a_plain_name(base, slug):
    with pytest.raises(ValueError, match="expected a name of lower-case letters"):
        historical.historical_source(slug, base)


@pytest.mark.parametrize("old, new, message", [
    ("Dynamic (max),1279,1.02,4695,1.01", "Dynamic (max),1279,1.02,4695",
     "line 3: 4 cells; expected 5, as the header"),
    ("Dynamic (max),1279,", "Dynamic (max),1279x,",
     "line 3: LARGE is '1279x'; expected a number, nothing, or one of missing_values"),
    ("Dynamic (max),1279,", "Dynamic (max),nan,",
     "line 3: LARGE is 'nan'; expected a number"),
    ("Dynamic (max),1279,1.02", "Dynamic (max),1279,inf", "line 3: LARGE Ratio is 'inf'"),
    ("Dynamic (max)", "Compiled", "line 4: label 'Compiled' again (line 3); expected one line "
                                  "per label"),
    ("Dynamic (max)", "", "line 3: label ''; expected one line per label"),
    ("Static (default)", "Static", "baseline 'Static (default)' (source.toml) is not a label"),
    ("configuration,LARGE", "configuration,HUGE",
     "header ['configuration', 'HUGE', 'LARGE Ratio', 'SMALL', 'SMALL Ratio']; expected the "
     "label column 'configuration', then ['LARGE', 'SMALL', 'LARGE Ratio', 'SMALL Ratio']"),
])
def test_a_bad_csv_names_the_file_and_the_line(base, old, new, message):
    edit(base / SLUG / TABLE, old, new)
    text = table_error(base)
    assert text.startswith(f"{base / SLUG / TABLE}: ") and message in text, text


def test_a_csv_without_rows_or_not_utf8_is_refused(base):
    path = base / SLUG / TABLE
    path.write_bytes(path.read_bytes().replace(b"Static", b"St\xe4tic"))
    assert "can't decode byte 0xe4" in table_error(base)
    path.write_text("configuration,LARGE,LARGE Ratio,SMALL,SMALL Ratio\n")
    assert table_error(base).endswith("no rows; expected a header line, then a line per row")


def test_a_table_of_claims_states_its_values(base):
    path = base / SLUG / "claims.csv"
    edit(path, "warehouses in the database,200,", "warehouses in the database,,")
    assert table_error(base, "claims.csv").endswith(
        "line 2: value is empty; expected the number the source states")


def test_ci_names_each_problem_of_a_source(base):
    edit(base / SLUG / TABLE, "Compiled,1297", "Compiled,12 97")
    (base / SLUG / "notes.md").write_text("to do")
    (base / "stray.csv").write_text("a,b\n")
    lines = check_sources.source_problems(base / SLUG, base)
    assert lines == [
        f"{base / SLUG / TABLE}: line 4: LARGE is '12 97'; expected a number, nothing, or one "
        "of missing_values",
        f"{base / SLUG / 'notes.md'}: not a table source.toml lists; expected source.toml and "
        "the CSV files of its [[tables]] only"]
    assert check_sources.source_problems(base / "stray.csv", base) == [
        f"{base / 'stray.csv'}: not a directory; expected data/historical/<source>/ holding "
        "source.toml and its tables"]


def test_ci_lines_escape_control_characters():
    line = check_sources.visible("data/x\nforged: ok\u202e\u2028")
    assert line == "data/x\\nforged: ok\\u202e\\u2028"
