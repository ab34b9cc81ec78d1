"""Reading a result document (the JSON document.py builds and result.schema.json describes):
Result, one result file; Point, one point of its sweep; their comparisons to the baseline are
Ratios (ratio.py). Result and Point wrap the dict as it is (raw) and read it through accessors
(Field, properties) whose defaults are those of files written before a key existed, so every old
file keeps loading. None writes: the document stays the one format the engine writes, data.check
checks and the site publishes.
"""

from __future__ import annotations

import math
import re
import statistics
from copy import copy
from dataclasses import fields
from functools import cached_property
from typing import Generic, TypeVar

from tuninglab.results import duet, pooling, read_view, stats
from tuninglab.results.metrics import WINDOWED, is_amount, run_value
from tuninglab.results.ratio import Ratio
from tuninglab.results.stats import Summary

T = TypeVar("T")
REQUIRED = object()  # Field: a key every result file has
CONTRIBUTED_SITTING = "contributions"  # Result.sitting of every contributed result


def _summary(stored: dict | None) -> Summary | None:
    """A stored summary (a cost's carries its ratio too), as stats.summarize made it."""
    return None if stored is None else Summary(**{f.name: stored[f.name] for f in fields(Summary)})


def _words(metric: str) -> tuple:
    """The words a metric's verdicts are shown in (Ratio.words): a latency's lower or higher."""
    return stats.LATENCY_WORDS if "latency" in metric else ()


class Field(Generic[T]):
    """A read-only accessor of a document's value at a path of keys: raw[a][b]; with a default,
    the default where a key is missing or null (what a file written before the key existed
    reads as; a copy, so that no two reads share an empty list)."""

    def __init__(self, *path: str, default=REQUIRED):
        self.path, self.default = path, default

    def __get__(self, obj, owner=None) -> T:
        if obj is None:
            return self
        value = obj.raw
        for key in self.path:
            if self.default is REQUIRED:
                value = value[key]
            else:
                value = value.get(key) if isinstance(value, dict) else None
        return copy(self.default) if value is None and self.default is not REQUIRED else value


class _Read:
    """A read-only view of a document's dict (raw), which stays the document."""

    def __init__(self, raw: dict):
        self.__dict__["raw"] = raw

    def __setattr__(self, name, value):
        raise AttributeError(f"{name} is read-only: a result is read, never written")


class Point(_Read):
    """One point of a result's sweep: its id and swept value (as the recipe names it), its
    runs (each a dict: repeat, summary, series, lab), the statistics computed from them and
    what its per-second series showed (trends, results/timeseries.py)."""

    id = Field[str]("id")
    value = Field[str]("value")
    settings = Field[dict]("settings")  # the server options the point sets
    runs = Field[list]("runs")
    stats = Field[dict]("stats", default={})
    trends = Field[dict | None]("trends", default=None)

    def __init__(self, raw: dict, baseline: str | None, margin: float | None = None):
        super().__init__(raw)
        self.__dict__["_baseline"] = baseline
        self.__dict__["_margin"] = margin  # the result's smallest effect worth knowing

    @property
    def is_baseline(self) -> bool:
        return self.id == self._baseline

    def summary(self, metric: str) -> Summary | None:
        """The point's summary of a metric over its runs (None: none stored)."""
        return _summary(self.stats.get(metric))

    @property
    def ratio(self) -> Ratio | None:
        """The primary metric's comparison to the baseline (None: the baseline itself)."""
        return Ratio.of(self.stats.get("ratio"), self._margin)

    @property
    def costs(self) -> dict:
        """{cost key: its summary with its "ratio"} for the costs every run measured."""
        return self.stats.get("cost", {})

    def cost(self, key: str) -> Summary | None:
        return _summary(self.costs.get(key))

    def cost_ratio(self, key: str) -> Ratio | None:
        """A cost's comparison to the baseline's (None: the baseline, or not measured)."""
        return Ratio.of((self.costs.get(key) or {}).get("ratio"), self._margin, _words(key))

    @property
    def regime_reached(self) -> bool:
        """Whether the point and the baseline met the recipe's regime checks (no checks: yes)."""
        return self.stats.get("regime", {}).get("reached", True)

    def values(self, metric: str) -> list:
        """Each run's value of a metric of its summary (None where it has none)."""
        return [run["summary"].get(metric) for run in self.runs]

    def measured(self, metric: str) -> list:
        """Each run's value of a metric: its summary's, else its IO per transaction's."""
        return [run["summary"].get(metric, run["summary"]["io"].get(metric))
                for run in self.runs]

    def run_values(self, metric: str) -> list:
        """Each run's value of any metric a run records: its summary's, its IO per
        transaction's or its cost's (None where the run has none)."""
        return [run_value(run["summary"], metric) for run in self.runs]

    def centre(self, metric: str) -> float | None:
        """The estimate the ratios and the 95% intervals use, to show beside them: the
        geometric mean of the runs (the arithmetic mean where a run measured 0, whose interval
        is then the mean's); None where a run lacks the metric. A median beside a ratio of
        geometric means can contradict it: 1,499 vs 1,508 tps beside "ratio 1.09"."""
        values = self.run_values(metric)
        if not values or any(v is None for v in values):
            return None
        if min(values) > 0:
            return math.exp(statistics.fmean(math.log(v) for v in values))
        return statistics.fmean(values)

    def io(self, where: str, field: str) -> list:
        """Each run's IO per transaction field at where ("io", "array_io"...), None: not there."""
        return [run["summary"].get(where, {}).get(field) for run in self.runs]

    @property
    def labs(self) -> list[dict]:
        """The lab VM's record of each run that ran in it."""
        return [run["lab"] for run in self.runs if "lab" in run]


class Result(_Read):
    """One result file: what ran (recipe, variant, profile, plan, workload), where (host,
    software, server, storage, device baseline), who ran it (contribution, fleet) and its
    points. A default is what a file written before its key existed reads as."""

    # What ran: the recipe (its variant, "" for the main experiment) and the plan.
    recipe = Field[str]("recipe", "name")
    title = Field[str]("recipe", "title")
    variant = Field[str]("variant", default="")
    profile = Field[str]("profile")
    repeats = Field[int]("plan", "repeats")
    duration_s = Field[float]("plan", "duration_s")  # 0: an untimed workload (a scan)
    design = Field[str]("plan", "design", default="restart")  # or switchback, or duet
    # A switchback's warm-up to a steady state: seconds, steady, bound_s (None: none).
    warm_up = Field[dict | None]("switchback", "warm_up", default=None)
    # The load: its tool and primary metric (tps in files from before the scan workload).
    workload = Field[dict]("workload", default={})
    tool = Field[str | None]("workload", "tool", default=None)
    metric = Field[str]("workload", "metric", default="tps")
    shape = Field[str | None]("dataset", "shape", default=None)
    setting = Field[str]("sweep", "setting")
    baseline = Field[str]("sweep", "baseline")  # the baseline point's id
    methods = Field[dict]("methods")
    # When, where and by whom; memory: a disk-bound shape's memory model (None before it).
    run_id = Field[str | None]("run_id", default=None)
    started = Field[str]("started")
    finished = Field[str | None]("finished")
    host = Field[dict]("host")
    host_id = Field[str]("host", "id")
    cpu_model = Field[str | None]("host", "cpu_model", default=None)
    software = Field[dict]("software", default={})
    memory = Field[dict | None]("memory", default=None)
    # A contribution: data.submit's block and the contributor's words (None: the project's).
    contribution = Field[dict | None]("contribution", default=None)
    description = Field[str | None]("contribution", "description", default=None)
    fleet_host = Field[str | None]("fleet", "host", default=None)  # as the inventory names it
    invalid = Field[list]("invalid", default=[])  # why the result is not charted
    file = Field[str | None]("_file", default=None)  # where the site serves it (the site's)

    @classmethod
    def of(cls, doc: dict | Result) -> Result:
        """doc as a Result (a Result stays itself)."""
        return doc if isinstance(doc, Result) else cls(doc)

    @property
    def rounds(self) -> int:
        """The repeat numbers each point's runs carry: a duet's halves, two a plan repeat;
        every other design's repeats (a switchback's rounds)."""
        return self.repeats * (2 if self.design == "duet" else 1)

    @property
    def experiment(self) -> str:
        """recipe, or recipe:variant."""
        return self.recipe + (f":{self.variant}" if self.variant else "")

    @property
    def smallest_effect(self) -> float:
        """The equivalence verdicts' margin, a fraction (files from before it: the default)."""
        pct = self.raw["plan"].get("smallest_effect_pct")
        return stats.DEFAULT_SMALLEST_EFFECT if pct is None else pct / 100

    @cached_property
    def points(self) -> list[Point]:
        baseline = (self.raw.get("sweep") or {}).get("baseline")
        margin = self.smallest_effect if "plan" in self.raw else None  # a hand-made document
        return [Point(p, baseline, margin) for p in self.raw["points"]]

    def point(self, point_id: str) -> Point:
        """The point of that id (StopIteration: none)."""
        return next(p for p in self.points if p.id == point_id)

    @property
    def baseline_point(self) -> Point:
        return self.point(self.baseline)

    @property
    def labs(self) -> list[dict]:
        """The lab VM's record of each run that ran in it (empty for a run on the host)."""
        return [lab for p in self.points for lab in p.labs]

    @property
    def date(self) -> str:
        """The day it started, 2026-11-24."""
        return self.started[:10]

    @property
    def server(self) -> str:
        """The server's flavor and version: "mariadb 10.11.6"."""
        return f"{self.raw['server']['flavor']} {self.raw['server']['version']}"

    @property
    def server_version(self) -> tuple[str, tuple]:
        """The server's flavour and (major, minor, patch), as recipes/server_names.py takes them."""
        server = self.raw.get("server") or {}
        return str(server.get("flavor", "")), \
            tuple(int(d) for d in re.findall(r"\d+", str(server.get("version", "")))[:3])

    def device(self, field: str) -> float | None:
        """A device baseline measure, None when it was not measured (or is 0)."""
        value = (self.raw.get("device_baseline") or {}).get(field)
        return value if isinstance(value, (int, float)) and value > 0 else None

    @property
    def contributed(self) -> bool:
        return bool(self.contribution)

    @property
    def sitting(self) -> str:
        """The sitting the result counts in when results are pooled: its machine instance (the
        host id), except for a contribution. A contributor chooses the host ids of the files
        it sends and nothing in a file proves who sent it, so 20 copies under 20 invented ids
        would be 20 sittings: every contribution of a host class counts as one sitting
        (contributions never pool with the project's results: evidence/sets.py)."""
        return CONTRIBUTED_SITTING if self.contributed else self.host_id

    def comparison(self, point: Point, metric: str) -> Ratio | None:
        """A point's comparison to the baseline in a metric, with its verdict in that metric's
        words: the primary metric's (point.ratio), a cost's (stored), or any other the runs
        record (bytes written per transaction, p95 latency) computed from them as a cost is
        (less or more; faster or slower for one where higher is better). None: the baseline,
        or a run of either lacks the metric."""
        if point.is_baseline or metric == self.metric:
            return None if point.is_baseline else point.ratio
        if metric in point.costs:
            return point.cost_ratio(metric)
        try:
            values, base, paired = self.compared_values(point, metric)
        except KeyError:
            return None
        if not values or not base or None in values + base:
            return None
        # An amount (lower or neither way better) in less or more; a 0 has no logarithm.
        cost = is_amount(metric) or min(values + base) <= 0
        compared = stats.compared(values, base, self.smallest_effect, paired, cost)
        return Ratio.of(compared.to_dict(), self.smallest_effect, _words(metric))


    def estimate(self, point: Point, values: list, base: list, metric: str = ""):
        """The comparison of compared_values' values (of `metric`, "" the primary one) as a
        pooled verdict takes it (a pooling.Estimate, None when they give none): a duet's halves
        with their places cancelled and its batches' floor, any other design's repeats paired
        by round or not."""
        if self.design == "duet":
            base_runs = self.baseline_point.runs
            return pooling.placed_estimate(values, base, places(point.runs, base_runs),
                                           batch_floor(point.runs, base_runs,
                                                       metric or self.metric))
        return pooling.estimate(values, base, paired=self.design == "switchback")

    def compared_values(self, point: Point, metric: str) -> tuple[list, list, bool]:
        """(the point's values of a metric, the baseline's, paired): the repeats its comparison
        with the baseline uses, a switchback's paired by round (paired_runs). A windowed metric
        (metrics.WINDOWED) is its series' mean over the window, None for a run without it; any
        other is the run summary's own, its IO per transaction's (requests at the device, a
        RAID's members summed) or its cost's. KeyError when a run did not measure it."""
        paired, base = self.design in ("switchback", "duet"), self.baseline_point
        mine, theirs = paired_runs(point.runs, base.runs) if paired else (point.runs, base.runs)

        def value(run: dict):
            if metric in WINDOWED:
                return read_view.window_mean(run, *WINDOWED[metric])
            return run_value(run["summary"], metric, required=True)
        return [value(run) for run in mine], [value(run) for run in theirs], paired


def batch_floor(runs: list, base_runs: list, metric: str) -> tuple[float, float] | None:
    """A duet point's halves' variance as their batches give it, and its degrees of freedom
    (duet.within_variance, the floor of the duet's own interval), from the per-second series
    of the metric; None where a run has no such series, a half is too short for its batches
    or a batch saw one server do nothing."""
    mine, theirs = paired_runs(runs, base_runs)
    try:
        halves = [duet.Half(*paired_series(a, b, metric)) for a, b in zip(mine, theirs)]
        ratios = [duet.batch_ratios(h, duet.DEFAULT_BATCHES, f"half {i + 1}")
                  for i, h in enumerate(halves)]
    except (KeyError, TypeError, ValueError):
        return None
    if not ratios or min(len(h.values) for h in halves) < duet.DEFAULT_BATCHES:
        return None
    return duet.within_variance(ratios, [statistics.fmean(r) for r in ratios])


def paired_series(run: dict, base: dict, metric: str = "tps") -> tuple[list, list]:
    """Two runs' per-second series of a metric, up to the shorter one's end (sysbench may
    report a second fewer on one side, and the sampler pads a series with None to its
    longer length)."""
    values, base_values = run["series"][metric], base["series"][metric]
    n = min(len(values), len(base_values))
    while n and (values[n - 1] is None or base_values[n - 1] is None):
        n -= 1
    return values[:n], base_values[:n]


def places(runs: list, base_runs: list) -> list[bool]:
    """A duet point's halves paired with the baseline's (paired_runs): whether the point's run
    had the first place in each (it came first in the half's order)."""
    mine, theirs = paired_runs(runs, base_runs)
    return [a["order"] < b["order"] for a, b in zip(mine, theirs)]


def paired_runs(runs: list, base_runs: list) -> tuple[list, list]:
    """A point's runs and the baseline's, paired by round (a switchback's repeat): the one
    pairing every switchback comparison uses."""
    theirs = {run["repeat"]: run for run in base_runs}
    mine = sorted((run for run in runs if run["repeat"] in theirs),
                  key=lambda run: run["repeat"])
    return mine, [theirs[run["repeat"]] for run in mine]
