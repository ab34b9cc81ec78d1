"""The precision benchmark's disk-bound switchback A/A (issue 38) on made-up results: its
recipes, the engine's switch for a buffered loop device, the climb inside a block, and the A/As
of 5 minutes printed side by side, each against its target."""

import datetime as dt
import os

import pytest

from test_precision_unit import a_a_doc
from tuninglab.bench import precision
from tuninglab.engine.storage import loop


def test_the_disk_bound_recipes_are_io_schedulers_shape_and_load_with_an_a_a(tmp_path):
    from tuninglab.recipes.load import load
    precision.write_disk_recipes(tmp_path)
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(precision.DISK_AA.values())
    for name in precision.DISK_AA.values():
        recipe = load(name, recipes_dir=tmp_path)
        e = recipe.experiment()
        assert e.dataset.shape == "disk-bound" and e.dataset.memory_limit
        assert e.workload.script == "oltp_read_write" and e.workload.threads == 4
        assert dict(recipe.storage)["filesystem"] == "ext4"
        assert e.sweep.setting == "innodb_lock_wait_timeout"
        m = e.measure
        assert (m.design, m.warmup, m.settle, m.duration, m.repeats) == ("switchback", 30, 2, 5,
                                                                         20)
        blocks_s = m.repeats * 2 * (m.settle + m.duration)
        assert 240 <= m.warmup + blocks_s <= 330  # about 5 minutes of load


def test_the_buffered_switch_is_set_only_inside_and_restored(monkeypatch):
    monkeypatch.setenv(loop.BUFFERED_ENV, "0")
    with precision.loop_attached(buffered=True):
        assert loop.buffered_asked()
    with precision.loop_attached(buffered=False):
        assert loop.BUFFERED_ENV not in os.environ
    assert os.environ[loop.BUFFERED_ENV] == "0"


def test_a_blocks_climb_is_its_last_seconds_against_its_first():
    rise, pct = precision.block_climb({"series": {"tps": [900, 1000, 1100, 1200, None]}})
    assert rise == pytest.approx(200) and pct == pytest.approx(200 / 1050 * 100)
    assert precision.block_climb({"series": {"tps": [1, 2, 3]}}) is None


def timed(doc: dict, seconds_per_round: float = 14, direct_io=None) -> dict:
    start = dt.datetime(2026, 11, 27, tzinfo=dt.timezone.utc)
    for p in doc["points"]:
        for run in p["runs"]:
            end = start + dt.timedelta(seconds=run["repeat"] * seconds_per_round)
            run["finished"] = end.isoformat()
            if direct_io is not None:
                run["storage"] = {"sandbox": True, "loop_direct_io": direct_io}
    return doc


def test_the_first_rounds_of_an_a_a_and_their_wall_time():
    doc = timed(a_a_doc(40, 0.02, 0.02))
    compared, wall = precision.first_rounds(doc, 600.0, 20)
    assert wall == pytest.approx(600 - 20 * 14)
    pairs = precision._pairs(doc)[:20]
    assert compared.ratio == pytest.approx(
        precision._compare_rounds(pairs).ratio) and compared.ci_low < 1 < compared.ci_high


def test_the_a_as_of_5_minutes_are_printed_side_by_side_against_their_targets():
    cpu = timed(a_a_doc(40, 0.01, 0.01))
    disk = {"buffered": (timed(a_a_doc(20, 0.05, 0.08), direct_io=False), 330.0),
            "direct IO": (timed(a_a_doc(20, 0.02, 0.02, seed=5), direct_io=True), 320.0)}
    lines = []
    precision.report_aa_side_by_side(cpu, 600.0, disk, lines.append)
    text = "\n".join(lines)
    assert "CPU-bound (the A/A above, its first 20 rounds)" in text
    assert "of the ±3% target" in text and text.count("of the ±5% target") == 2
    assert "recorded: buffered" in text and "recorded: direct IO" in text
    assert lines[-1].startswith("  disk-bound with direct IO against CPU-bound, half-width: ")
