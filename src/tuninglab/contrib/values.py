"""data.check's rules on the values of a result: no negative or implausibly large measures, every
repeat once, one sample a second, times in order (a contribution submitted after its run) and
none in the future, unique point ids."""

import datetime as dt
import re
from itertools import islice

from tuninglab.contrib.jsonpaths import at, fmt, is_number, runs, walk
from tuninglab.recipes.model import MAX_REPEATS, MAX_THREADS
from tuninglab.results import document
from tuninglab.results.result import Result

SAMPLE_SLACK = 2                # series samples more or fewer than plan/duration_s
# No result can be older than the lab's first recipe: a date of 1970 would sort first forever.
EARLIEST = dt.datetime(2026, 1, 1, tzinfo=dt.timezone.utc)
# A plan's seconds: a warm-up, a block's settling, a run; a day is beyond any recipe's profile.
MAX_PLAN_SECONDS = 86_400

# The most any real machine could measure, by what a key's name says it holds (the first
# pattern that matches the key wins). Each bound is 10 to 1000 times beyond the fastest
# published results, so no real run comes near one; a forged 1e300 would flatten every other
# bar of a chart, and a sum of such values overflows to infinity. A host's cores (the CPUs the
# kernel runs: 2 on the project's VMs) are held to what a kernel can run: 1,000,000 passed.
BOUNDS = (
    (r"^cores$", 8192, "CPUs: the most a Linux kernel is built for (x86-64's NR_CPUS)"),
    (r"bytes", 1e17, "bytes: 100 PB, more than a day of IO at 1 TB/s"),
    (r"^mib_per_s$", 1e7, "MiB/s: 10 TiB/s, beyond any machine's memory bandwidth"),
    (r"kib_s$", 1e10, "KiB/s: 10 TiB/s, beyond any machine's memory bandwidth"),
    (r"_ms$", 1e9, "ms: 11 days, longer than any run"),
    (r"_us_per_trx$", 1e14, "CPU µs per transaction: over 1000 CPUs busy a day for one"),
    (r"tpm$", 6e9, "a minute: 100 million a second"),
    (r"^(tps|qps)$|_per_s$|iops$", 1e8, "a second: 100 million, 10 times the fastest "
                                        "published single server"),
    (r"_pct$", 100, "a percentage"),
    (r"(^t|_s|seconds)$", 1e6, "seconds: 11 days, longer than any run"),
    (r"", 1e15, "a count: a day at 10 billion a second"),
)


def now() -> dt.datetime:
    return dt.datetime.now(dt.timezone.utc)


def check_numbers(doc: dict) -> list[str]:
    """A run's summary and series hold throughputs, latencies, counts, bytes, times and
    percentages: none can be negative."""
    return [at(key, f"{value!r} is negative; expected a number >= 0")
            for run_path, run in runs(doc)
            for part in ("summary", "series")
            for key, value in walk(run[part], (*run_path, part))
            if is_number(value) and value < 0]


def check_magnitudes(doc: dict) -> list[str]:
    """No measure beyond what a real machine could produce (BOUNDS): the runs' summaries and
    series, the device baseline the charts divide by, the host."""
    parts = [(("device_baseline",), doc.get("device_baseline") or {}),
             (("host",), Result(doc).host)]
    parts += [((*run_path, part), run[part]) for run_path, run in runs(doc)
              for part in ("summary", "series")]
    problems = []
    for where, part in parts:
        for key, value in walk(part, where):
            if is_number(value):
                bound, why = bound_of(key)
                if abs(value) > bound:
                    problems.append(at(key, f"{value:g} is beyond what a machine measures; "
                                            f"expected at most {bound:g} ({why})"))
    return problems


def bound_of(path: tuple) -> tuple[float, str]:
    """The bound of the value at path, by its last key (a series' samples: the series' key)."""
    name = next((k for k in reversed(path) if isinstance(k, str)), "")
    return next((bound, why) for pattern, bound, why in BOUNDS if re.search(pattern, name))


HALVES = "a duet's halves, two for each of plan/repeats"


def check_repeats(doc: dict) -> list[str]:
    r = Result(doc)
    n = r.rounds
    problems = []
    for i, point in enumerate(r.points):
        got = sorted(run["repeat"] for run in point.runs)
        if len(got) == n and got == list(range(1, n + 1)):
            continue
        count = n - len({r for r in got if r <= n})
        first = islice((r for r in range(1, n + 1) if r not in got), 5)  # n may be a billion
        missing = f", missing {', '.join(map(str, first))}{' ...' if count > 5 else ''}" \
            if count else ""
        problems.append(at(("points", i, "runs"),
                           f"repeats {', '.join(map(str, got)) or 'none'}{missing}; expected 1 "
                           f"to {n} once each ({HALVES if n != r.repeats else 'plan/repeats'})"))
    return problems


def check_series(doc: dict) -> list[str]:
    """One sample a second: every series as long as series/t, and about plan/duration_s of
    them (a scan is untimed: duration 0, no samples or a stray one)."""
    duration = Result(doc).duration_s
    problems = []
    for run_path, run in runs(doc):
        series = run["series"]
        n = len(series["t"])
        problems += [at((*run_path, "series", key), f"{len(values)} samples; expected {n}, one "
                                                    "per entry of series/t")
                     for key, values in series.items() if len(values) != n]
        if abs(n - duration) > SAMPLE_SLACK:
            low, high = max(0, duration - SAMPLE_SLACK), duration + SAMPLE_SLACK
            problems.append(at((*run_path, "series", "t"),
                               f"{n} samples for a {duration:g} s run; expected {low:g} to "
                               f"{high:g} (plan/duration_s, one a second)"))
    return problems


def check_times(doc: dict) -> list[str]:
    """started <= each run's started <= its finished <= finished, and none in the future."""
    r = Result(doc)
    if r.finished is None:
        return [at("finished", "null; expected the time the run finished (only finished "
                               "results belong in data/)")]
    problems = []
    for run_path, run in runs(doc):
        chain = [(("started",), r.started), ((*run_path, "started"), run["started"]),
                 ((*run_path, "finished"), run["finished"]), (("finished",), r.finished)]
        times = [document.parse_time(value) for _, value in chain]
        problems += [at(key, f"{value!r} is not a date-time with a time zone; expected one "
                             "like 2026-11-21T23:38:47+00:00")
                     for (key, value), t in zip(chain, times) if t is None]
        for (earlier, early), (later, late), a, b in zip(chain, chain[1:], times, times[1:]):
            if a and b and a > b:
                problems.append(at(later, f"{late} is before {fmt(earlier)} {early}; expected "
                                          "started <= each run's started <= its finished <= "
                                          "finished"))
    return problems + submitted_time(doc) + future_times(doc) + past_times(doc)


def submitted_time(doc: dict) -> list[str]:
    """A contribution is prepared (data.submit) after its run finished."""
    r = Result(doc)
    submitted = (r.contribution or {}).get("submitted")
    at_submit, at_end = (document.parse_time(t) if isinstance(t, str) else None
                         for t in (submitted, r.finished))
    if at_submit is None or at_end is None or at_submit + document.CLOCK_SKEW >= at_end:
        return []
    skew = document.CLOCK_SKEW.seconds // 60
    return [at("contribution/submitted", f"{submitted} is before finished {r.finished}; "
                                         "expected the time invoke data.submit prepared the "
                                         f"file, after the run finished ({skew} minutes of "
                                         "clock skew allowed)")]


def past_times(doc: dict) -> list[str]:
    """A result dated before the lab existed (1970, say) is no run of its recipes."""
    r = Result(doc)
    stamps = [(("started",), r.started)] + [((*run_path, "started"), run["started"])
                                            for run_path, run in runs(doc)]
    return [at(key, f"{value} is before {EARLIEST.date()}, before the lab's first recipe; "
                    "expected the time the run ran")
            for key, value in stamps
            if (t := document.parse_time(value)) is not None and t < EARLIEST]


def check_plan(doc: dict) -> list[str]:
    """The plan's seconds, repeats and the workload's threads within what a recipe may ask
    (recipes/model.py's maxima): a forged 1e308 s warm-up or 10**19 threads is no run."""
    plan, workload = doc["plan"], doc.get("workload") or {}
    limits = [(("plan", key), plan.get(key), MAX_PLAN_SECONDS, "seconds (a day)")
              for key in ("warmup_s", "settle_s", "duration_s")]
    limits += [(("plan", "repeats"), plan.get("repeats"), MAX_REPEATS, "repeats"),
               (("workload", "threads"), workload.get("threads"), MAX_THREADS, "threads")]
    return [at(key, f"{value:g} is beyond what a recipe may ask; expected at most {bound:,} "
                    f"{what}")
            for key, value, bound, what in limits if is_number(value) and value > bound]


def future_times(doc: dict) -> list[str]:
    """A result dated in the future would sort after every real one, forever."""
    limit, r = now(), Result(doc)
    stamps = [(("started",), r.started), (("finished",), r.finished)]
    stamps += [((*run_path, key), run[key]) for run_path, run in runs(doc)
               for key in ("started", "finished")]
    stamps += [(("contribution", "submitted"), (r.contribution or {}).get("submitted"))]
    skew = document.CLOCK_SKEW.seconds // 60
    return [at(key, f"{value} is in the future (the checker's clock says "
                    f"{limit.isoformat(timespec='seconds')}); expected a time that has passed "
                    f"({skew} minutes of clock skew allowed)")
            for key, value in stamps if document.in_future(value, limit)]


def check_points(doc: dict) -> list[str]:
    """Point ids are unique (runs and charts find points by id) and the baseline is one."""
    problems, first, r = [], {}, Result(doc)
    for i, point in enumerate(r.points):
        if point.id in first:
            problems.append(at(("points", i, "id"), f"{point.id!r} is also points/"
                                                    f"{first[point.id]}/id; expected unique "
                                                    "point ids"))
        first.setdefault(point.id, i)
    baseline = r.baseline
    if baseline not in first:
        problems.append(at("sweep/baseline", f"{baseline!r} is no point; expected one of: "
                                             f"{', '.join(map(repr, first))}"))
    return problems
