"""Does a noise control help on this host? (issue 17, item 3: each is kept only if it does.)
Each control is measured on and off in one sitting, in the order off, on, on, off, so that a
drift over the sitting favours neither:

- pinning ([measure] pin) and a steady-state warm-up ([measure] steady): a switchback A/A on
  the CPU-bound shape; the spread of a round's log ratio (what a switchback's interval is made
  of) and of the per-second throughput;
- dropping the page cache before each run in the work directory ([measure] drop_caches): a
  restart A/A on the disk-bound shape; the spread of the runs' log throughput.

A control helps when its spread is lower, by a one-sided F test at 5%; the throughput each
gives is printed too (pinning halves the server's CPUs on a 2-core host). About 30 minutes."""

import json
import math
import statistics
import tempfile
from pathlib import Path

from scipy.stats import f as f_dist
from scipy.stats import t as student_t

from tuninglab.bench import template
from tuninglab import calibrate
from tuninglab.engine.run import preflight, runner
from tuninglab.results.result import Result

SWITCHBACK_ROUNDS = 10   # per result; two results per condition
RESTART_REPEATS = 3      # per point and result
SIGNIFICANCE = 0.05
ROUNDS_FOR_WIDTH = 20    # the half-width a 20-round switchback would give
DISK_BOUND = """title = "A/A on the disk-bound shape ({label})"
question = "Does dropping the page cache before each run make runs repeat better?"
topic = "doublewrite"

[dataset]
shape = "disk-bound"

[workload]
script = "oltp_read_write"
threads = 4

[sweep]
setting = "innodb_lock_wait_timeout"
values = [50, 51]
baseline = 50

[measure]
design = "restart"
warmup = "5s"
duration = "15s"
repeats = {repeats}
drop_caches = {on}
"""


def run(say=print):
    scratch = Path(tempfile.mkdtemp(prefix="bench-noise-control-"))
    pin = _sitting(scratch, "pin", _pin_recipe, say)
    steady = _sitting(scratch, "steady", _steady_recipe, say)
    drop = _sitting(scratch, "drop", _drop_recipe, say)
    say("")
    report_switchback(pin, say, "pinning (switchback A/A, CPU-bound; server and sysbench on "
                      "CPUs of their own)", ("not pinned", "pinned"))
    report_switchback(steady, say, "a steady-state warm-up (switchback A/A, CPU-bound; at least "
                      "20 s, longer while throughput trends)", ("fixed 20 s", "steady"))
    report_drop(drop, say)
    say(f"(results kept out of data/: {scratch})")


def _switchback_recipe(key: str, on: bool, title: str) -> str:
    text = calibrate.scratch_recipe("switchback", 20, 5, SWITCHBACK_ROUNDS, title,
                                "Does a noise control make a switchback's blocks repeat?")
    return text + f"{key} = {'true' if on else 'false'}\n"


def _pin_recipe(on: bool) -> str:
    return _switchback_recipe("pin", on, f"A/A, CPUs {'pinned' if on else 'not pinned'}")


def _steady_recipe(on: bool) -> str:
    return _switchback_recipe("steady", on, f"A/A, {'steady' if on else 'fixed'} warm-up")


def _drop_recipe(on: bool) -> str:
    return DISK_BOUND.format(label="page cache dropped" if on else "page cache kept",
                             repeats=RESTART_REPEATS, on="true" if on else "false")


def _sitting(scratch: Path, control: str, recipe, say) -> dict:
    """{True: [results with the control on], False: [results without]}, run off, on, on, off."""
    recipes = scratch / "recipes"
    for on in (False, True):
        name = f"{control}-{'on' if on else 'off'}"
        (recipes / name).mkdir(parents=True)
        (recipes / name / "recipe.toml").write_text(recipe(on))
    out = {False: [], True: []}
    for on in (False, True, True, False):
        name = f"{control}-{'on' if on else 'off'}"
        opts = runner.Options(data_dir=scratch / "data", recipes_dir=recipes,
                              seed=len(out[on]) + 1)
        prepared = preflight.prepare_named(name, opts)
        plan, binary = prepared.plan, prepared.binary
        template.ensure(plan, binary, say)
        say(f"\n== {name} ({len(out[on]) + 1} of 2)")
        out[on].append(json.loads(Path(runner.run(name, opts, say, prepared)).read_text()))
    return out


def run_log_deviations(doc: dict) -> list[float]:
    """A restart A/A's runs (both points run the same) as deviations of their log throughput
    from the result's mean: sittings may differ in level, not in what is compared."""
    result = Result(doc)
    logs = [math.log(v) for p in result.points for v in p.values(result.metric)]
    mean = statistics.fmean(logs)
    return [v - mean for v in logs]


def f_test(sd_on: float, df_on: int, sd_off: float, df_off: int) -> float:
    """The one-sided p value of "the control lowers the variance" (F test)."""
    return float(f_dist.cdf((sd_on / sd_off) ** 2, df_on, df_off))


def half_width_pct(sd: float, rounds: int = ROUNDS_FOR_WIDTH) -> float:
    """The 95% half-width, in %, of a ratio from `rounds` paired rounds with this spread."""
    return (math.exp(student_t.ppf(0.975, rounds - 1) * sd / math.sqrt(rounds)) - 1) * 100


def verdict(p: float, ratio: float) -> str:
    if p < SIGNIFICANCE and ratio < 1:
        return f"helps (F test p = {p:.3f}): keep it"
    return f"does not help here (F test p = {p:.2f}): not kept"


def _level(docs: list[dict]) -> float:
    name = Result(docs[0]).metric
    return statistics.median(v for d in docs for p in Result(d).points for v in p.values(name))


def report_switchback(results: dict, say, title: str, labels: tuple) -> None:
    """A switchback control's spreads without and with it, and whether it helps."""
    sd = {on: calibrate.pooled_sd([calibrate.round_log_ratios(d) for d in results[on]])
          for on in (False, True)}
    cv = {on: statistics.median(calibrate.per_second_cv_pct(d) for d in results[on])
          for on in (False, True)}
    ratio = sd[True][0] / sd[False][0]
    p = f_test(*sd[True], *sd[False])
    say(f"{title}:")
    for on, label in zip((False, True), labels):
        say(f"  {label:11} round log-ratio sd {sd[on][0] * 100:.2f}% ({sd[on][1]} df), "
            f"{ROUNDS_FOR_WIDTH} rounds give ±{half_width_pct(sd[on][0]):.1f}%; per-second "
            f"CV {cv[on]:.1f}%; median {_level(results[on]):.0f} tps{_warm_ups(results[on])}")
    say(f"  spread {labels[1]} / {labels[0]}: {ratio:.2f}; {verdict(p, ratio)}")


def _warm_ups(docs: list[dict]) -> str:
    seconds = [w["seconds"] for w in (Result(d).warm_up for d in docs) if w]
    return f"; warm-ups {', '.join(f'{s} s' for s in seconds)}" if seconds else ""


def report_drop(results: dict, say) -> None:
    sd = {on: calibrate.pooled_sd([run_log_deviations(d) for d in results[on]])
          for on in (False, True)}
    ratio = sd[True][0] / sd[False][0]
    p = f_test(*sd[True], *sd[False])
    say("dropping the page cache before each run (restart A/A, disk-bound, work directory):")
    for on, label in ((False, "kept"), (True, "dropped")):
        say(f"  {label:8} run-to-run sd of log throughput {sd[on][0] * 100:.2f}% "
            f"({sd[on][1]} df); median {_level(results[on]):.0f} tps")
    say(f"  spread dropped / kept: {ratio:.2f}; {verdict(p, ratio)}")
