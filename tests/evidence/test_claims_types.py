"""The claims map's reader takes each key's value in its TOML type only (issue 36: `invert =
"false"` was read as true and flipped a verdict), refuses what a key of its kind of table does
not read, names both files of an id given twice, and collects every file's problem for CI."""

import pytest

from helpers import write_claims_map as write_map
from tuninglab.errors import UserError
from tuninglab.evidence import claims_counts, claims_map

DIRECT_IO = """[[claim]]
id = "d26"
table = "direct-io-2-6.csv"
row = "Direct IO"
column = "LARGE"
recipe = "direct-io"
variant = "tpcc"
point = "O_DIRECT"
"""
DOUBLEWRITE = """[[claim]]
id = "dw"
table = "doublewrite.csv"
row = "gain of Serie H (doublewrite off) over Serie A"
recipe = "doublewrite"
point = "OFF"
reads = "gain-percent"
"""
ZAITSEV = "zaitsev-2004-os-hardware"


def error(tmp_path, text, slug=ZAITSEV) -> str:
    with pytest.raises(UserError) as exc:
        claims_map.load_map(write_map(tmp_path, text, slug))
    return str(exc.value)


@pytest.mark.parametrize("line, message", [
    ('invert = "false"', "invert: expected true or false (a TOML boolean), got the string "
                         "'false'"),
    ("invert = 0", "invert: expected true or false (a TOML boolean), got the number 0"),
    ('headline = "true"', "headline: expected true or false (a TOML boolean), got the string "
                          "'true'"),
    ("why = 3", "why: expected a string, got the number 3"),
    ("metric = true", "metric: expected a string, got the boolean true"),
    ('source_baseline = ["Buffered IO"]', "source_baseline: expected a string, got an array"),
    ("reads = 2024-01-01", "reads: expected a string, got a date"),
    ("why = {text = 'x'}", "why: expected a string, got a table"),
    ("source_noise = 1", "source_noise: expected a number with a decimal point (0.10), got "
                         "the number 1"),
    ('source_noise = "0.10"', "source_noise: expected a number with a decimal point (0.10), "
                              "got the string '0.10'"),
    ("source_noise = true", "source_noise: expected a number with a decimal point (0.10), got "
                            "the boolean true"),
    ("source_noise = 1.5", "source_noise: 1.5: expected the source's stated run-to-run swing "
                           "as a fraction above 0 and below 1 (0.10 for ±10%)"),
    ("source_noise = nan", "source_noise: nan: expected the source's stated run-to-run swing"),
    ("source_noise = -0.1", "source_noise: -0.1: expected"),
    ("caveat = false", "caveat: expected a string, got the boolean false"),
    ('caveat = " "', "caveat: empty; expected what weakens the claim"),
])
def test_a_value_of_another_type_is_refused_naming_file_entry_and_key(tmp_path, line, message):
    assert error(tmp_path, DIRECT_IO + line + "\n").startswith(
        f"{ZAITSEV}.toml [[claim]] #1: {message}")


def test_source_noise_and_caveat_are_read_with_their_defaults(tmp_path):
    claims, _ = claims_map.load_map(write_map(tmp_path, DIRECT_IO))
    assert (claims[0].source_noise, claims[0].caveat) == (0.0, "")
    text = DIRECT_IO + 'source_noise = 0.10\ncaveat = "the baseline is another kernel\'s"\n'
    (tmp_path / "claims" / f"{ZAITSEV}.toml").write_text(text)
    claims, _ = claims_map.load_map(tmp_path / "claims")
    assert (claims[0].source_noise, claims[0].caveat) == (0.10, "the baseline is another "
                                                                 "kernel's")


def test_a_claim_with_a_caveat_is_no_headline(tmp_path):
    text = DIRECT_IO + 'caveat = "contradicts itself"\nheadline = true\n'
    assert error(tmp_path, text) == (
        f"{ZAITSEV}.toml [[claim]] #1: headline: a claim with a caveat is not the topic's "
        "headline (the home page gives no room for it); expected headline = false")


@pytest.mark.parametrize("old, new, message", [
    ('row = "Direct IO"', "row = 3", "row: expected a string, got the number 3"),
    ('id = "d26"', 'id = "two words"', "id: 'two words' is not a name"),
    ('recipe = "direct-io"', 'recipe = "../recipes/direct-io"',
     "recipe: '../recipes/direct-io' is not a name"),
    ('variant = "tpcc"', 'variant = "tpcc/x"', "variant: 'tpcc/x' is not a name"),
    ('column = "LARGE"', 'column = "LARGE"\nreads = "times"',
     "reads: direct-io-2-6.csv is a table of measurements, which takes no reads"),
])
def test_a_key_is_a_name_and_of_its_table(tmp_path, old, new, message):
    assert f"{ZAITSEV}.toml [[claim]] #1: {message}" in error(tmp_path,
                                                               DIRECT_IO.replace(old, new))


def test_a_table_of_claims_takes_no_column(tmp_path):
    text = DOUBLEWRITE + 'column = "value"\n'
    assert error(tmp_path, text, "zfs-innodb-2009") == (
        "zfs-innodb-2009.toml [[claim]] #1: column: doublewrite.csv is a table of claims, "
        "which takes no column")


def test_booleans_are_read_as_written(tmp_path):
    claims, _ = claims_map.load_map(write_map(tmp_path, DIRECT_IO + "invert = false\n"))
    assert claims[0].invert is False and claims[0].headline is False
    (tmp_path / "claims" / f"{ZAITSEV}.toml").write_text(DIRECT_IO.replace('"d26"', '"d27"') +
                                                         "invert = true\nheadline = true\n")
    claims, _ = claims_map.load_map(tmp_path / "claims")
    assert claims[0].invert is True and claims[0].headline is True


@pytest.mark.parametrize("entry, message", [
    ('rows = "HT OFF"', "rows: expected an array of strings, got the string 'HT OFF'"),
    ("rows = [1]", "rows: expected an array of strings, got an array holding the number 1"),
    ('columns = "LARGE"', "columns: expected an array of strings, got the string 'LARGE'"),
    ("topic = false", "topic: expected a string, got the boolean false"),
    ("kind = 1", "kind: expected a string, got the number 1"),
    ('kind = "not an effect"', "kind: 'not an effect': expected one of not-testable, "
                               "not-an-effect"),
])
def test_an_untestable_entry_is_typed_too(tmp_path, entry, message):
    text = f'[[untestable]]\ntable = "hyperthreading.csv"\nreason = "x"\n{entry}\n'
    assert error(tmp_path, text) == f"{ZAITSEV}.toml [[untestable]] #1: {message}"


def test_an_untestable_entry_gives_a_reason(tmp_path):
    text = '[[untestable]]\ntable = "hyperthreading.csv"\nreason = "  "\n'
    assert error(tmp_path, text) == (f"{ZAITSEV}.toml [[untestable]] #1: reason: empty; "
                                     "expected why the result is not tested")


@pytest.mark.parametrize("section, text, got", [
    ("claim", 'claim = "d26"\n', "the string 'd26'"),
    ("claim", '[claim]\nid = "d26"\n', "a table"),
    ("untestable", "untestable = [1, 2]\n", "an array holding the number 1")])
def test_claims_and_untestable_are_arrays_of_tables(tmp_path, section, text, got):
    assert error(tmp_path, text) == (f"{ZAITSEV}.toml: {section}: expected [[{section}]] "
                                     f"tables, got {got}")


def test_an_id_twice_names_both_files(tmp_path):
    write_map(tmp_path, DIRECT_IO)
    text = DOUBLEWRITE.replace('"dw"', '"d26"')
    assert error(tmp_path, text, "zfs-innodb-2009") == (
        "zfs-innodb-2009.toml [[claim]] #1: id 'd26' is taken by "
        f"{ZAITSEV}.toml [[claim]] #1; expected each claim its own id")


def test_check_gives_every_file_its_line(tmp_path):
    write_map(tmp_path, DIRECT_IO + 'invert = "no"\n')
    write_map(tmp_path, DOUBLEWRITE + DOUBLEWRITE.replace("reads", "headline = 1\nreads"),
              "zfs-innodb-2009")
    assert claims_map.check(tmp_path / "claims") == [
        f"{ZAITSEV}.toml [[claim]] #1: invert: expected true or false (a TOML boolean), got "
        "the string 'no'",
        "zfs-innodb-2009.toml [[claim]] #2: headline: expected true or false (a TOML boolean), "
        "got the number 1"]


def test_check_names_an_id_twice_even_when_the_map_is_incomplete(tmp_path):
    write_map(tmp_path, DIRECT_IO)
    write_map(tmp_path, DOUBLEWRITE.replace('"dw"', '"d26"'), "zfs-innodb-2009")
    assert claims_map.check(tmp_path / "claims") == [
        "zfs-innodb-2009.toml [[claim]] #1: id 'd26' is taken by "
        f"{ZAITSEV}.toml [[claim]] #1; expected each claim its own id"]


def test_the_committed_map_checks_clean():
    assert claims_map.check() == []


@pytest.mark.parametrize("printed, value", [("3,5", 3.5), ("x2", 2.0), ("~30", 30.0)])
def test_a_printed_number_is_read(printed, value):
    assert claims_map._number(printed, "w") == value


@pytest.mark.parametrize("printed", ["nan", "inf", "-Infinity", "many"])
def test_a_printed_text_that_python_reads_as_a_float_is_no_number(printed):
    with pytest.raises(UserError, match=f"w: the source prints '{printed}', not a number"):
        claims_map._number(printed, "w")


def test_an_untestable_entry_is_not_testable_unless_it_says_it_is_no_effect(tmp_path):
    text = ('[[untestable]]\ntable = "hyperthreading.csv"\ncolumns = ["LARGE"]\nreason = "x"\n'
            '[[untestable]]\ntable = "hyperthreading.csv"\nreason = "y"\n'
            'kind = "not-an-effect"\n')
    _, untestable = claims_map.load_map(write_map(tmp_path, text))
    assert [(u.column, u.kind) for u in untestable] == [("LARGE", "not-testable"),
                                                         ("SMALL", "not-an-effect")]


def test_an_entry_without_rows_covers_what_earlier_entries_left(tmp_path):
    """Each result is one entry's: a later entry without rows or columns takes the rest."""
    text = ('[[untestable]]\ntable = "claims.csv"\nrows = ["terminals"]\nreason = "x"\n'
            '[[untestable]]\ntable = "claims.csv"\nreason = "y"\nkind = "not-an-effect"\n')
    _, untestable = claims_map.load_map(write_map(tmp_path, text))
    cells = [(u.row, u.column) for u in untestable]
    assert len(cells) == len(set(cells)) == 16
    assert next(u for u in untestable if u.row == "terminals").reason == "x"


def test_counts_tell_claims_from_the_two_kinds_of_untestable(tmp_path):
    text = DIRECT_IO + ('[[untestable]]\ntable = "direct-io-2-6.csv"\nreason = "x"\n'
                        '[[untestable]]\ntable = "claims.csv"\nreason = "y"\n'
                        'kind = "not-an-effect"\n')
    counts = claims_counts.counts(ZAITSEV, write_map(tmp_path, text))
    assert (counts.claims, counts.claimed, counts.not_testable, counts.not_an_effect,
            counts.results) == (1, 1, 1, 16, 18)
    assert claims_counts.counts("zfs-innodb-2009", tmp_path / "claims").results == 0


REDO = """[[claim]]
id = "redo"
table = "redo-log-size.csv"
row = "gain of 1024MB over 128MB redo log"
reads = "gain-percent"
recipe = "redo-size"
point = "1G"
"""
DIMITRI = "dimitri-2010-purge-redo"


def test_a_row_reporting_the_same_result_is_covered_by_the_claim_and_counted_once(tmp_path):
    """Issue 59: the UC2010 notes report the purge post's dbSTRESS comparison again; one
    source result is one claim, however many posts give it."""
    again = "gain of the larger redo log on dbSTRESS (UC2010 notes)"
    directory = write_map(tmp_path, REDO + f"same_rows = [{again!r}]\n".replace("'", '"'),
                          DIMITRI)
    claims, _ = claims_map.load_map(directory)
    assert claims[0].same_rows == (again,)
    assert not any(again in p for p in claims_map.problems(directory))
    assert claims_counts.counts(DIMITRI, directory).claimed == 2  # both rows answered by one claim


@pytest.mark.parametrize("rows, message", [
    ('["no such row"]', "same_rows: 'no such row' is not another result row of "
                        "redo-log-size.csv"),
    ('["gain of 1024MB over 128MB redo log"]', "same_rows: 'gain of 1024MB over 128MB redo "
                                               "log' is not another result row"),
    ('["larger redo log tried on dbSTRESS (UC2010 notes)"]',
     "same_rows: 'larger redo log tried on dbSTRESS (UC2010 notes)' gives x11.24, not the "
     "claim's x1.3; expected a row that reports the same result"),
    ('"gain of the larger redo log on dbSTRESS (UC2010 notes)"',
     "same_rows: expected an array of strings, got the string"),
])
def test_same_rows_must_be_other_rows_giving_the_same_ratio(tmp_path, rows, message):
    assert error(tmp_path, REDO + f"same_rows = {rows}\n", DIMITRI).startswith(
        f"{DIMITRI}.toml [[claim]] #1: {message}")
