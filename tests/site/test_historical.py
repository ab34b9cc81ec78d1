"""The transcribed historical sources under data/historical/ are complete, well formed and exact.

Each source of shared/sources/ has data/historical/<slug>/source.toml (validated against
src/tuninglab/evidence/historical.schema.json) and one CSV per table or group of numeric claims.
"""

import csv
import json
import re
import tomllib

import jsonschema
import pytest

from helpers import DATA, REPO, SHARED

ROOT = REPO
HIST = DATA / "historical"
SCHEMA_PATH = ROOT / "src" / "tuninglab" / "evidence" / "historical.schema.json"
SOURCES = SHARED / "sources"
NO_SOURCES = f"{SOURCES} is missing (it sits beside the checkout in CI)"

# slug -> file in shared/sources
SLUGS = {
    "zaitsev-2004-os-hardware": "000_f6fcf96cb4d6eaef.txt",
    "scheduler-scan-2008": "001_74f0069bb2daf889.txt",
    "dimitri-2012-mysql56-tpcc": "002_991e6ae7df783fa4.txt",
    "dimitri-2010-purge-redo": "003_c1860121ae744c06.txt",
    "zfs-innodb-2009": "004_7ee6082956f33d3c.txt",
}
SLUG_RE = re.compile(r"^[a-z0-9]+(-[a-z0-9]+)*$")
CSV_RE = re.compile(r"^[a-z0-9]+(-[a-z0-9]+)*\.csv$")
MARKUP_RE = re.compile(r"<|(?<!-)>|&(lt|gt|amp|quot|nbsp);")  # "->" is printed text, not markup


def load_toml(slug):
    with open(HIST / slug / "source.toml", "rb") as f:
        return tomllib.load(f)


def read_csv(path):
    with open(path, encoding="utf-8", newline="") as f:
        return list(csv.reader(f))


def all_tables():
    for slug in sorted(SLUGS):
        if (HIST / slug / "source.toml").is_file():
            for table in load_toml(slug)["tables"]:
                yield slug, table


TABLES = list(all_tables())


def normalise(text):
    return " ".join(text.replace("\u00a0", " ").split())


def is_number(cell):
    try:
        float(cell)
    except ValueError:
        return False
    return True


def column(rows, name):
    return rows[0].index(name)


def row_of(rows, label):
    matches = [r for r in rows[1:] if r[0] == label]
    assert len(matches) == 1, f"label {label!r}: {len(matches)} rows"
    return matches[0]


# ----------------------------------------------------------------------------- sources and metadata

def readme_files():
    text = (SOURCES / "README.md").read_text(encoding="utf-8")
    return re.findall(r"^\|\s*(\d{3}_[0-9a-f]{16}\.txt)\s*\|", text, flags=re.M)


def test_every_source_in_the_readme_has_a_valid_source_toml():
    if not (SOURCES / "README.md").is_file():
        pytest.skip(NO_SOURCES)
    listed = readme_files()
    assert len(listed) == 5, listed
    validator = jsonschema.Draft202012Validator(json.loads(SCHEMA_PATH.read_text()))
    by_file = {}
    for toml_path in sorted(HIST.glob("*/source.toml")):
        with open(toml_path, "rb") as f:
            doc = tomllib.load(f)
        by_file[doc["source"]["file"]] = toml_path.parent.name
    for name in listed:
        assert (SOURCES / name).is_file(), name
        assert name in by_file, f"{name} has no data/historical/<slug>/source.toml"
        doc = load_toml(by_file[name])
        errors = [f"{'/'.join(map(str, e.absolute_path))}: {e.message}" for e in validator.iter_errors(doc)]
        assert errors == [], f"{by_file[name]}: {errors}"


def test_source_directories_are_the_expected_slugs():
    dirs = sorted(p.name for p in HIST.iterdir() if p.is_dir())
    assert dirs == sorted(SLUGS)
    for slug, name in SLUGS.items():
        assert SLUG_RE.match(slug)
        assert load_toml(slug)["source"]["file"] == name


@pytest.mark.parametrize("slug", sorted(SLUGS))
def test_source_toml_matches_the_schema(slug):
    validator = jsonschema.Draft202012Validator(json.loads(SCHEMA_PATH.read_text()))
    errors = [f"{'/'.join(map(str, e.absolute_path))}: {e.message}" for e in validator.iter_errors(load_toml(slug))]
    assert errors == []


@pytest.mark.parametrize("slug", sorted(SLUGS))
def test_every_listed_file_exists_and_every_csv_is_listed(slug):
    listed = [t["file"] for t in load_toml(slug)["tables"]]
    assert len(listed) == len(set(listed)), "a file is listed twice"
    on_disk = sorted(p.name for p in (HIST / slug).iterdir() if p.suffix == ".csv")
    assert sorted(listed) == on_disk
    for name in listed:
        assert CSV_RE.match(name), f"{name} is not a lowercase slug"
    others = sorted(p.name for p in (HIST / slug).iterdir() if p.suffix != ".csv")
    assert others == ["source.toml"]


def test_the_2004_talk_has_over_twenty_tables():
    tables = [t for t in load_toml("zaitsev-2004-os-hardware")["tables"] if t["kind"] == "table"]
    assert len(tables) >= 20


# ----------------------------------------------------------------------------- every CSV

def table_id(item):
    slug, table = item
    return f"{slug}/{table['file']}"


@pytest.mark.parametrize("item", TABLES, ids=table_id)
def test_csv_is_well_formed(item):
    slug, t = item
    rows = read_csv(HIST / slug / t["file"])
    assert len(rows) >= 2, "no data rows"
    header, body = rows[0], rows[1:]
    values, ratios, others = t["value_columns"], t["ratio_columns"], t.get("other_columns", [])

    # header: the label column, then exactly the declared columns; each group in its declared
    # order (the groups may interleave, as printed: LARGE, LARGE Ratio, SMALL, SMALL Ratio)
    assert header[0] == t["label_column"]
    declared = values + ratios + others
    assert len(declared) == len(set(declared)) and t["label_column"] not in declared
    assert sorted(header[1:]) == sorted(declared), f"header {header} vs declared {declared}"
    for group in (values, ratios, others):
        assert [c for c in header[1:] if c in group] == group

    for r in body:
        assert len(r) == len(header), f"row {r} has {len(r)} cells, header {len(header)}"
        for cell in r:
            assert cell == cell.strip(), f"stray whitespace in {cell!r}"
            assert not MARKUP_RE.search(cell), f"markup left in {cell!r}"

    labels = [r[0] for r in body]
    assert all(labels), "empty label"
    assert len(labels) == len(set(labels)), "duplicate labels"

    missing = set(t.get("missing_values", []))
    if t["kind"] == "table":
        for name in values + ratios:
            i = header.index(name)
            for r in body:
                assert r[i] == "" or is_number(r[i]) or r[i] in missing, f"{name} of {r[0]}: {r[i]!r}"
    else:
        i = header.index(values[0])
        assert all(r[i] for r in body), "a claim without a value"
    for name in missing:
        assert any(name in (r[header.index(c)] for c in values) for r in body), f"unused marker {name!r}"

    for name in t.get("column_units", {}) | t.get("column_higher_is_better", {}):
        assert name in values, f"{name} is not a value column"


@pytest.mark.parametrize("item", [i for i in TABLES if i[1]["ratio_columns"]], ids=table_id)
def test_printed_ratios_are_relative_to_the_baseline(item):
    slug, t = item
    rows = read_csv(HIST / slug / t["file"])
    header = rows[0]
    base = row_of(rows, t["baseline"])
    for ratio in t["ratio_columns"]:
        value = ratio.removesuffix(" Ratio")
        assert value in t["value_columns"], f"{ratio} does not name its measurement"
        vi, ri = header.index(value), header.index(ratio)
        assert base[ri] == "", "the baseline row has a printed ratio"
        for r in rows[1:]:
            if r[ri]:
                expected = float(r[vi]) / float(base[vi])
                assert abs(expected - float(r[ri])) <= 0.006, f"{r[0]} {ratio}: {r[ri]} vs {expected:.3f}"


@pytest.mark.parametrize("item", TABLES, ids=table_id)
def test_transcribed_cells_occur_in_the_source(item):
    """Values (and printed labels, units, text cells) are verbatim substrings of the source text."""
    if not SOURCES.is_dir():
        pytest.skip(NO_SOURCES)
    slug, t = item
    text = normalise((SOURCES / SLUGS[slug]).read_text(encoding="utf-8"))
    rows = read_csv(HIST / slug / t["file"])
    header = rows[0]
    if t["kind"] == "claims":
        checked = [t["value_columns"][0], "unit"]
    else:
        checked = header[1:]
        if t.get("labels_printed", True):
            checked = header
    for name in checked:
        i = header.index(name)
        for r in rows[1:]:
            if r[i]:
                assert normalise(r[i]) in text, f"{name} of {r[0]}: {r[i]!r} not in {SLUGS[slug]}"
    if t["kind"] == "table" and t.get("headings_printed", True):
        for name in header[1:]:
            assert normalise(name.removesuffix(" Ratio")) in text, f"heading {name!r}"


# ----------------------------------------------------------------------------- spot checks
# (file, row label, column, value read in the source text)

SPOT_CHECKS = [
    # 2004 talk, one or more per table
    ("zaitsev-2004-os-hardware/binaries.csv", "Compiled,NPT", "LARGE", "1293"),
    ("zaitsev-2004-os-hardware/binaries.csv", "Compiled,NPT", "SMALL Ratio", "1.09"),
    ("zaitsev-2004-os-hardware/binaries.csv", "Static (default)", "LARGE Ratio", ""),
    ("zaitsev-2004-os-hardware/ext3-mount-options.csv", "ext3,data=writeback,noati", "SMALL", "4914"),
    ("zaitsev-2004-os-hardware/kernel-compile-settings.csv", "2.4.21-9.ELsmp", "SMALL Ratio", "1.75"),
    ("zaitsev-2004-os-hardware/kernel-vendors.csv", "2.4.25 (vanilla)", "SMALL", "-"),
    ("zaitsev-2004-os-hardware/kernel-vendors.csv", "2.4.25 (vanilla)", "LARGE Ratio", "1.49"),
    ("zaitsev-2004-os-hardware/io-schedulers.csv", "Deadline", "LARGE Ratio", "3.63"),
    ("zaitsev-2004-os-hardware/filesystems-2-4.csv", "Raw, Logs on separate di", "SMALL Ratio", "1"),
    ("zaitsev-2004-os-hardware/filesystems-2-6.csv", "ReiserFS 4 (alpha)", "SMALL", "10509"),
    ("zaitsev-2004-os-hardware/direct-io-2-4.csv", "Direct IO", "LARGE", "1931"),
    ("zaitsev-2004-os-hardware/direct-io-2-6.csv", "Buffered IO", "LARGE", "1830"),
    ("zaitsev-2004-os-hardware/async-io-buffered.csv", "Asynchronous IO", "SMALL", "7534"),
    ("zaitsev-2004-os-hardware/async-io-direct.csv", "Asynchronous IO", "LARGE", "2186"),
    ("zaitsev-2004-os-hardware/raid-chunk-size.csv", "16K", "LARGE Ratio", "0.61"),
    ("zaitsev-2004-os-hardware/raid-levels.csv", "RAID5", "SMALL", "3422"),
    ("zaitsev-2004-os-hardware/raid-levels.csv", "RAID5", "SMALL Ratio", "0.7"),
    ("zaitsev-2004-os-hardware/raid5-maintenance.csv", "RAID5 Normal", "SMALL", "3432"),
    ("zaitsev-2004-os-hardware/raid5-maintenance.csv", "RAID5 Rebuild", "LARGE", "73"),
    ("zaitsev-2004-os-hardware/raid10-software-vs-hardware.csv", "Software (Stripped RAID)", "LARGE", "584"),
    ("zaitsev-2004-os-hardware/number-of-disks.csv", "Single hard drive", "LARGE", "227"),
    ("zaitsev-2004-os-hardware/logs-separate-disk.csv", "Logs on dedicated SCSI driv", "LARGE", "1355"),
    ("zaitsev-2004-os-hardware/hyperthreading.csv", "HT OFF (acpi=off)", "SMALL", "6988"),
    ("zaitsev-2004-os-hardware/swap.csv", "Swap partition enabled", "LARGE", "384"),
    ("zaitsev-2004-os-hardware/read-ahead.csv", "Read-Ahead Disabled", "LARGE", "1433"),
    ("zaitsev-2004-os-hardware/write-cache.csv", "Write Cache OFF", "LARGE", "187"),
    ("zaitsev-2004-os-hardware/write-cache.csv", "Write Cache OFF", "SMALL Ratio", "0.49"),
    ("zaitsev-2004-os-hardware/claims.csv", "real fsyncs a single drive can do", "value", "200-300"),
    # 2008 blog
    ("scheduler-scan-2008/io-schedulers.csv", "Anticipatory", "Average runtime (s)", "370"),
    ("scheduler-scan-2008/io-schedulers.csv", "CFQ", "Average Throughput (MiB/s)", "43.04"),
    ("scheduler-scan-2008/io-schedulers.csv", "No-op", "Average runtime (s)", "471"),
    ("scheduler-scan-2008/archive-iostat-device-single-query.csv", "sda", "rMB/s", "7.36"),
    ("scheduler-scan-2008/archive-explain.csv", "1", "rows", "59558354"),
    ("scheduler-scan-2008/archive-claims.csv", "measured runtime of the count(*)", "value", "3 min 52.19 sec"),
    ("scheduler-scan-2008/archive-claims.csv", "compression ratio", "value", "6.7:1"),
    # 2012 Dimitri
    ("dimitri-2012-mysql56-tpcc/mysql55-configuration.csv", "innodb_io_capacity", "value", "20000"),
    ("dimitri-2012-mysql56-tpcc/results.csv", "MySQL 5.6-labs throughput", "value", "170K"),
    ("dimitri-2012-mysql56-tpcc/io-capacity.csv", "MySQL 5.6-labs innodb_max_io_capacity", "value", "12000"),
    # 2010 Dimitri
    ("dimitri-2010-purge-redo/redo-log-size.csv", "gain of 1024MB over 128MB redo log", "value", "30"),
    ("dimitri-2010-purge-redo/uc2010-io.csv", "usual innodb_io_capacity for a decent storage", "value", "2000"),
    ("dimitri-2010-purge-redo/purge-thread.csv", "user sessions on the purge graph (dbSTRESS Read+Write)", "value", "32"),
    # 2009 ZFS (Portuguese)
    ("zfs-innodb-2009/doublewrite.csv", "gain of Serie H (doublewrite off) over Serie A", "value", "3,5"),
    ("zfs-innodb-2009/series.csv", "Serie J", "change", "zfs set recordsize=16k data/mysql"),
    ("zfs-innodb-2009/series.csv", "Serie B", "change", "UNIQUE -> PRIMARY KEY"),
    ("zfs-innodb-2009/base-configuration.csv", "3", "value", "3000M"),
]


@pytest.mark.parametrize("path,label,col,expected", SPOT_CHECKS, ids=lambda v: str(v))
def test_spot_check(path, label, col, expected):
    rows = read_csv(HIST / path)
    assert row_of(rows, label)[column(rows, col)] == expected


def test_spot_checks_cover_every_source_and_eight_2004_tables():
    files = {p for p, *_ in SPOT_CHECKS}
    assert {p.split("/")[0] for p in files} == set(SLUGS)
    assert len({p for p in files if p.startswith("zaitsev-2004")}) >= 8
