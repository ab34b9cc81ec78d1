"""Issue 77, item 4: one reader of data/ (files.listing, files.read_regular) for data.check,
data.claims, the site and data.submit. A symbolic link to a result under a new name was refused
by data.check but counted by data.claims (MariaDB 11.8's duet verdict moved from 2 to 3
results), and a FIFO named *.json in data/ hung data.claims, data.check --contributions --path
OTHER and data.submit --path OTHER. Now each is refused in one line, never read nor counted, and
nothing waits on a FIFO: every test here runs under a deadline that fails it instead.

And the claims map: data.check (all of data/) reads it and the historical sources strictly, as
CI does, with the same reader, and so the same line, as the site and data.claims."""

import html
import json
import os
import shutil
import signal
import socket
from contextlib import contextmanager
from pathlib import Path

import pytest

from helpers import DATA
from tuninglab import cli, files
from tuninglab.contrib import check, submit
from tuninglab.errors import UserError
from tuninglab.evidence import check_sources, claims_map, historical, result_files
from tuninglab.results import calibrations
from tuninglab.site import builder, result_listings, verdict_tables

RECIPE = "doublewrite"
LINK = "a symbolic link, not a regular file: not read"
FIFO = "a FIFO (named pipe), not a regular file: not read"
CLAIMS = "zaitsev-2004-os-hardware.toml"
FLIPPED = ('\n[[claim]]\nid = "flipped"\ntable = "direct-io-2-6.csv"\nrow = "Direct IO"\n'
           'column = "LARGE"\nrecipe = "direct-io"\npoint = "O_DIRECT"\ninvert = "false"\n')


@contextmanager
def deadline(seconds: int = 120):
    """A read that waits on a FIFO raises here instead of hanging the test (SIGALRM interrupts
    the blocked open or read)."""
    def expired(signum, frame):
        raise TimeoutError(f"still running after {seconds} s: something waited on a FIFO")
    old = signal.signal(signal.SIGALRM, expired)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, old)


def duet_on_11_8(directory: Path) -> Path:
    """The issue's target: a MariaDB 11.8 duet result (else the newest result)."""
    paths = sorted(directory.glob("*.json"))
    return next((p for p in paths if json.loads(p.read_text())["plan"].get("design") == "duet"
                 and json.loads(p.read_text())["server"]["version"].startswith("11.8")),
                paths[-1])


def odd_names(directory: Path, target: Path) -> tuple[Path, Path]:
    """A link to target under a new result name (as `ln -s` makes it), and a FIFO named as a
    result, in directory."""
    link = directory / f"{target.stem}-again.json"
    link.symlink_to(target.name)
    fifo = directory / "20261208T000000Z-0badc0de-quick-0badc0de.json"
    os.mkfifo(fifo)
    return link, fifo


@pytest.fixture
def data(tmp_path, monkeypatch):
    """The committed doublewrite results and A/A calibration records, copied (the claims map
    and the sources are the project's), as what the evidence and data.check read."""
    target = tmp_path / "data"
    for name in (RECIPE, calibrations.DIR):
        shutil.copytree(DATA / name, target / name)
    monkeypatch.setattr(result_files, "DATA_DIR", target)
    monkeypatch.setattr(check, "DATA_DIR", target)
    return target


# --- the reader ---------------------------------------------------------------------------------

def test_listing_keeps_regular_files_and_refuses_the_rest_in_one_line(tmp_path):
    regular = tmp_path / "20261201T000000Z-aaaaaaaa-quick.json"
    regular.write_text("{}")
    link, fifo = odd_names(tmp_path, regular)
    sock = tmp_path / "s.json"
    with socket.socket(socket.AF_UNIX) as s, deadline(10):
        s.bind(str(sock))
        found, refused = files.listing(tmp_path, ".json")
        assert found == [regular]
        assert sorted(map(str, refused)) == sorted([f"{link}: {LINK}", f"{fifo}: {FIFO}",
                                                    f"{sock}: a socket, not a regular file: "
                                                    "not read"])
        for path in (link, fifo, sock):
            with pytest.raises(files.NotRegular):
                files.read_regular(path, 100)
    assert files.read_regular(regular, 100) == b"{}"
    with pytest.raises(files.TooLarge, match="2 bytes; expected at most 1 bytes"):
        files.read_regular(regular, 1)


def test_a_file_swapped_for_a_fifo_after_the_listing_is_refused_not_waited_on(tmp_path):
    path = tmp_path / "x.json"
    path.write_text("{}")
    [listed], _ = files.listing(tmp_path, ".json")
    path.unlink()
    os.mkfifo(path)
    with deadline(10), pytest.raises(files.NotRegular, match="a FIFO"):
        files.read_regular(listed, 100)


def test_a_recipe_directory_that_is_a_link_is_never_followed(data):
    (data / "doublewrite-again").symlink_to(RECIPE)
    assert [p.name for p in result_files.result_dirs(data)] == [RECIPE]
    assert result_files.unread(data) == [f"{data / 'doublewrite-again'}: a symbolic link, "
                                         "not a directory: not read"]
    assert result_files.results_for("doublewrite-again", None) == []


# --- data.claims, claims.status and the campaign ------------------------------------------------

def claims_lines(recipe: str = RECIPE) -> list[str]:
    lines = []
    with deadline():
        cli.data_claims(recipe, lines.append)
    return "\n".join(lines).splitlines()


def test_data_claims_counts_neither_a_link_nor_a_fifo(data):
    before = claims_lines()
    count = len(result_files.results_for(RECIPE, None))
    link, fifo = odd_names(data / RECIPE, duet_on_11_8(data / RECIPE))
    after = claims_lines()
    assert sorted(after[:2]) == sorted([f"warning: {link}: {LINK}", f"warning: {fifo}: {FIFO}"])
    assert after[2:] == before  # the same verdicts, on as many results
    assert len(result_files.results_for(RECIPE, None)) == count


def test_a_fifo_among_the_calibration_records_is_never_read(data):
    records = calibrations.load_all(data)
    fifo = data / calibrations.DIR / "20261208T000000Z-0badc0de.json"
    os.mkfifo(fifo)
    with deadline(30):
        assert calibrations.load_all(data) == records
        assert result_files.unread(data) == [f"{fifo}: {FIFO}"]
        assert calibrations.problems(fifo) == [
            f"{fifo}: (top): {FIFO}; expected a calibration record"]


# --- the site -----------------------------------------------------------------------------------

def test_the_site_lists_and_serves_neither(data, tmp_path):
    regular = sorted(p.name for p in (data / RECIPE).glob("*.json"))
    odd_names(data / RECIPE, duet_on_11_8(data / RECIPE))
    with deadline():
        rows = result_listings.results_index(data)
        assert sorted(Path(r["file"]).name for r in rows) == regular
        assert result_listings.publish(tmp_path / "site", data) == len(regular)
    assert sorted(p.name for p in (tmp_path / "site" / "data" / RECIPE).iterdir()) == regular


def test_the_build_warns_of_each_in_one_line(data, tmp_path, monkeypatch, capsys):
    link, fifo = odd_names(data / RECIPE, duet_on_11_8(data / RECIPE))
    # The MkDocs build itself is the integration test's (below): here, what is said after it.
    monkeypatch.setattr(builder.subprocess, "run",
                        lambda *a, **kw: type("Done", (), {"returncode": 0})())
    with deadline():
        builder.build(tmp_path / "site", data_dir=data)
    assert sorted(capsys.readouterr().err.splitlines()) == sorted(
        [f"warning: {link}: {LINK}", f"warning: {fifo}: {FIFO}"])


@pytest.mark.integration  # builds the site (MkDocs)
def test_a_site_built_with_a_link_and_a_fifo_in_data(committed_data, tmp_path, capsys):
    data = tmp_path / "data"
    shutil.copytree(committed_data, data)
    link, fifo = odd_names(data / RECIPE, duet_on_11_8(data / RECIPE))
    with deadline(1800):
        site = builder.build(tmp_path / "site", data_dir=data)
    served = {p.name for p in (site / "data" / RECIPE).iterdir()}
    assert link.name not in served and fifo.name not in served and served
    err = capsys.readouterr().err.splitlines()
    assert f"warning: {link}: {LINK}" in err and f"warning: {fifo}: {FIFO}" in err


# --- data.check and data.submit -----------------------------------------------------------------

def small_data(tmp_path: Path) -> Path:
    """data/ with one result, one calibration record, the claims map and the sources."""
    data = tmp_path / "data"
    for name in ("claims", "historical"):
        shutil.copytree(DATA / name, data / name)
    for name in (RECIPE, calibrations.DIR):
        (data / name).mkdir()
        first = sorted((DATA / name).glob("*.json"))[0]
        shutil.copy2(first, data / name / first.name)
    return data


def checked(data: Path, monkeypatch) -> list[str]:
    """`invoke data.check` (no --path) on data: its lines."""
    monkeypatch.setattr(check, "DATA_DIR", data)
    lines = []
    with deadline(), pytest.raises(SystemExit):
        cli.data_check([], lines.append)
    return lines


def test_data_check_refuses_each_in_one_line(tmp_path, monkeypatch):
    data = small_data(tmp_path)
    link, fifo = odd_names(data / RECIPE, next((data / RECIPE).glob("*.json")))
    record_fifo = data / calibrations.DIR / "20261208T000000Z-0badc0de.json"
    os.mkfifo(record_fifo)
    linked = data / "doublewrite-again"
    linked.symlink_to(RECIPE)
    lines = checked(data, monkeypatch)
    expected = [f"{link}: (file): {LINK}; expected a result file",
                f"{fifo}: (file): {FIFO}; expected a result file",
                f"{record_fifo}: (top): {FIFO}; expected a calibration record",
                f"{linked}: a symbolic link, not a directory: not read"]
    for line in expected:
        assert line in lines
    for path in (link, fifo, record_fifo, linked):
        assert sum(str(path) in line for line in lines) == 1, lines
    sources = len(list((data / "historical").iterdir()))
    maps = len(list((data / "claims").glob("*.toml")))
    assert lines[-1].startswith(f"5 result files, {sources} historical sources, {maps} claims "
                                "files checked, ")


def test_data_check_reads_the_claims_map_as_the_site_does(tmp_path, monkeypatch):
    """`invoke data.check` said 0 problems with a broken claims file; the site build and CI's
    data script read it with one reader (claims_map: claims_keys.check_keys), one line."""
    data = small_data(tmp_path)
    path = data / "claims" / CLAIMS
    number = path.read_text().count("[[claim]]") + 1
    path.write_text(path.read_text() + FLIPPED)
    line = (f"{CLAIMS} [[claim]] #{number}: invert: expected true or false (a TOML boolean), "
            "got the string 'false'")
    assert line in checked(data, monkeypatch)
    assert line in check_sources.problems(data / "historical", data / "claims")[0]  # CI's
    monkeypatch.setattr(claims_map, "CLAIMS_DIR", data / "claims")  # what the site reads
    with pytest.raises(UserError) as refused:
        claims_map.load_map()
    assert str(refused.value) == line
    assert html.escape(line) in verdict_tables.verdicts_fence("all = true\n", "verdicts", "",
                                                              {}, None)
    with pytest.raises(UserError, match="invert: expected true or false"):  # data.claims
        claims_lines("direct-io")


def test_a_claims_file_that_is_a_link_or_a_fifo_is_an_error(tmp_path):
    claims = tmp_path / "claims"
    shutil.copytree(DATA / "claims", claims)
    (claims / "again.toml").symlink_to(CLAIMS)
    os.mkfifo(claims / "fifo.toml")
    with deadline():
        assert claims_map.check(claims) == [f"again.toml: {LINK}", f"fifo.toml: {FIFO}"]
        with pytest.raises(UserError, match=f"again.toml: {LINK}"):
            claims_map.load_map(claims)


def test_a_historical_table_that_is_a_fifo_is_refused(tmp_path):
    base = tmp_path / "historical"
    shutil.copytree(DATA / "historical", base)
    slug = CLAIMS.removesuffix(".toml")
    table = historical.historical_source(slug, base)["tables"][0]["file"]
    (base / slug / table).unlink()
    os.mkfifo(base / slug / table)
    with deadline(30):
        with pytest.raises(ValueError, match="a FIFO"):
            historical.historical_table(slug, table, base)
        assert check_sources.source_problems(base / slug, base) == [
            f"{base / slug / table}: {FIFO}"]


def contribution(tmp_path: Path) -> Path:
    """A committed result, as if from a machine of its own (a new host id): what data.submit
    prepares."""
    source = sorted((DATA / "logs-separate").glob("*.json"))[0]
    doc = json.loads(source.read_text())
    doc["host"]["id"] = "c0ffee00c0ffee00"
    path = tmp_path / "incoming" / source.name
    path.parent.mkdir()
    path.write_text(json.dumps(doc))
    return path


def test_data_submit_and_a_contributions_check_never_wait_on_a_fifo_in_data(tmp_path,
                                                                             monkeypatch):
    monkeypatch.setenv("TUNINGLAB_WORKDIR", str(tmp_path / "work"))
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    data = small_data(tmp_path)
    link, fifo = odd_names(data / RECIPE, next((data / RECIPE).glob("*.json")))
    other = contribution(tmp_path)
    monkeypatch.setattr(check, "DATA_DIR", data)
    with deadline():
        assert any(": contribution: missing" in line
                   for line in check.check_paths([other], contributions=True))
        target = submit.submit(other, data_dir=data, say=lambda line: None)
    assert target.parent == data / "logs-separate" and target.is_file()


def test_data_submit_refuses_a_fifo_or_a_link_as_its_path(tmp_path):
    data = small_data(tmp_path)
    link, fifo = odd_names(data / RECIPE, next((data / RECIPE).glob("*.json")))
    with deadline():
        with pytest.raises(UserError, match=r"not a file; expected one result file"):
            submit.submit(fifo, data_dir=data)
        lines = []
        with pytest.raises(SystemExit):
            submit.submit(link, data_dir=data, say=lines.append)
    assert lines[0] == f"{link}: (file): {LINK}; expected a result file"
