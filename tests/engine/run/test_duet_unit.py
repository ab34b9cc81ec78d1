"""Unit tests for engine/run/duet.py: the two sides of a duet start their loads together, an
error on one stops the other (both clean up, the real error is raised), the halves swap the
points' places, and each half's series are paired second by second. measure_run is replaced
by a stand-in here; tests/engine/run/test_duet_integration.py runs real servers."""

import threading
import time

import pytest

from tuninglab.engine.run import duet
from tuninglab.errors import UserError
from tuninglab.recipes.plan import Point


class Clock:
    def __init__(self):
        self.phases, self.ticks, self.lines = [], 0, []

    def say(self, line):
        self.lines.append(line)

    def phase(self, *args):
        self.phases.append(args)

    def tick(self, interval):
        self.ticks += 1


def point(name):
    return Point(name, name, {})


def test_the_cpus_are_split_in_two_equal_sets_and_one_cpu_is_refused():
    assert duet.slot_cpus([0, 1]) == ([0], [1])
    assert duet.slot_cpus([0, 1, 2, 3, 4]) == ([0, 1], [2, 3])
    with pytest.raises(UserError, match="gives the runner 1 CPU: expected at least 2"):
        duet.slot_cpus([3])


def test_both_sides_start_each_phase_together(monkeypatch):
    started = []

    def fake(run_, _binary, _data, _runs, _disks, _experiment, clock, *, cpus, sync):
        for phase in ("warm-up", "measure"):
            time.sleep(0.05 if run_.point.id == "B" else 0)   # one side always late
            sync()
            started.append((phase, run_.point.id, time.monotonic()))
        return {"point": run_.point.id, "cpus": cpus}

    monkeypatch.setattr(duet, "measure_run", fake)
    runs = [duet.Run(0, point("A"), 1), duet.Run(1, point("B"), 1)]
    records = duet.at_once(runs, None, None, None, None, Clock(), ([0], [1]))
    assert records == [{"point": "A", "cpus": [0]}, {"point": "B", "cpus": [1]}]
    for phase in ("warm-up", "measure"):
        times = [t for p, _, t in started if p == phase]
        assert max(times) - min(times) < 0.04   # A waited for B at the barrier


def test_an_error_on_one_side_stops_the_other_and_is_raised(monkeypatch):
    cleaned = []

    def fake(run_, _binary, _data, _runs, _disks, _experiment, clock, *, cpus, sync):
        try:
            sync()
            if run_.point.id == "B":
                raise UserError("server B failed to start")
            while True:   # A measures until told to stop, at its next second
                clock.tick(None)
                time.sleep(0.01)
        finally:
            cleaned.append(run_.point.id)

    monkeypatch.setattr(duet, "measure_run", fake)
    runs = [duet.Run(0, point("A"), 1), duet.Run(1, point("B"), 1)]
    clock = Clock()
    with pytest.raises(UserError, match="server B failed to start"):
        duet.at_once(runs, None, None, None, None, clock, ([0], [1]))
    assert sorted(cleaned) == ["A", "B"] and threading.active_count() == 1


def test_a_side_failing_before_the_barrier_breaks_it_for_the_other(monkeypatch):
    def fake(run_, _binary, _data, _runs, _disks, _experiment, clock, *, cpus, sync):
        if run_.point.id == "A":
            raise UserError("no room for A's copy")
        sync()   # B would wait here for ever without the abort

    monkeypatch.setattr(duet, "measure_run", fake)
    runs = [duet.Run(0, point("A"), 1), duet.Run(1, point("B"), 1)]
    with pytest.raises(UserError, match="no room for A's copy"):
        duet.at_once(runs, None, None, None, None, Clock(), ([0], [1]))


def test_the_second_half_swaps_the_points_places(monkeypatch):
    seen = []

    def fake(run_, _binary, _data, _runs, _disks, _experiment, clock, *, cpus, sync):
        sync()
        seen.append((run_.point.id, run_.repeat, tuple(cpus)))
        return {"point": run_.point.id, "cpus": cpus, "summary": {"tps": 100.0},
                "server_cpus": cpus}

    monkeypatch.setattr(duet, "measure_run", fake)

    clock = Clock()
    out = duet.halves(point("B"), point("A"), 1, None, None, None, None, clock,
                      ([0], [1]))
    assert clock.lines[0] == ("duet repeat 1, half 1 of 2: B on CPU 0, A on CPU 1, both loads "
                              "at once")
    assert clock.lines[3] == ("duet repeat 1, half 2 of 2: A on CPU 0, B on CPU 1, both loads "
                              "at once")
    assert [h["cpus"] for h in out] == [{"tested": [0], "baseline": [1]},
                                        {"tested": [1], "baseline": [0]}]
    assert [(h["tested"]["point"], h["baseline"]["point"]) for h in out] == [("B", "A")] * 2
    assert sorted(seen) == [("A", 1, (1,)), ("A", 2, (0,)), ("B", 1, (0,)), ("B", 2, (1,))]


def test_a_halfs_series_are_paired_up_to_the_shorter_end():
    half = {"tested": {"series": {"tps": [10.0, 11.0, 12.0, None]}},
            "baseline": {"series": {"tps": [5.0, 5.5, None, None]}}}
    paired = duet.paired(half)
    assert list(paired.values) == [10.0, 11.0] and list(paired.baseline) == [5.0, 5.5]


def test_the_comparison_of_two_halves_cancels_the_placement():
    # the tested setting is 10% faster; the first CPUs give whoever is on them 20% more
    def half(first_is_tested):
        on_first, on_second = [1.2 * 100 * (1.1 if first_is_tested else 1)] * 50, \
            [100 * (1 if first_is_tested else 1.1)] * 50
        tested, base = (on_first, on_second) if first_is_tested else (on_second, on_first)
        return {"tested": {"series": {"tps": [x * (1 + 0.01 * (i % 3)) for i, x in
                                              enumerate(tested)]}},
                "baseline": {"series": {"tps": base}}}

    c = duet.comparison([half(True), half(False)])
    assert c.comparison.ratio == pytest.approx(1.1, rel=0.01)
    assert c.placement == pytest.approx(1.2, rel=0.01)
