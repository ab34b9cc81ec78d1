"""`invoke lab.noise`: how noisy this host is, measured by two A/A experiments (two points that
run the same thing: innodb_lock_wait_timeout 50 and 51, which oltp_write_only's transactions,
each on its own rows, never wait on), one per design. Its figures go into the work directory
(engine/measure/noise.py keeps them): every later result of this host carries them, and the
dry run says from them what precision to expect. The A/A comparisons themselves are kept as data
too (results/calibrations.py): data/calibrations/<UTC stamp>-<host id prefix>.json, from which
the pooled estimates take a host class's between-sitting spread.

The figures: how much throughput moves from one second to the next, and (restart) from one run
to the next; the spread of a switchback round's log ratio; and per design the 95% interval an
A/B of 5 minutes would give here, with the smallest effect it would call faster or slower 8
times in 10."""

import json
import math
import statistics
import tempfile
from pathlib import Path

from scipy.stats import t as student_t

from tuninglab import files
from tuninglab.engine.measure.noise import FILE
from tuninglab.engine.run import runner
from tuninglab.evidence.host_class import host_class
from tuninglab.recipes.plan import RUN_OVERHEAD_S
from tuninglab.results import calibrations, document, sitting_model

FIVE_MINUTES = 300.0
POWER = 0.8  # the smallest effect detected this often
# A scratch recipe, by default on the CPU-bound shape and load of flush-log-at-trx-commit (also
# the precision benchmark's, which gives its disk-bound one other tables).
RECIPE = """title = "{title}"
question = "{question}"
topic = "{topic}"

[dataset]
shape = "{shape}"

{tables}[workload]
script = "{script}"
threads = 4

[sweep]
setting = "{setting}"
values = [{values}]
baseline = {baseline}

[measure]
design = "{design}"
warmup = "{warmup}s"
settle = "2s"
duration = "{duration}s"
repeats = {repeats}
"""
# (warm-up, measured seconds, repeats) per design, full and quick: each about 5 (quick: 2.5)
# minutes.
SHAPES = {"switchback": {"full": (20, 5, 20), "quick": (20, 5, 10)},
          "restart": {"full": (5, 20, 5), "quick": (5, 20, 3)}}


# innodb_lock_wait_timeout only matters to a transaction waiting for a lock, which
# oltp_write_only's threads, each on its own rows, hardly ever do: an A/A with real switches.
A_A = {"setting": "innodb_lock_wait_timeout", "values": "50, 51", "baseline": "50"}


def scratch_recipe(design: str, warmup: int, duration: int, repeats: int, title: str,
                   question: str = "How noisy is this host?", topic="flush-log-at-trx-commit",
                   shape="cpu-bound", script="oltp_write_only", tables="", **sweep) -> str:
    """A recipe's text, on the CPU-bound shape unless told; tables: more TOML tables, each
    ending in a blank line; sweep: setting, values (as TOML list items) and baseline, the A/A's
    by default."""
    return RECIPE.format(**{**A_A, **sweep}, title=title, question=question, design=design,
                         warmup=warmup, duration=duration, repeats=repeats, topic=topic,
                         shape=shape, script=script, tables=tables)


def recipe_text(design: str, quick: bool) -> str:
    warmup, duration, repeats = SHAPES[design]["quick" if quick else "full"]
    return scratch_recipe(design, warmup, duration, repeats,
                          f"A/A: innodb_lock_wait_timeout 50 vs 51 ({design})")


def calibrate(wd: Path | None = None, quick: bool = False, say=print,
              data_dir: Path | None = None) -> dict:
    """Run both A/A experiments on this host, store their figures in the work directory and
    their calibration record under data_dir (data/), and return the figures."""
    wd = Path(wd or files.default_workdir()).resolve()
    scratch = Path(tempfile.mkdtemp(prefix="tuninglab-noise-"))
    docs = {}
    for design in ("switchback", "restart"):
        name = f"noise-{design}"
        (scratch / "recipes" / name).mkdir(parents=True)
        (scratch / "recipes" / name / "recipe.toml").write_text(recipe_text(design, quick))
        say(f"== A/A, {design}")
        opts = runner.Options(workdir=wd, data_dir=scratch / "data",
                              recipes_dir=scratch / "recipes")
        docs[design] = json.loads(Path(runner.run(name, opts, say)).read_text())
    figures = {"host_id": docs["restart"]["host"]["id"], "measured": document.now(),
               "shape": docs["restart"]["dataset"]["shape"],
               "switchback": switchback_figures(docs["switchback"]),
               "restart": restart_figures(docs["restart"])}
    files.atomic_write_json(wd / FILE, figures)
    record = write_record(docs, figures["measured"], quick, data_dir or files.DATA_DIR)
    say("")
    say(report(figures))
    say(f"\nwrote {wd / FILE}; results of this host now carry these figures")
    say(f"wrote {record}: the A/A comparisons, for the host class's between-sitting spread"
        if record else "no calibration record: neither A/A gave a comparison (a repeat of 0?)")
    if record:
        say(sittings_text(json.loads(record.read_text()), data_dir or files.DATA_DIR))
    return figures


def sittings_text(record: dict, data_dir: Path) -> str:
    """What a new record adds to its host class's calibration: a sitting is one machine (its
    host id), so a second record from the same machine adds A/A comparisons, not a sitting.
    Every server's records of the class count (claim_verdicts.calibration's reason)."""
    cls = host_class(record)
    mine = [r for r in calibrations.load_all(data_dir) if host_class(r).key == cls.key]
    me = record["host"]["id"]
    machines = {r["host"]["id"] for r in mine}
    again = sum(r["host"]["id"] == me for r in mine) > 1
    head = (f"this machine ({me[:8]}) had a record already: a sitting is one machine, so "
            if again else "")
    count = f"{head}the host class ({cls.name}) has records from {len(machines)} " \
            f"machine{'s' * (len(machines) != 1)}"
    tau, excess = sitting_model.spreads([e for r in mine for e in calibrations.aa_estimates(r)])
    return (f"{count}: with them, its verdicts take the between-sitting sd as about "
            f"{100 * tau:.1f}% and a switchback's per-run excess as about {100 * excess:.1f}% "
            f"(posterior medians; priors half-normal, {100 * sitting_model.TAU_SCALE:g}% and "
            f"{100 * sitting_model.EXCESS_SCALE:g}%)")


def write_record(docs: dict, measured: str, quick: bool, data_dir: Path) -> Path | None:
    """The calibration record of the A/A documents under data_dir/calibrations/ (a new name,
    never over a file: a second record of the same second gets a suffix); None, writing
    nothing, when neither A/A gives a comparison."""
    record = calibrations.record_of(docs, measured, quick)
    if record is None:
        return None
    folder = Path(data_dir) / calibrations.DIR
    folder.mkdir(parents=True, exist_ok=True)
    name = calibrations.file_name(record)
    for n in range(1, 100):
        path = folder / (name if n == 1 else name.replace(".json", f"-{n}.json"))
        if files.create_json(path, record):
            return path
    raise FileExistsError(f"{folder / name}: 99 records of that second already exist")


def _points(doc: dict):
    base = document.point(doc, doc["sweep"]["baseline"])
    other = next(p for p in doc["points"] if p is not base)
    return base, other


def per_second_cv_pct(doc: dict) -> float:
    """The median, over the runs, of the per-second throughput's coefficient of variation."""
    cvs = []
    for p in doc["points"]:
        for run in p["runs"]:
            tps = [v for v in run["series"].get("tps", []) if v is not None]
            if len(tps) >= 2 and statistics.fmean(tps) > 0:
                cvs.append(statistics.stdev(tps) / statistics.fmean(tps) * 100)
    return round(statistics.median(cvs), 2) if cvs else None


def switchback_figures(doc: dict) -> dict:
    _, other = _points(doc)
    logs = round_log_ratios(doc)
    plan = doc["plan"]
    sd = statistics.stdev(logs)
    rounds = int((FIVE_MINUTES - plan["warmup_s"]) // (2 * (plan["settle_s"] + plan["duration_s"])))
    return {"block_s": plan["duration_s"], "settle_s": plan["settle_s"], "rounds": len(logs),
            "per_second_cv_pct": per_second_cv_pct(doc),
            "round_log_ratio_sd_pct": round(sd * 100, 2),
            **_five_minutes(sd / math.sqrt(rounds), rounds - 1, rounds),
            "a_a_verdict": other["stats"]["ratio"]["verdict"]}


def round_log_ratios(doc: dict) -> list[float]:
    """A switchback's per-round log ratio of the other point's block to the baseline's."""
    base, other = _points(doc)
    mine = {r["repeat"]: r["summary"]["tps"] for r in other["runs"]}
    return [math.log(mine[r["repeat"]] / r["summary"]["tps"]) for r in base["runs"]
            if r["repeat"] in mine]


def pooled_sd(groups) -> tuple[float, int]:
    """The pooled standard deviation of groups of values around each group's own mean, and its
    degrees of freedom."""
    ss, df = 0.0, 0
    for values in map(list, groups):
        mean = statistics.fmean(values)
        ss += sum((v - mean) ** 2 for v in values)
        df += len(values) - 1
    return math.sqrt(ss / df), df


def restart_figures(doc: dict) -> dict:
    # the spread of a run about its point's mean, pooled over the points
    sd, _ = pooled_sd([math.log(r["summary"]["tps"]) for r in p["runs"]] for p in doc["points"])
    plan = doc["plan"]
    runs = int(FIVE_MINUTES // (2 * (plan["warmup_s"] + plan["duration_s"] + RUN_OVERHEAD_S)))
    _, other = _points(doc)
    return {"run_s": plan["duration_s"], "repeats": plan["repeats"],
            "per_second_cv_pct": per_second_cv_pct(doc),
            "run_to_run_sd_pct": round(sd * 100, 2),
            **_five_minutes(sd * math.sqrt(2 / runs), 2 * runs - 2, runs),
            "a_a_verdict": other["stats"]["ratio"]["verdict"]}


def _five_minutes(se: float, df: int, n: int) -> dict:
    """The 95% half-width of an A/B of 5 minutes with standard error se (of the log ratio),
    and the smallest effect such an A/B calls faster or slower with POWER."""
    df = max(df, 1)
    half = student_t.ppf(0.975, df) * se
    detected = (student_t.ppf(0.975, df) + student_t.ppf(POWER, df)) * se
    return {"five_minute_repeats": n,
            "five_minute_half_width_pct": round((math.exp(half) - 1) * 100, 2),
            "five_minute_smallest_effect_pct": round((math.exp(detected) - 1) * 100, 2)}


def report(figures: dict) -> str:
    s, r = figures["switchback"], figures["restart"]
    return "\n".join([
        f"this host's noise ({figures['measured']}):",
        f"  throughput from one second to the next: ±{s['per_second_cv_pct']}% (switchback), "
        f"±{r['per_second_cv_pct']}% (restart)",
        f"  from one run to the next (restart, {r['run_s']:g} s runs): ±{r['run_to_run_sd_pct']}%",
        f"  a switchback round's log ratio ({s['block_s']:g} s blocks): "
        f"±{s['round_log_ratio_sd_pct']}%",
        f"  an A/B of 5 minutes: switchback ±{s['five_minute_half_width_pct']}% "
        f"({s['five_minute_repeats']} rounds), restart ±{r['five_minute_half_width_pct']}% "
        f"({r['five_minute_repeats']} runs per point)",
        f"  smallest effect called 8 times in 10 in 5 minutes: switchback "
        f"{s['five_minute_smallest_effect_pct']}%, restart {r['five_minute_smallest_effect_pct']}%",
        f"  the A/A verdicts: switchback {s['a_a_verdict']}, restart {r['a_a_verdict']}"])
