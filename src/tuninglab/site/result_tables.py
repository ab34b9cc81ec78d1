"""HTML tables of one result file, for a topic page or a host's views (hostviews): the
verdict per point with the costs per transaction beside it, the trends over time, the TPC-C-like
mix, and the "functional only" label of a lab VM result (the terminal's tables are
results/report.py). Every text from the file is escaped. The tables with many measures (costs,
the mix) have one row per measure and one column per point, as the regime checks: so they fit
the page's column. Each cell carries its column's name as data-label: on a phone every row
becomes a card that shows it before the cell (lab.css), and no verdict needs scrolling
sideways."""

import html
import re
import statistics

from tuninglab.evidence.functional import functional_only
from tuninglab.results import document, regime, stats, timeseries
from tuninglab.results.metrics import COST, METRICS, decimals, ratio_decimals
from tuninglab.results.result import Point, Result
from tuninglab.site import describe

# Where the guide explains once what a functional result can and cannot say: the RAID page,
# whose lab VM the other lab VM recipes share. Relative to a topic page, the only kind of page
# that shows result tables (a host's views are shown on it too).
FUNCTIONAL_WHY = "../raid/#functional"


def functional(doc: dict) -> str:
    """The label of a result that shows how something works, not how fast hardware is: one
    line under each of its tables, so it links to the explanation rather than repeating it,
    and names this result's own reason in its title."""
    why = functional_only(doc)
    if not why:
        return ""
    detail = html.escape(f"In the latest result {why}. Compare the IO per transaction at the "
                         "devices, which holds on any storage, rather than the throughput.")
    return (f'<p class="tl-functional" title="{detail}">Functional: shows the mechanism, not '
            f'the hardware\'s speed (<a href="{FUNCTIONAL_WHY}">why</a>)</p>')


def _breakable(value: str) -> str:
    """A text as a cell: escaped, with a place to break after each _ and , (as in a point's
    O_DIRECT_NO_FSYNC or noatime,logbufs=8), so a narrow column wraps it rather than widens."""
    return re.sub(r"([_,])", r"\1<wbr>", html.escape(value))


def _table(classes: str, heads: list[str], rows: list[list[str]],
           labels: list[str] | None = None) -> str:
    """A table of plain-text heads and HTML cells (escaped by the caller); each cell names
    its column (labels, plain text; the heads unless given) for the phone's card layout."""
    names = [html.escape(label) for label in labels or heads]
    body = "".join("<tr>" + "".join(f'<td data-label="{name}">{cell}</td>'
                                    for name, cell in zip(names, row)) + "</tr>"
                   for row in rows)
    return (f'<div class="{classes}"><table><thead><tr>'
            + "".join(f"<th>{_breakable(head)}</th>" for head in heads)
            + f"</tr></thead><tbody>{body}</tbody></table></div>")


# What the tables show beside a ratio: the estimate it compares (Point.centre). A median
# there could contradict it: 1,499 vs 1,508 tps beside "ratio 1.09".
CENTRE = "geometric mean"


def said(text: str) -> str:
    """A caption's words that are the same for every block of their kind (the method): the
    page keeps their first use and drops the repeats (mkdocs_hooks.said_once)."""
    return f'<span class="tl-said">{text}</span>'


def verdicts(doc: dict) -> str:
    """The latest result in words: the geometric mean (what the ratio compares), its interval,
    the ratio and the verdict per point, and below it what a transaction cost (costs; nothing
    for a result whose runs measured no cost)."""
    rows, r = [], Result.of(doc)
    name = r.metric
    for p in r.points:
        s = p.summary(name)
        interval = "" if s.ci_low is None else f"{s.ci_low:,.0f} to {s.ci_high:,.0f}"
        rows.append([_breakable(p.value), f"{p.centre(name):,.0f}", interval,
                     html.escape(describe.verdict_text(p))])
    host = describe.series_name(r)
    centre = f"{CENTRE} {METRICS[name].short}"
    return (_table("tl-verdicts", ["setting", centre, "95% CI",
                                   "ratio to baseline, 95% CI: verdict"], rows,
                   ["setting", centre, "95% CI", "verdict"])
            + f"<p class='tl-caption'>Latest result: {host}. "
            + said(f"The {CENTRE} of the runs is what the ratios compare. Design: "
                   f"{html.escape(document.design_text(r.raw))}; method: "
                   f"{html.escape(r.methods['ratio'])}.") + "</p>" + costs(r))


def validity(doc: dict) -> str:
    """Whether the latest result ran in the regime its question is about: the memory its
    server was held to, and each of the recipe's regime checks with every point's value (as
    computed from the runs on load). Empty for a result that declares neither."""
    r = Result.of(doc)
    memory = memory_text(r)
    found = regime.conditions(r.raw)
    if not memory and not found:
        return ""
    parts = [f"<p class='tl-caption tl-memory'>{html.escape(memory)}</p>"] if memory else []
    if found:
        rows = [[html.escape(regime.describe(c))]
                + [_regime_cell(p.raw, i, c["unit"]) for p in r.points]
                for i, c in enumerate(found)]
        heads = ["regime check"] + [p.value for p in r.points]
        parts.append(_table("tl-verdicts tl-regime", heads, rows)
                     + "<p class='tl-caption'>Regime checks of the latest result. "
                     + said("Each point's value (the median over its runs) and whether it met "
                            "the bound. A comparison whose point or baseline missed one says "
                            "\"regime not reached\": it measured another situation than the "
                            "question's.") + "</p>")
    return "".join(parts)


def _regime_cell(p: dict, i: int, unit: str) -> str:
    check = regime.check_of(p, i)
    if check is None:
        return "-"
    outcome = "met" if check["ok"] else "<strong>missed</strong>"
    return f"{html.escape(regime.value_text(check, unit))}: {outcome}"


def memory_text(doc: dict) -> str:
    """The memory model of a result in a sentence ("" for a CPU-bound one, which has none)."""
    block = Result.of(doc).memory
    if block and block["capped"]:
        extra = block.get("server_extra_bytes")
        more = (f", of which {extra // 2**20} MiB for what this server holds beyond MariaDB "
                "10.11, whose needs the data shape's limit is sized for") if extra else ""
        return (f"Memory: the server, page cache included, was held to "
                f"{block['limit_bytes'] // 2**20} MiB ({block['controller']}{more}), so neither "
                "its buffer pool nor the OS could cache the dataset.")
    if block:
        return (f"Memory not capped ({block['reason']}): the OS page cache may have held the "
                "dataset the buffer pool did not.")
    if describe.uncapped(doc):
        return ("Memory not capped (measured before the memory model): the OS page cache may "
                "have held the dataset the buffer pool did not.")
    return ""


MANY = 5


def costs(doc: dict) -> str:
    """What a transaction cost at each point: per cost the runs measured, its median and 95%
    interval and, beside the baseline, the ratio, its interval and the verdict (less, more,
    ...). Empty when no point has costs: such a result's page stays as it was."""
    r = Result.of(doc)
    keys = [k for k in COST if any(k in p.costs for p in r.points)]
    if not keys:
        return ""
    heads = ["cost"] + [p.value for p in r.points]
    rows = [[html.escape(METRICS[k].label)]  # the units are in the cells
            + [_cost_cell(p, k) for p in r.points] for k in keys]
    # Past MANY points a column is too narrow for the theme's type: smaller, tighter cells.
    many = " tl-many" if len(r.points) > MANY else ""
    return (_table("tl-verdicts tl-costs" + many, heads, rows) + "<p class='tl-caption'>Cost "
            "per transaction in the latest result, lower being cheaper. "
            + said(f"Each cell: the {CENTRE} of the runs with its 95% CI, and the ratio to the "
                   "baseline with its 95% CI and verdict. Method: "
                   f"{html.escape(r.methods.get('cost', stats.COST_METHOD))}.") + "</p>")


def _cost_cell(p: Point, key: str) -> str:
    """One cost of one point: '0.812 ms (0.790 to 0.835)' over 'ratio 0.91 [0.88, 0.94]:
    less' (the geometric mean of the runs, which the ratio compares, and its 95% CI)."""
    cost, centre = p.cost(key), p.centre(key)
    if cost is None or centre is None:  # not measured in every run of the point or baseline
        return "-"
    metric = METRICS[key]
    digits = decimals(centre * metric.scale)
    shown = f"{centre * metric.scale:,.{digits}f} {metric.unit}"
    if cost.ci_low is not None:
        shown += (f" ({cost.ci_low * metric.scale:,.{digits}f} to "
                  f"{cost.ci_high * metric.scale:,.{digits}f})")
    ratio = p.cost_ratio(key)
    if ratio is None:  # the baseline
        return f"{html.escape(shown)}<br>baseline"
    digits = ratio_decimals(ratio.ratio, 2)  # 2 as the throughput's ratio
    return f"{html.escape(shown)}<br>{html.escape(ratio.text(digits))}"


def held_view_text(v: dict, runs: int) -> str:
    """A held read view's point in words: the backlog, the drain and the throughput."""
    num = lambda x, fmt: "-" if x is None else format(x, fmt)  # noqa: E731
    drained = (f"drained in {num(v['drain_s'], 'g')} s ({v['drained_runs']} of {runs} runs)"
               if v["drained_runs"] else f"not drained within the run (0 of {runs} runs)")
    return (f"a backlog of {num(v['backlog'], ',.0f')} at the release, {drained}; "
            f"{num(v.get('tps_held'), ',.0f')} tps while held, "
            f"{num(v.get('tps_draining'), ',.0f')} while draining")


def trends(doc: dict) -> str:
    """What the latest result's per-second series show, point by point (computed from the
    series on the page, so a contributed file cannot claim trends its series do not show)."""
    rows = []
    for p in Result.of(doc).points:
        t = timeseries.point_trends(p.runs)
        if not timeseries.shows_anything(t):
            continue
        slope, growing = t["history_slope_per_s"], t["history_growing_runs"]
        history = "not sampled" if slope is None else (
            f"{slope:+,.1f}/s, growing in {growing} of {t['runs']} runs; "
            f"{t['history_end']:,.0f} at the end")
        if t.get("read_view"):  # the slope of a run that held a view then drained it says little
            history = held_view_text(t["read_view"], t["runs"])
        fill = t["checkpoint_fill_max"]
        dips = "-" if t["dips"] is None else f"{t['dips']:g} (deepest {t['dip_depth_pct']:g}%)"
        rows.append([_breakable(p.value), history, dips,
                     "-" if fill is None else f"{100 * fill:.0f}%"])
    if not rows:
        return "<p class='tl-empty'>This result has no per-second series of a load to show.</p>"
    heads = ["setting", "history list length: slope, runs where it kept growing, last value "
             "(or, where a read view was held, its backlog and drain)",
             "throughput dips below half the median (median per run)",
             "redo log fullest (checkpoint age / capacity)"]
    labels = ["setting", "history list length", "throughput dips", "redo log fullest"]
    return (_table("tl-verdicts", heads, rows, labels) + "<p class='tl-caption'>Over time, in the "
            f"latest result ({html.escape(describe.series_name(doc))}): medians over the runs "
            "of each point.</p>")


# The lab VM's machine as each run's guest saw and measured it: (column, how to read it from
# a run's lab record, or None where the run lacks it).
LAB_COLUMNS = (
    ("kernel", lambda lab: lab.get("kernel")),
    ("write cache the guest saw", lambda lab: lab.get("write_cache")),
    ("fio fsyncs/s", lambda lab: lab.get("fio", {}).get("fsync_per_s")),
    ("threads per core", lambda lab: lab.get("threads_per_core")),
    ("memory (MiB)", lambda lab: lab.get("memory_bytes") and lab["memory_bytes"] >> 20),
    ("swap (MiB)", lambda lab: lab.get("swap_bytes") and lab["swap_bytes"] >> 20),
)


def lab_machine(doc: dict) -> str:
    """What the lab VM was at each point, read back from its guest (the kernel release, the
    write cache the data disk showed, fio's fsyncs a second, the threads per core, memory and
    swap): a point's number is the median of its runs, a text its runs' values. Columns no run
    recorded are left out; "" for a result not run in the lab VM."""
    r = Result.of(doc)
    columns = [(head, read) for head, read in LAB_COLUMNS
               if any(read(lab) is not None for lab in r.labs)]
    if not columns:
        return ""
    rows = [[_breakable(p.value)] + [_lab_cell([read(lab) for lab in p.labs])
                                     for _, read in columns] for p in r.points]
    heads = ["setting"] + [head for head, _ in columns]
    return (_table("tl-verdicts", heads, rows) + "<p class='tl-caption'>The lab VM as each "
            f"point's guest saw it, in the latest result ({html.escape(describe.series_name(doc))})"
            ": numbers are medians over the runs.</p>")


def _lab_cell(values: list) -> str:
    values = [v for v in values if v is not None]
    if not values:
        return "-"
    if all(isinstance(v, (int, float)) for v in values):
        return f"{statistics.median(values):,.0f}"
    return _breakable(", ".join(dict.fromkeys(str(v) for v in values)))


TPCC_TYPES = (("new_order", "new-order"), ("payment", "payment"),
              ("order_status", "order-status"), ("delivery", "delivery"),
              ("stock_level", "stock-level"))


def tpcc(doc: dict) -> str:
    """A TPC-C-like result per point: each transaction type's share of the mix and its p95
    latency, the rollbacks and retries, and whether every run kept the data consistent
    (medians over the runs; computed from the runs on the page)."""
    points = [(p.value, runs) for p in Result.of(doc).points
              if (runs := [r["summary"]["tpcc"] for r in p.runs if "tpcc" in r["summary"]])]
    if not points:
        return ""
    columns = [_tpcc_column(runs) for _, runs in points]
    names = ([f"{label}: share · p95" for _, label in TPCC_TYPES]
             + ["rollbacks (intended)", "retries (deadlock, lock wait)",
                "runs consistent after the run (conditions 1-4)"])
    rows = [[html.escape(name)] + [column[i] for column in columns]
            for i, name in enumerate(names)]
    return (_table("tl-verdicts tl-tpcc", ["measure"] + [value for value, _ in points], rows)
            + "<p class='tl-caption'>The TPC-C-like mix "
            f"in the latest result ({html.escape(describe.series_name(doc))}): medians over the "
            "runs of each point.</p>")


def _tpcc_column(runs: list[dict]) -> list[str]:
    """One point's cells of the mix table, top to bottom (medians over its runs)."""
    totals = [max(1, sum(x["count"] for x in t["transactions"].values())) for t in runs]
    cells = []
    for name, _ in TPCC_TYPES:
        share = statistics.median([100 * t["transactions"][name]["count"] / total
                                   for t, total in zip(runs, totals)])
        p95 = statistics.median([t["transactions"][name]["latency_p95_ms"] for t in runs])
        cells.append(f"{share:.1f}% · {p95:g} ms")
    rollbacks = statistics.median([t["rollbacks"] for t in runs])
    retries = f"{statistics.median([t['retries'] for t in runs]):g}"
    deadlocks = [t["deadlocks"] for t in runs if "deadlocks" in t]
    if deadlocks:  # counted apart since the script's second version of its output
        retries += f" ({statistics.median(deadlocks):g} deadlocks)"
    consistent = sum(t["consistency"]["ok"] for t in runs)
    return cells + [f"{rollbacks:g}", retries, f"{consistent} of {len(runs)}"]
