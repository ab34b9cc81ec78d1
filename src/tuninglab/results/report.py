"""Plain-text tables for the terminal."""

import textwrap

from tuninglab.results import document, regime, stats, timeseries
from tuninglab.results.metrics import COST, METRICS, decimals, ratio_decimals
from tuninglab.results.ratio import Ratio
from tuninglab.results.result import Point, Result
from tuninglab.results.stats import Summary


def _fmt(value, digits=1):
    return "-" if value is None else f"{value:,.{digits}f}"


def _interval(low, high, digits=1):
    return "-" if low is None else f"{_fmt(low, digits)} .. {_fmt(high, digits)}"


def table(rows: list[list[str]]) -> str:
    widths = [max(len(str(r[i])) for r in rows) for i in range(len(rows[0]))]
    lines = ["  ".join(str(c).ljust(w) for c, w in zip(r, widths)).rstrip() for r in rows]
    lines.insert(1, "  ".join("-" * w for w in widths))
    return "\n".join(lines)


# The head of a column of the estimate the ratios compare (Point.centre): a median beside a
# ratio of geometric means can contradict it (1,499 vs 1,508 tps beside "ratio 1.09").
CENTRE = "geo. mean"
# A cost table's, shorter: that table fits 100 columns.
COST_CENTRE = "gmean"
NBSP = "\u00a0"


def results_table(doc: dict) -> str:
    """The geometric mean of the primary metric, its interval, the ratio to the baseline and
    the verdict; and the bytes written per transaction (its geometric mean too)."""
    r = Result.of(doc)
    name, written_per_trx = r.metric, METRICS["write_bytes_per_trx"]
    rows = [["point", f"{CENTRE} {METRICS[name].short}", "95% CI", "ratio", "95% CI", "verdict",
             written_per_trx.short]]
    for p in r.points:
        s, ratio = p.summary(name), p.ratio
        written = p.centre("write_bytes_per_trx")
        row = [p.id, _fmt(p.centre(name)), _interval(s.ci_low, s.ci_high)]
        if ratio is None:
            row += ["1 (baseline)", "", ""]
        else:
            row += ratio_cells(ratio, 3) + [verdict(ratio)]
        row.append(_fmt(None if written is None else written * written_per_trx.scale))
        rows.append(row)
    design = textwrap.fill(f"design: {document.design_text(r.raw)}", width=100)
    return (design + "\n\n" + table(rows) + verdicts_legend(r) + regime_table(r)
            + cost_tables(r) + trends_table(r))


def ratio_cells(ratio: Ratio, digits: int, grouped: bool = True) -> list[str]:
    """A comparison's ratio and 95% interval, as two cells of a terminal table ("-" for a
    number it has not); grouped: with thousands commas, as the report's other numbers."""
    return [ratio.text(digits, mark="", with_interval=False, with_verdict=False,
                       grouped=grouped),
            ratio.text(digits, with_ratio=False, with_verdict=False, dots=True,
                       grouped=grouped)]


def regime_table(doc: dict) -> str:
    """The recipe's regime checks: each condition, and every point's value (the median over
    its runs) and whether it met the bound; and the memory the server was held to."""
    r = Result.of(doc)
    lines = []
    block = r.memory
    if block:
        lines.append(f"memory: held to {block['limit_bytes'] // 2**20}M ({block['controller']})"
                     if block["capped"] else
                     f"memory: NOT capped ({block['reason']}): the OS may have cached the data")
    found = regime.conditions(r.raw)
    if found:
        rows = [["regime check"] + [p.value for p in r.points]]
        for i, c in enumerate(found):
            rows.append([textwrap.shorten(regime.describe(c), 90)]
                        + [_check_cell(p.raw, i) for p in r.points])
        lines += [table(rows) + "\n" + textwrap.fill(
            'A comparison whose point or baseline missed a check says "regime not reached": '
            "it measured another situation than the question's.", width=100)]
    return "".join("\n\n" + line for line in lines)


def _check_cell(p: dict, i: int) -> str:
    check = regime.check_of(p, i)
    if check is None:
        return "-"
    return f"{regime.value_text(check)} {'ok' if check['ok'] else 'MISSED'}"


def verdict(ratio: Ratio) -> str:
    """The verdict, and for an equivalence the 90% interval that decided it (the 95% one
    beside it may reach past the margin)."""
    return ratio.text(with_ratio=False, with_interval=False, dots=True, grouped=True)


def verdicts_legend(doc: dict) -> str:
    """What the verdicts mean, with this result's margin: "too noisy to tell" is not "no
    effect". Empty without a point to compare."""
    r = Result.of(doc)
    if all(p.ratio is None for p in r.points):
        return ""
    margin = r.smallest_effect
    return "\n" + textwrap.fill(
        f"{CENTRE}: the geometric mean of the repeats, which the ratios compare. "
        f"verdicts: faster or slower when the 95% CI excludes 1 (\""
        f"{stats.under_margin_text(stats.FASTER, margin, shown=True)}\" when the 90% CI lies "
        f"inside the margin too); {stats.equivalent_text(margin)}"
        f" when the 90% CI lies inside {1 / (1 + margin):.3f} .. {1 + margin:.3f} (two "
        f"one-sided tests; {margin * 100:g}% is the smallest effect worth knowing); "
        f"{stats.TOO_NOISY} otherwise (more repeats may tell).", width=100)


def cost_tables(doc: dict) -> str:
    """What a transaction cost, one table per point: each cost's geometric mean and 95%
    interval and, beside the baseline, the ratio, its interval and the verdict (less, more,
    ...). Empty for results whose runs measured no cost."""
    r = Result.of(doc)
    points = [p for p in r.points if p.costs]
    if not points:
        return ""
    tables = [cost_table(p) for p in points]
    return ("\n\n" + textwrap.fill(f"cost per transaction (lower is cheaper; {COST_CENTRE}: the "
                                   "geometric mean of the repeats, which the ratios compare; "
                                   "95% CI; ratio to the baseline):", width=100) + "\n\n" + "\n\n".join(tables) + cost_legend(r))


def cost_table(p: Point) -> str:
    """One point's costs; under the table, the 90% interval that decided each equivalence
    (the 95% one beside it may reach past the margin): in the verdict cell it would take the
    table past 100 columns."""
    rows = [["cost", COST_CENTRE, "95% CI"] + ([] if p.is_baseline else ["ratio", "95% CI",
                                                                   "verdict"])]
    decided = []
    for key in (k for k in COST if k in p.costs):
        m, c = METRICS[key], p.cost(key)
        centre = p.centre(key) * m.scale
        digits = decimals(centre)
        row = [m.short, _fmt(centre, digits), _interval(*_scaled(c, m.scale), digits)]
        if not p.is_baseline:
            ratio = p.cost_ratio(key)
            row += ratio_cells(ratio, ratio_decimals(ratio.ratio, 3)) + [ratio.said]
            if ratio.verdict_kind == stats.EQUIVALENT and ratio.tost_low is not None:
                # No-break spaces: the wrap below keeps each cost with its interval.
                decided.append(f"{m.short} {ratio.tost_text(dots=True)}".replace(" ", NBSP))
        rows.append(row)
    tested = "" if not decided else "\n" + textwrap.fill(
        "each equivalence's 90% CI, which decided it: " + "; ".join(decided),
        width=100).replace(NBSP, " ")
    return f"{p.id}{' (baseline)' if p.is_baseline else ''}\n" + table(rows) + tested


def _scaled(summary: Summary, scale: float) -> tuple:
    low, high = summary.ci_low, summary.ci_high
    return (None, None) if low is None else (low * scale, high * scale)


def cost_legend(doc: dict) -> str:
    """The cost verdicts, with this result's margin."""
    margin = Result.of(doc).smallest_effect
    return "\n" + textwrap.fill(
        f"cost verdicts: less or more when the 95% CI excludes 1 (\""
        f"{stats.under_margin_text(stats.MORE, margin, shown=True)}\" when the 90% CI lies "
        "inside the margin too); "
        f"{stats.equivalent_text(margin)} when the 90% CI lies inside {1 / (1 + margin):.3f} .. "
        f"{1 + margin:.3f}; {stats.TOO_NOISY} otherwise; \"{stats.ZERO_COST}\": a repeat "
        "measured none (no fsync, say), which has no logarithm to compare.", width=100)


def trends_table(doc: dict) -> str:
    """What the per-second series show, per point (medians over the runs): purge keeping up or
    not, throughput dips, how full the redo log got. Empty for results without series, and for
    those whose series show none of it (a timed scan samples no seconds of load)."""
    points = [p for p in Result.of(doc).points if p.trends]
    if not any(timeseries.shows_anything(p.trends) for p in points):
        return ""
    rows = [["point", "history list /s", "growing in", "history at end", "dips",
             "dip depth %", "near full redo", "redo fill max %"]]
    for p in points:
        t = p.trends
        growing = t["history_growing_runs"]
        fill = t["checkpoint_fill_max"]
        rows.append([p.id, _fmt(t["history_slope_per_s"], 2),
                     "-" if growing is None else f"{growing} of {t['runs']} runs",
                     _fmt(t["history_end"], 0), _fmt(t["dips"]), _fmt(t["dip_depth_pct"]),
                     _fmt(t["dips_near_capacity"], 0), _fmt(fill * 100 if fill else fill, 0)])
    held = [[p.id, _fmt(v["backlog"], 0), _fmt(v["drain_s"]),
             f"{v['drained_runs']} of {p.trends['runs']} runs", _fmt(v.get("tps_held")),
             _fmt(v.get("tps_draining"))]
            for p in points if (v := p.trends.get("read_view"))]
    drain = "" if not held else (
        "\n\nthe held read view (medians over the runs; the history slope above spans the held "
        "and the drained seconds):\n" + table([["point", "backlog at release", "drain s",
                                               "drained in", "tps held", "tps draining"]] + held))
    return "\n\nover time (per-second series, medians over the runs):\n" + table(rows) + drain


def run_line(summary: dict) -> str:
    """One finished run, for the progress output."""
    if "mib_per_s" in summary:
        device = summary["io"]["read_bytes"]
        read = f", {device / 2**20:,.0f} MiB read from the device" if device is not None else ""
        return (f"scan {summary['runtime_s']:.2f}s, {summary['mib_per_s']:,.1f} MiB/s "
                f"({summary['scanned_bytes'] / 2**20:,.0f} MiB read by InnoDB{read})")
    written = summary["io"]["write_bytes_per_trx"]
    own = (summary.get("cost") or {}).get("server_write_bytes_per_trx")
    io = (f", {written / 1024:.1f} KiB written/trx" if written is not None else
          # a duet's servers share the disk: only the server's own writes are its
          f", {own / 1024:.1f} KiB written/trx by the server" if own is not None else "")
    # a switchback block's p95 is a median of seconds: 7.494999999999999 is 7.49 to a reader
    line = f"{summary['tps']:,.1f} tps, p95 {round(summary['latency_p95_ms'], 2):g} ms{io}"
    if "tpcc" in summary:
        t = summary["tpcc"]
        check = "consistent" if t["consistency"]["ok"] else "INCONSISTENT after the run"
        line = (f"{summary['new_order_tpm']:,.0f} new-order TPM, {line}, "
                f"{t['rollbacks']} rollbacks, {t['retries']} retries, {check}")
    warm = summary.get("warm_up")
    if warm:
        line += (f", warmed up {warm['seconds']} s until steady" if warm["steady"] else
                 f", warmed up {warm['seconds']} s (its bound; still trending)")
    return line
