"""Issue 37, item 5: each claim asks the question its source answered (reread against the source
text), each untestable reason is true, and "not an effect" is told apart from "not testable
here" (counted apart for the claims page). Read from the committed map and recipes."""

import pytest

from tuninglab.evidence import claims_counts, claims_map, historical
from tuninglab.evidence.claims_keys import NOT_AN_EFFECT, NOT_TESTABLE
from tuninglab.recipes.load import load, load_all


def claim(claim_id):
    return claims_map.claim(claim_id)


def untestable(table, row, column=""):
    _, untestable = claims_map.load_map()
    return next(u for u in untestable if (u.table, u.row, u.column) == (table, row, column))


def regime(recipe) -> list[dict]:
    return [dict(condition) for condition in recipe.regime]


def test_the_4_4_split_is_compared_with_page_table_isolation_on_at_the_baseline():
    c = claim("zaitsev-kernel-4g4g-split-small")
    recipe = load(c.recipe, variant=c.variant)
    assert (recipe.sweep.setting, recipe.sweep.baseline, c.point, c.invert) == \
        ("lab.pti", "on", "off", False)
    assert {"metric": "guest_pti", "of": "baseline", "at_least": 1.0}.items() <= \
        next(r for r in regime(recipe) if r["metric"] == "guest_pti" and "at_least" in r).items()


def test_the_2008_scan_must_read_from_the_device():
    for claim_id in ("scan2008-cfq-vs-noop", "scan2008-deadline-vs-noop"):
        c = claim(claim_id)
        assert "scan_device_read_pct" in {r["metric"] for r in regime(load(c.recipe,
                                                                           variant=c.variant))}
        assert "from the device" in c.why or "regime check as for CFQ" in c.why


def test_deadline_against_noop_lies_within_the_sources_own_noise():
    c = claim("scan2008-deadline-vs-noop")
    assert c.source_noise == pytest.approx(0.10)
    assert abs(c.source_ratio - 1) < c.source_noise  # x0.96: a claim of no difference
    assert claim("scan2008-cfq-vs-noop").source_noise == 0.0  # none stated: the default


def test_serie_i_compares_128m_with_256m_as_a_claim_of_no_difference():
    """Serie I compared 128M with 256M (+2.8%, under the 3% margin): the claim compares those
    two sizes, not 48M with 256M, and is tested for equivalence."""
    from tuninglab.results.verdicts import no_difference_claimed
    claims, _ = claims_map.load_map()
    mapped = [c for c in claims if c.source == "zfs-innodb-2009" and c.table == "redo-size.csv"]
    assert [c.id for c in mapped] == ["zfs2009-smaller-redo-serie-i"]
    for c in mapped:
        recipe = load(c.recipe, variant=c.variant)
        assert (c.point, recipe.sweep.baseline) == ("128M", "256M") and not c.invert
        assert no_difference_claimed(c.source_ratio, 0.03)
        assert any(dict(r).get("point") == "128M" for r in recipe.regime)


def test_logs_on_a_separate_disk_need_two_devices_that_do_not_share_a_disk():
    c = claim("zaitsev-logs-separate-large")
    assert "do not share a disk" in c.why
    assert "logs_shared_disk" in {r["metric"] for r in regime(load(c.recipe))}


def test_write_cache_off_is_no_cache_at_all():
    for claim_id in ("zaitsev-write-cache-off-large", "zaitsev-write-cache-off-small"):
        c = claim(claim_id)
        assert (c.recipe, c.point, c.invert) == ("write-cache", "directsync", False)
        assert load(c.recipe, variant=c.variant).sweep.baseline == "none"


def test_zfs_read_amplification_is_the_devices():
    assert claim("zfs2009-recordsize-read-amplification").metric == "device_read_bytes_per_trx"


def test_an_accident_its_source_disowns_is_not_an_effect():
    # Purge cut by a bug, the speed-up set aside by the source itself (issue 59): no claim.
    claims, untestable = claims_map.load_map()
    assert "dimitri2010-less-purge-x2" not in {c.id for c in claims}
    found = [u for u in untestable if u.row == "speed-up seen when purge was accidentally reduced"]
    assert found and all(u.kind == NOT_AN_EFFECT and "bug" in u.reason for u in found)


def test_a_source_that_contradicts_itself_has_a_caveat_and_no_headline():
    c = claim("zfs2009-doublewrite-off-serie-h")
    assert "innodb_doublewrite = 0" in c.caveat and not c.headline
    claims, _ = claims_map.load_map()
    assert not [c.id for c in claims if c.caveat and c.headline]
    for claim_id in ("zaitsev-swap-enabled-large", "zaitsev-swap-enabled-small"):
        assert "2.6.3" in claim(claim_id).caveat  # the baseline row is another kernel's


@pytest.mark.parametrize("claim_id, recipe, variant", [
    ("zaitsev-async-io-buffered-large", "native-aio", "buffered"),
    ("zaitsev-swap-enabled-small", "swap", "cpu-bound"),
])
def test_what_an_untestable_reason_said_could_not_be_run_is_a_claim(claim_id, recipe, variant):
    c = claim(claim_id)
    assert (c.recipe, c.variant) == (recipe, variant)


def test_a_small_result_is_untestable_only_where_its_recipe_has_no_cpu_bound_experiment():
    """The 2004 SMALL (CPU-bound) load: a table whose LARGE result a recipe answers has its
    SMALL result answered too wherever that recipe has a CPU-bound experiment of the same
    setting (a CPU-bound variant that sweeps another asks another question)."""
    claims, untestable = claims_map.load_map()
    for u in untestable:
        if u.source != "zaitsev-2004-os-hardware" or u.column != "SMALL":
            continue
        for c in (c for c in claims if c.table == u.table and c.column == "LARGE"):
            setting = load(c.recipe, variant=c.variant).sweep.setting
            shapes = {r.dataset.shape for r in load_all(c.recipe) if r.sweep.setting == setting}
            assert "cpu-bound" not in shapes, (u.table, u.row, c.recipe)
            assert "CPU-bound" in u.reason


@pytest.mark.parametrize("table, row, column, words", [
    ("hyperthreading.csv", "HT OFF (acpi=off)", "SMALL", "no recipe compares one thread"),
    ("filesystems-2-4.csv", "Raw, Logs on separate di", "LARGE", "innodb_file_per_table = OFF"),
    ("io-schedulers.csv", "Deadline", "LARGE", "bfq"),
])
def test_untestable_reasons_say_what_is_true_today(table, row, column, words):
    u = untestable(table, row, column)
    assert words in u.reason and u.kind == NOT_TESTABLE
    assert "this machine" not in u.reason  # hosts differ: a reason holds for every one


def test_anticipatory_in_the_2008_scan_names_its_heir():
    u = untestable("io-schedulers.csv", "Anticipatory", "Average Throughput (MiB/s)")
    assert "bfq" in u.reason and u.kind == NOT_TESTABLE


@pytest.mark.parametrize("source, table, row, column", [
    ("scheduler-scan-2008", "archive-iostat-cpu.csv", "single query", "%user"),
    ("zaitsev-2004-os-hardware", "claims.csv", "terminals", ""),
    ("zfs-innodb-2009", "base-configuration.csv", "12", ""),
    ("dimitri-2010-purge-redo", "uc2010-io.csv", "usual innodb_io_capacity for a decent storage",
     ""),
])
def test_setups_listings_snapshots_and_advice_are_not_effects(source, table, row, column):
    _, untestable = claims_map.load_map()
    u = next(u for u in untestable if (u.source, u.table, u.row, u.column) ==
             (source, table, row, column))
    assert u.kind == NOT_AN_EFFECT


def test_every_describes_the_setup_entry_is_not_an_effect():
    _, untestable = claims_map.load_map()
    setup = [u for u in untestable if "setup" in u.reason and "not an effect" in u.reason]
    assert setup and {u.kind for u in setup} == {NOT_AN_EFFECT}


def test_the_counts_add_up_to_every_source_result():
    _, untestable = claims_map.load_map()
    total = claims_counts.counts()
    assert total.not_testable + total.not_an_effect == len(untestable)
    assert total.not_an_effect > total.not_testable > 0 and total.claimed > 0
    assert total.results == sum(len(claims_map.results_of(meta, rows)) for meta, rows in
                                _every_table())
    per_source = [claims_counts.counts(s) for s in {u.source for u in untestable}]
    assert sum(c.results for c in per_source) == total.results


def _every_table():
    for source_dir in sorted(historical.HISTORICAL_DIR.iterdir()):
        for meta in historical.historical_source(source_dir.name).get("tables", []):
            _, _, rows = historical.historical_table(source_dir.name, meta["file"])
            yield meta, rows
