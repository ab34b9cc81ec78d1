"""The pooled estimates' coverage check (issue 37): an A/A pooled over k results (k = 2..6, from
1 to 4 sittings) must hold 1 in its 95% interval about 95% of the time. Printed as a ratio to
that target, for each k, then the two cases the issue names (direct-io O_DIRECT, btrfs) as
results/pooling.py pools today's committed files.

With calibration records of at least MIN_SITTINGS sittings in data/calibrations/, the A/A
results are theirs: each trial pools k of them, the between-sitting sd taken from the other
sittings' records. Without (as today), the A/A results are simulated: each is drawn like a
committed result's comparison (its point's and baseline's repeats, their spread on the log
scale, paired for a switchback), shifted by its sitting's deviation drawn with the stated
between-sitting sd, and the host class's calibration is simulated the same way (CALIBRATIONS
sittings of a restart and a switchback A/A). Neither starts anything: a few seconds of CPU."""

from __future__ import annotations

import json
import math
import random
import time
from dataclasses import dataclass, replace
from pathlib import Path

from tuninglab import files
from tuninglab.files import DATA_DIR
from tuninglab.results import calibrations, pooling
from tuninglab.results.pooling import Estimate

TARGET = 0.95
TRIALS = 1000
KS = range(2, 7)
MAX_SITTINGS = 4
CALIBRATIONS = 6        # simulated A/A calibration sittings of the host class
MIN_SITTINGS = 8        # real records needed to check on them instead
# The between-sitting sd the simulated A/A results have (log scale), and a larger one that the
# fallback's assumed 5% understates: the second shows what an uncalibrated host class risks.
SIM_BETWEEN_SD = 0.03
SIM_LARGE_BETWEEN_SD = 0.10
# A result "precise" when its standard error is under this (log scale); the calibration
# sittings its coverage is shown for.
PRECISE_SE = 0.02
PRECISE_CALIBRATIONS = (2, 4, CALIBRATIONS)
NOT_RESULTS = ("claims", "historical", calibrations.DIR)


@dataclass(frozen=True)
class Noise:
    """One committed comparison's noise: the sd of the point's and the baseline's log repeats
    and their counts (paired: the sd of the rounds' log ratios, sd_base 0)."""
    sd_point: float
    n_point: int
    sd_base: float
    n_base: int
    paired: bool


def committed_noise(data_dir: Path = DATA_DIR) -> list[Noise]:
    """The noise of every comparison of the committed results whose repeats give one."""
    out = []
    for directory in files.directories(data_dir)[0]:  # as data/ is read: no link, no FIFO
        if directory.name not in NOT_RESULTS:
            out += [n for path in files.listing(directory, ".json")[0] for n in _noise(_read(path))]
    return out


def _read(path: Path) -> dict:
    return json.loads(files.read_regular(path, files.MAX_DATA_BYTES).decode("utf-8"))


def _log_sd(values: list[float]) -> float | None:
    if len(values) < 2 or min(values) <= 0:
        return None
    logs = [math.log(v) for v in values]
    mean = sum(logs) / len(logs)
    return math.sqrt(sum((x - mean) ** 2 for x in logs) / (len(logs) - 1))


def _noise(doc: dict) -> list[Noise]:
    metric = doc.get("workload", {}).get("metric", "tps")
    base = next(p for p in doc["points"] if p["id"] == doc["sweep"]["baseline"])
    paired = doc["plan"].get("design") == "switchback"
    out = []
    for p in doc["points"]:
        if p is base:
            continue
        if paired:
            theirs = {r["repeat"]: r["summary"][metric] for r in base["runs"]}
            pairs = [(r["summary"][metric], theirs[r["repeat"]]) for r in p["runs"]
                     if r["repeat"] in theirs]
            sd = _log_sd([a / b for a, b in pairs]) if min(map(min, pairs), default=0) > 0 \
                else None
            found = sd and Noise(sd, len(pairs), 0.0, len(pairs), True)
        else:
            sp = _log_sd([r["summary"][metric] for r in p["runs"]])
            sb = _log_sd([r["summary"][metric] for r in base["runs"]])
            found = sp and sb and Noise(sp, len(p["runs"]), sb, len(base["runs"]), False)
        if found:
            out.append(found)
    return out


def simulate(rng: random.Random, noise: Noise, shift: float, sitting: str,
             excess: float = 0.0) -> Estimate | None:
    """An A/A result with that noise, its true log ratio `shift` (its sitting's deviation);
    a switchback's run also lands N(0, excess^2) off, which its rounds do not show."""
    if noise.paired and excess:
        shift += rng.gauss(0.0, excess)
    if noise.paired:
        diffs = [rng.gauss(shift, noise.sd_point) for _ in range(noise.n_point)]
        found = pooling.estimate([math.exp(d) for d in diffs], [1.0] * len(diffs), paired=True)
    else:
        point = [math.exp(rng.gauss(shift, noise.sd_point)) for _ in range(noise.n_point)]
        base = [math.exp(rng.gauss(0.0, noise.sd_base)) for _ in range(noise.n_base)]
        found = pooling.estimate(point, base)
    return found and replace(found, sitting=sitting)


def draw(rng: random.Random, noises: list[Noise], shift: float, sitting: str,
         excess: float = 0.0) -> tuple[Estimate, Noise]:
    """A simulated A/A result (simulate) as noisy as one of noises, drawn again until one
    gives an estimate, and the noise it was drawn with."""
    found = None
    while found is None:
        noise = rng.choice(noises)
        found = simulate(rng, noise, shift, sitting, excess)
    return found, noise


def _results(rng, noises, k: int, between_sd: float, prefix: str) -> list[Estimate]:
    """k simulated A/A results from 1 to MAX_SITTINGS sittings (each sitting at least one)."""
    sittings = rng.randint(1, min(k, MAX_SITTINGS))
    shifts = [rng.gauss(0.0, between_sd) for _ in range(sittings)]
    where = list(range(sittings)) + [rng.randrange(sittings) for _ in range(k - sittings)]
    return [draw(rng, noises, shifts[s], f"{prefix}{s}")[0] for s in where]


def _calibration(rng, noises, between_sd: float,
                 sittings: int = CALIBRATIONS) -> tuple[float, int]:
    """A host class's between-sitting sd as that many simulated lab.noise sittings give it
    (two A/A results each: a restart-like and a switchback-like comparison when both exist)."""
    return calibrations.between_sd_of(aa_calibration(rng, noises, between_sd, sittings)[0])


def aa_calibration(rng, noises, between_sd: float, sittings: int = CALIBRATIONS,
                   excess: float = 0.0) -> tuple[list[Estimate], list[bool]]:
    """That many simulated lab.noise sittings' A/A estimates (a restart-like and a
    switchback-like comparison each when both exist) and whether each is a switchback's."""
    kinds = [[n for n in noises if not n.paired] or noises, [n for n in noises if n.paired]
             or noises]
    estimates, paired = [], []
    for s in range(sittings):
        shift = rng.gauss(0.0, between_sd)
        for kind in kinds:
            found, noise = draw(rng, kind, shift, f"cal{s}", excess)
            estimates.append(found)
            paired.append(noise.paired)
    return estimates, paired


def simulated_coverage(noises: list[Noise], k: int, between_sd: float, calibrated: bool,
                       trials: int = TRIALS, seed: int = 1, results: list[Noise] | None = None,
                       calibration_sittings: int = CALIBRATIONS) -> float:
    """How often the pooled 95% interval of k simulated A/A results (as noisy as `results`,
    else `noises`) holds 1: with the host class's simulated calibration (from `noises`), or
    (not calibrated) the fallback's assumed sd."""
    rng, held = random.Random(seed), 0
    for _ in range(trials):
        estimates = _results(rng, results or noises, k, between_sd, "s")
        if calibrated:
            sd, sittings = _calibration(rng, noises, between_sd, calibration_sittings)
            p = pooling.pool(estimates, sd, f"{sittings} A/A sittings",
                             between_sittings=sittings)
        else:
            p = pooling.pool(estimates)
        held += p.ci_low <= 1 <= p.ci_high
    return held / trials


def record_coverage(records: list[dict], k: int, trials: int = TRIALS, seed: int = 1) -> float:
    """The coverage on real calibration records: each trial pools k A/A results of up to
    MAX_SITTINGS sittings drawn from the records, with the between-sitting sd of the others."""
    by_sitting: dict[str, list[Estimate]] = {}
    for r in records:
        for e in calibrations.aa_estimates(r):
            by_sitting.setdefault(e.sitting, []).append(e)
    names, rng, held = sorted(by_sitting), random.Random(seed), 0
    for _ in range(trials):
        chosen = rng.sample(names, rng.randint(1, min(k, MAX_SITTINGS, len(names) - 2)))
        pool_of = [e for s in chosen for e in by_sitting[s]]
        estimates = rng.sample(pool_of, min(k, len(pool_of)))
        rest = [e for s in names if s not in chosen for e in by_sitting[s]]
        sd, sittings = calibrations.between_sd_of(rest)
        p = pooling.pool(estimates, sd, "the other sittings", between_sittings=sittings)
        held += p.ci_low <= 1 <= p.ci_high
    return held / trials


# (recipe, the point, what the issue says naive pooling gives)
CASES = (("direct-io", "innodb_flush_method=O_DIRECT",
          "DerSimonian-Laird [0.52, 1.56] with the uncapped x0.49"),
         ("filesystems", "storage.filesystem=btrfs", "Hartung-Knapp [0.06, 1.04]"))


def case_estimates(recipe: str, point: str, data_dir: Path = DATA_DIR) -> list[tuple[Estimate,
                                                                                  bool]]:
    """The main experiment's (no variant) estimates of that point in the committed results,
    each labelled with its host id, and whether the run held the server to a memory cap (a
    result from before the cap is one the lead's evidence sets supersede)."""
    out = []
    for path in files.listing(Path(data_dir) / recipe, ".json")[0]:
        doc = _read(path)
        if doc.get("variant") or not any(p["id"] == point for p in doc["points"]):
            continue
        metric = doc.get("workload", {}).get("metric", "tps")
        base = next(p for p in doc["points"] if p["id"] == doc["sweep"]["baseline"])
        mine = next(p for p in doc["points"] if p["id"] == point)
        found = pooling.estimate([r["summary"][metric] for r in mine["runs"]],
                                 [r["summary"][metric] for r in base["runs"]],
                                 doc["plan"].get("design") == "switchback")
        if found:
            out.append((replace(found, sitting=doc["host"]["id"]),
                        bool((doc.get("memory") or {}).get("capped"))))
    return out


def _interval(p: pooling.Pooled) -> str:
    return (f"x{p.ratio:.2f} [{p.ci_low:.2f}, {p.ci_high:.2f}] (k={p.k}, {p.sittings} "
            f"sittings, between-sitting sd {p.between_sd:.1%})")


def run(say=print):
    """The coverage for each k as ratios to 0.95, then the issue's two cases."""
    started = time.perf_counter()
    records = calibrations.load_all(DATA_DIR)
    sittings = len({r["host"]["id"] for r in records})
    if sittings >= MIN_SITTINGS:
        say(f"A/A coverage of the pooled 95% interval, on the {len(records)} calibration "
            f"records of {sittings} sittings in data/calibrations ({TRIALS} trials per k):")
        for k in KS:
            c = record_coverage(records, k)
            say(f"  k={k}: {c:.3f}, {c / TARGET:.2f} of the {TARGET:.0%} target")
    else:
        _simulated(say, sittings)
    say("the issue's cases, as pooling.pool gives them (no calibration yet: the fallback):")
    for recipe, point, naive in CASES:
        found = case_estimates(recipe, point)
        say(f"  {recipe} {point}: naive pooling gave {naive}")
        say(f"    all {len(found)} results: {_interval(pooling.pool([e for e, _ in found]))}")
        capped = [e for e, cap in found if cap]
        if capped and len(capped) < len(found):
            say(f"    without those from before the memory cap: "
                f"{_interval(pooling.pool(capped))}")
    say(f"(all of it in {time.perf_counter() - started:.0f} s)")


def _simulated(say, sittings: int) -> None:
    noises = committed_noise()
    say(f"{sittings} sittings of calibration records in data/calibrations, fewer than "
        f"{MIN_SITTINGS}: simulated A/A results, each as noisy as one of the committed "
        f"results' {len(noises)} comparisons, from 1 to {MAX_SITTINGS} sittings; "
        f"{TRIALS} trials per k; coverage of 1 by the pooled 95% interval, and its ratio "
        f"to the {TARGET:.0%} target:")
    for between, calibrated, what in (
            (SIM_BETWEEN_SD, True, f"calibrated by {CALIBRATIONS} simulated A/A sittings"),
            (SIM_BETWEEN_SD, False, "no calibration (the assumed 5%)"),
            (SIM_LARGE_BETWEEN_SD, True, f"calibrated by {CALIBRATIONS} simulated A/A "
                                         "sittings"),
            (SIM_LARGE_BETWEEN_SD, False, "no calibration: the assumed 5% understates it")):
        cells = []
        for k in KS:
            c = simulated_coverage(noises, k, between, calibrated)
            cells.append(f"k={k} {c:.3f} ({c / TARGET:.2f})")
        say(f"  true between-sitting sd {between:.0%}, {what}:")
        say("    " + ", ".join(cells))
    precise(say, noises)


def standard_error(n: Noise) -> float:
    """The standard error of a comparison with that noise (log scale)."""
    return math.sqrt(n.sd_point**2 / n.n_point + (0.0 if n.paired else n.sd_base**2 / n.n_base))


def precise(say, noises: list[Noise], trials: int = TRIALS) -> None:
    """The case the figures above average away: results precise enough that their interval is
    mostly the between-sitting spread, from a class calibrated by few sittings (a new class has
    2). The spread's estimate from few A/A sittings is often near 0, and such a result's
    interval then misses its sitting's own deviation."""
    found = [n for n in noises if standard_error(n) < PRECISE_SE]
    if not found:
        return
    say(f"  results as precise as the {len(found)} committed comparisons with a standard "
        f"error under {PRECISE_SE:.0%} (k=1, one sitting), by the class's calibration "
        "sittings:")
    for between in (0.01, SIM_BETWEEN_SD):
        cells = []
        for n in PRECISE_CALIBRATIONS:
            c = simulated_coverage(noises, 1, between, True, trials, results=found,
                                   calibration_sittings=n)
            cells.append(f"{n} sittings {c:.3f} ({c / TARGET:.2f})")
        say(f"    true between-sitting sd {between:.0%}: " + ", ".join(cells))
