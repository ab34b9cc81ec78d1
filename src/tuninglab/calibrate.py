"""`invoke lab.noise`: how noisy this host is, measured by three A/A experiments (two points
that run the same thing: innodb_lock_wait_timeout 50 and 51, which oltp_write_only's
transactions, each on its own rows, never wait on), one per design: switchback, restart and
duet (the duet's calibrates the duet's host class, each server on half the machine). Its
figures go into the work directory (engine/measure/noise.py keeps them): every later result
of this host carries them, and the dry run says from them what precision to expect. The A/A
comparisons themselves are kept as data too (results/calibrations.py):
data/calibrations/<UTC stamp>-<host id prefix>.json, from which the pooled estimates take a
host class's between-sitting spread.

The figures: how much throughput moves from one second to the next, and (restart) from one run
to the next; the spread of a switchback round's log ratio and of a duet half's (and of a
batch's within it); and per design the 95% interval an A/B of 5 minutes would give here, with
(switchback, restart) the smallest effect it would call faster or slower 8 times in 10."""

import json
import math
import statistics
import tempfile
from pathlib import Path

from scipy.stats import t as student_t

from tuninglab import files
from tuninglab.engine.measure import noise
from tuninglab.engine.measure.noise import FILE
from tuninglab.engine.run import runner
from tuninglab.engine.run.duet import slot_cpus
from tuninglab.engine.server.roots import HOST_SERVER
from tuninglab.errors import UserError
from tuninglab.evidence.host_class import host_class, server_of
from tuninglab.recipes.plan import RUN_OVERHEAD_S
from tuninglab.results import calibrations, document, sitting_model
from tuninglab.results import duet as duet_stats
from tuninglab.results.result import paired_runs, paired_series

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
# minutes; a duet's repeat is two halves of about a minute, 6 halves (quick: 4) so that its
# record's comparison (paired by half, as a duet result pools) has 5 degrees of freedom.
SHAPES = {"switchback": {"full": (20, 5, 20), "quick": (20, 5, 10)},
          "restart": {"full": (5, 20, 5), "quick": (5, 20, 3)},
          "duet": {"full": (20, 40, 3), "quick": (20, 40, 2)}}
DESIGNS = tuple(SHAPES)


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
              data_dir: Path | None = None, designs=DESIGNS, server: str | None = None) -> dict:
    """Run the designs' A/A experiments on this host (all three unless told; a duet only where
    the host gives the runner two CPUs) with the host's server or `server` (a root's name),
    store their calibration record under data_dir (data/) and, for the host's server, their
    figures in the work directory (beside the figures of its other designs this host measured
    before), and return the figures."""
    wd = Path(wd or files.default_workdir()).resolve()
    designs = chosen(designs, say)
    scratch = Path(tempfile.mkdtemp(prefix="tuninglab-noise-"))
    docs = {}
    for design in designs:
        name = f"noise-{design}"
        (scratch / "recipes" / name).mkdir(parents=True)
        (scratch / "recipes" / name / "recipe.toml").write_text(recipe_text(design, quick))
        say(f"== A/A, {design}" + (f" on {server}" if server else ""))
        opts = runner.Options(workdir=wd, data_dir=scratch / "data",
                              recipes_dir=scratch / "recipes", server=server)
        docs[design] = json.loads(Path(runner.run(name, opts, say)).read_text())
    first = docs.get("restart") or next(iter(docs.values()))
    figures = {**_earlier(wd, first["host"]["id"]), "host_id": first["host"]["id"],
               "measured": document.now(), "shape": first["dataset"]["shape"],
               **{design: FIGURES[design](doc) for design, doc in docs.items()}}
    host_server = server in (None, HOST_SERVER)
    if host_server:
        files.atomic_write_json(wd / FILE, figures)
    record = write_record(docs, figures["measured"], quick, data_dir or files.DATA_DIR)
    say("")
    say(report(figures))
    # A dry run predicts from the host's server's figures: another server's leave them alone.
    say(f"\nwrote {wd / FILE}; results of this host now carry these figures" if host_server
        else f"\nleft {wd / FILE} alone: it holds the host's server's figures, which dry runs "
             "and results carry")
    say(f"wrote {record}: the A/A comparisons, for the host class's between-sitting spread"
        if record else "no calibration record: no A/A gave a comparison (a repeat of 0?)")
    if record:
        say(sittings_text(json.loads(record.read_text()), data_dir or files.DATA_DIR))
    return figures


def chosen(designs, say=print) -> tuple[str, ...]:
    """The designs to calibrate, in DESIGNS' order (a comma-separated text or a sequence);
    a duet left out, saying why, where the runner has fewer than 2 CPUs. UserError for a
    design that is not one."""
    wanted = [d.strip() for d in (designs.split(",") if isinstance(designs, str) else designs)]
    unknown = [d for d in wanted if d not in DESIGNS]
    if unknown or not wanted:
        raise UserError(f"--designs {','.join(wanted)!r}: expected one or more of "
                        f"{', '.join(DESIGNS)}, separated by commas")
    if "duet" in wanted:
        try:
            slot_cpus()
        except UserError as exc:
            say(f"no duet A/A: {exc}")
            wanted.remove("duet")
    if not wanted:
        raise UserError("nothing to calibrate here: a duet needs two CPUs; expected "
                        "--designs switchback,restart")
    return tuple(d for d in DESIGNS if d in wanted)


def _earlier(wd: Path, host_id: str) -> dict:
    """This host's figures of each design from its earlier lab.noise (kept when this one
    measures other designs)."""
    return {d: f for d, f in (noise.load(wd, host_id) or {}).items() if d in DESIGNS}


def sittings_text(record: dict, data_dir: Path) -> str:
    """What a new record adds to its host classes' calibration (the whole machine's, and the
    duet's where it holds a duet A/A) on its server, whose own records its verdicts use
    (claim_verdicts.calibration): a sitting is one machine (its host id), so a second record
    from the same machine adds A/A comparisons, not a sitting."""
    records = calibrations.load_all(data_dir)
    return "\n".join(_sittings_line(record, records, duet)
                     for duet in (False, True) if calibrations.aa_estimates(record, duet))


def _sittings_line(record: dict, records: list, duet: bool) -> str:
    cls, server = host_class(record, duet), server_of(record)
    mine = [r for r in records if host_class(r, duet).key == cls.key
            and server_of(r) == server and calibrations.aa_estimates(r, duet)]
    me = record["host"]["id"]
    machines = {r["host"]["id"] for r in mine}
    again = sum(r["host"]["id"] == me for r in mine) > 1
    head = (f"this machine ({me[:8]}) had a record already: a sitting is one machine, so "
            if again else "")
    count = f"{head}the host class ({cls.name}) has {server}'s records from {len(machines)} " \
            f"machine{'s' * (len(machines) != 1)}"
    tau, excess = sitting_model.spreads(
        [e for r in mine for e in calibrations.aa_estimates(r, duet)])
    return (f"{count}: with them, its verdicts on {server} take the between-sitting sd as about "
            f"{100 * tau:.1f}% and a {'duet' if duet else 'switchback'}'s per-run excess as "
            f"about {100 * excess:.1f}% (posterior medians; priors half-normal, "
            f"{100 * sitting_model.TAU_SCALE:g}% and {100 * sitting_model.EXCESS_SCALE:g}%)")


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


def duet_figures(doc: dict) -> dict:
    """A duet A/A's figures: the spread of a half's log ratio about its place's mean (what a
    duet result's own interval and its pooled estimate rest on, results/duet.py and
    pooling.placed_estimate; None from one repeat), of a batch's within its half (the floor of
    that interval), the place's own effect, and the interval a duet of this shape gets in 5
    minutes (None from an A/A of one repeat, or where 5 minutes hold one)."""
    plan = doc["plan"]
    base, other = _points(doc)
    halves = [duet_stats.Half(*paired_series(a, b))
              for a, b in zip(*paired_runs(other["runs"], base["runs"]))]
    size = min(len(h.values) for h in halves) // noise.DUET_BATCHES
    batch_sd, _ = pooled_sd(duet_stats.batch_ratios(h, noise.DUET_BATCHES, f"half {i + 1}")
                            for i, h in enumerate(halves))
    wall = plan["warmup_s"] + plan["duration_s"] + RUN_OVERHEAD_S
    fit = max(2, int(FIVE_MINUTES // wall) // 2 * 2)   # whole pairs of halves
    figures = {"half_s": plan["duration_s"], "halves": len(halves), "batch_s": size,
               "per_second_cv_pct": per_second_cv_pct(doc),
               "half_log_ratio_sd_pct": _placed_sd_pct(doc),
               "batch_log_ratio_sd_pct": round(batch_sd * 100, 2)}
    return {**figures, "five_minute_halves": fit,
            "five_minute_half_width_pct": noise.duet_half_width_pct(figures,
                                                                    plan["duration_s"], fit),
            "placement": other["stats"]["ratio"].get("placement"),
            "a_a_verdict": other["stats"]["ratio"]["verdict"]}


def _placed_sd_pct(doc: dict) -> float | None:
    """The sd of a duet half's log ratio about its place's mean, ± % (None from one repeat):
    the placed estimate's standard error times the square root of its halves."""
    entry = calibrations.design_entry(doc)
    found = entry and calibrations.estimate_of(entry)
    return round(found.se * math.sqrt(len(entry["point_values"])) * 100, 2) if found else None


FIGURES = {"switchback": switchback_figures, "restart": restart_figures, "duet": duet_figures}


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
    """The figures in words, each line naming the designs measured (earlier ones included)."""
    s, r, d = (figures.get(k) for k in DESIGNS)
    each = [(k, x) for k, x in zip(DESIGNS, (s, r, d)) if x]
    rows = [
        ("throughput from one second to the next",
         [f"±{x['per_second_cv_pct']}% ({k})" for k, x in each]),
        (f"from one run to the next (restart, {r['run_s']:g} s runs)" if r else "",
         [r and f"±{r['run_to_run_sd_pct']}%"]),
        ("a round's log ratio",
         [s and f"±{s['round_log_ratio_sd_pct']}% (switchback, {s['block_s']:g} s blocks)",
          d and _duet_rounds_text(d)]),
        ("an A/B of 5 minutes",
         [s and f"switchback ±{s['five_minute_half_width_pct']}% "
                f"({s['five_minute_repeats']} rounds)",
          r and f"restart ±{r['five_minute_half_width_pct']}% "
                f"({r['five_minute_repeats']} runs per point)",
          d and _duet_five_minutes_text(d)]),
        ("smallest effect called 8 times in 10 in 5 minutes",
         [f"{k} {x['five_minute_smallest_effect_pct']}%" for k, x in each if k != "duet"]),
        ("the A/A verdicts", [f"{k} {x['a_a_verdict']}" for k, x in each])]
    return "\n".join([f"this host's noise ({figures['measured']}):"] + [
        f"  {head}: {', '.join(p for p in parts if p)}" for head, parts in rows if any(parts)])


def _duet_five_minutes_text(d: dict) -> str:
    """A duet of 5 minutes' interval, or why it has none (one repeat, or an A/A of one)."""
    halves = f"{d['five_minute_halves']} halves, each server on half the machine"
    if d["five_minute_half_width_pct"] is None:
        return f"duet: no interval ({halves}: a duet needs two repeats, and so does its A/A)"
    return f"duet ±{d['five_minute_half_width_pct']}% ({halves})"


def _duet_rounds_text(d: dict) -> str:
    """A duet's spreads: a half's about its place's mean (from two repeats on), a batch's."""
    place = f", its place's effect (x{d['placement']:.3f}) taken out" if d["placement"] else ""
    half = (f"±{d['half_log_ratio_sd_pct']}% (a duet's half of {d['half_s']:g} s{place}), "
            if d["half_log_ratio_sd_pct"] is not None else "")
    return half + f"±{d['batch_log_ratio_sd_pct']}% (a batch of {d['batch_s']:g} s in a half)"
