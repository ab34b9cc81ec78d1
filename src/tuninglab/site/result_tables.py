"""HTML tables of one result file, for a topic page or a host's views (hostviews): the
verdict per point with the costs per transaction beside it, the trends over time, the TPC-C-like
mix, and the "functional only" label of a lab VM result (the terminal's tables are
results/report.py). Every text from the file is escaped."""

import html
import statistics

from tuninglab.results import document, regime, stats, timeseries
from tuninglab.results.metrics import COST, METRICS, decimals, ratio_decimals
from tuninglab.site import describe


def functional(doc: dict) -> str:
    """The label of a result that shows how something works, not how fast hardware is."""
    why = describe.functional_only(doc)
    if not why:
        return ""
    return ('<div class="admonition warning tl-functional"><p class="admonition-title">'
            'Functional: shows the mechanism, not the hardware\'s speed</p>'
            f'<p>In the latest result {html.escape(why)}. Compare the IO per transaction at the '
            'devices, which holds on any storage, rather than the throughput.</p></div>')


def verdicts(doc: dict) -> str:
    """The latest result in words: median, interval, ratio, verdict per point, and below it
    what a transaction cost (costs; nothing for a result whose runs measured no cost)."""
    rows = []
    name = document.metric(doc)
    for p in doc["points"]:
        s, ratio = p["stats"][name], p["stats"]["ratio"]
        interval = "" if s["ci_low"] is None else f"{s['ci_low']:,.0f} to {s['ci_high']:,.0f}"
        verdict = "baseline" if ratio is None else describe.verdict_text(p)
        rows.append(f"<tr><td>{html.escape(p['value'])}</td><td>{s['median']:,.0f}</td>"
                    f"<td>{interval}</td><td>{html.escape(verdict)}</td></tr>")
    host = describe.series_name(doc)
    return ('<div class="tl-verdicts"><table><thead><tr><th>setting</th>'
            f'<th>median {METRICS[name].short}</th>'
            '<th>95% CI</th><th>ratio to baseline, 95% CI: verdict</th></tr></thead><tbody>'
            + "".join(rows) + f"</tbody></table></div><p class='tl-caption'>Latest result: "
            f"{host}. Design: {html.escape(document.design_text(doc))}; method: "
            f"{html.escape(doc['methods']['ratio'])}.</p>" + costs(doc))


def validity(doc: dict) -> str:
    """Whether the latest result ran in the regime its question is about: the memory its
    server was held to, and each of the recipe's regime checks with every point's value (as
    computed from the runs on load). Empty for a result that declares neither."""
    memory = memory_text(doc)
    found = regime.conditions(doc)
    if not memory and not found:
        return ""
    parts = [f"<p class='tl-caption tl-memory'>{html.escape(memory)}</p>"] if memory else []
    if found:
        rows = []
        for i, c in enumerate(found):
            cells = "".join(_regime_cell(p, i, c["unit"]) for p in doc["points"])
            rows.append(f"<tr><td>{html.escape(regime.describe(c))}</td>{cells}</tr>")
        heads = "".join(f"<th>{html.escape(p['value'])}</th>" for p in doc["points"])
        parts.append('<div class="tl-verdicts tl-regime"><table><thead><tr><th>regime check'
                     f'</th>{heads}</tr></thead><tbody>{"".join(rows)}</tbody></table></div>'
                     "<p class='tl-caption'>Regime checks of the latest result: each point's "
                     "value (the median over its runs) and whether it met the bound. A "
                     "comparison whose point or baseline missed one says \"regime not "
                     "reached\": it measured another situation than the question's.</p>")
    return "".join(parts)


def _regime_cell(p: dict, i: int, unit: str) -> str:
    check = regime.check_of(p, i)
    if check is None:
        return "<td>-</td>"
    outcome = "met" if check["ok"] else "<strong>missed</strong>"
    return f"<td>{html.escape(regime.value_text(check, unit))}: {outcome}</td>"


def memory_text(doc: dict) -> str:
    """The memory model of a result in a sentence ("" for a CPU-bound one, which has none)."""
    block = doc.get("memory")
    if block and block["capped"]:
        return (f"Memory: the server, page cache included, was held to "
                f"{block['limit_bytes'] // 2**20} MiB ({block['controller']}), so neither its "
                "buffer pool nor the OS could cache the dataset.")
    if block:
        return (f"Memory not capped ({block['reason']}): the OS page cache may have held the "
                "dataset the buffer pool did not.")
    if describe.uncapped(doc):
        return ("Memory not capped (measured before the memory model): the OS page cache may "
                "have held the dataset the buffer pool did not.")
    return ""


def costs(doc: dict) -> str:
    """What a transaction cost at each point: per cost the runs measured, its median and 95%
    interval and, beside the baseline, the ratio, its interval and the verdict (less, more,
    ...). Empty when no point has costs: such a result's page stays as it was."""
    keys = [k for k in COST if any(k in p["stats"].get("cost", {}) for p in doc["points"])]
    if not keys:
        return ""
    heads = "".join(f"<th>{html.escape(METRICS[k].label)}</th>" for k in keys)  # units: cells
    rows = "".join(f"<tr><td>{html.escape(p['value'])}</td>"
                   + "".join(_cost_cell(p["stats"].get("cost", {}).get(k), k) for k in keys)
                   + "</tr>" for p in doc["points"])
    return ('<div class="tl-verdicts tl-costs"><table><thead><tr><th>setting</th>' + heads +
            "</tr></thead><tbody>" + rows + "</tbody></table></div><p class='tl-caption'>Cost "
            "per transaction in the latest result, lower being cheaper: the median over the "
            "runs with its 95% CI, and the ratio to the baseline with its 95% CI and verdict. "
            f"Method: {html.escape(doc['methods'].get('cost', stats.COST_METHOD))}.</p>")


def _cost_cell(cost: dict | None, key: str) -> str:
    """One cost of one point: '0.812 ms (0.790 to 0.835)' over 'ratio 0.91 [0.88, 0.94]:
    less'."""
    if cost is None:  # not measured in every run of this point or of the baseline
        return "<td>-</td>"
    metric = METRICS[key]
    digits = decimals(cost["median"] * metric.scale)
    shown = f"{cost['median'] * metric.scale:,.{digits}f} {metric.unit}"
    if cost["ci_low"] is not None:
        shown += (f" ({cost['ci_low'] * metric.scale:,.{digits}f} to "
                  f"{cost['ci_high'] * metric.scale:,.{digits}f})")
    ratio = cost["ratio"]
    digits = ratio_decimals(ratio and ratio["ratio"], 2)  # 2 as the throughput's ratio
    return f"<td>{html.escape(shown)}<br>{html.escape(describe.ratio_text(ratio, digits))}</td>"


def trends(doc: dict) -> str:
    """What the latest result's per-second series show, point by point (computed from the
    series on the page, so a contributed file cannot claim trends its series do not show)."""
    rows = []
    for p in doc["points"]:
        t = timeseries.point_trends(p["runs"])
        if t is None:
            continue
        slope, growing = t["history_slope_per_s"], t["history_growing_runs"]
        history = "not sampled" if slope is None else (
            f"{slope:+,.1f}/s, growing in {growing} of {t['runs']} runs; "
            f"{t['history_end']:,.0f} at the end")
        fill = t["checkpoint_fill_max"]
        dips = "-" if t["dips"] is None else f"{t['dips']:g} (deepest {t['dip_depth_pct']:g}%)"
        rows.append(f"<tr><td>{html.escape(p['value'])}</td><td>{history}</td><td>{dips}</td>"
                    f"<td>{'-' if fill is None else f'{100 * fill:.0f}%'}</td></tr>")
    return ('<div class="tl-verdicts"><table><thead><tr><th>setting</th>'
            '<th>history list length: slope, runs where it kept growing, last value</th>'
            '<th>throughput dips below half the median (median per run)</th>'
            '<th>redo log fullest (checkpoint age / capacity)</th></tr></thead><tbody>'
            + "".join(rows) + "</tbody></table></div><p class='tl-caption'>Over time, in the "
            f"latest result ({html.escape(describe.series_name(doc))}): medians over the runs "
            "of each point.</p>")


TPCC_TYPES = (("new_order", "new-order"), ("payment", "payment"),
              ("order_status", "order-status"), ("delivery", "delivery"),
              ("stock_level", "stock-level"))


def tpcc(doc: dict) -> str:
    """A TPC-C-like result per point: each transaction type's share of the mix and its p95
    latency, the rollbacks and retries, and whether every run kept the data consistent
    (medians over the runs; computed from the runs on the page)."""
    rows = []
    for p in doc["points"]:
        runs = [r["summary"]["tpcc"] for r in p["runs"] if "tpcc" in r["summary"]]
        if not runs:
            continue
        totals = [max(1, sum(x["count"] for x in t["transactions"].values())) for t in runs]
        cells = []
        for name, _ in TPCC_TYPES:
            share = statistics.median([100 * t["transactions"][name]["count"] / total
                                       for t, total in zip(runs, totals)])
            p95 = statistics.median([t["transactions"][name]["latency_p95_ms"] for t in runs])
            cells.append(f"<td>{share:.1f}% · {p95:g} ms</td>")
        rollbacks = statistics.median([t["rollbacks"] for t in runs])
        retries = f"{statistics.median([t['retries'] for t in runs]):g}"
        deadlocks = [t["deadlocks"] for t in runs if "deadlocks" in t]
        if deadlocks:  # counted apart since the script's second version of its output
            retries += f" ({statistics.median(deadlocks):g} deadlocks)"
        consistent = sum(t["consistency"]["ok"] for t in runs)
        rows.append(f"<tr><td>{html.escape(p['value'])}</td>{''.join(cells)}"
                    f"<td>{rollbacks:g}</td><td>{retries}</td>"
                    f"<td>{consistent} of {len(runs)}</td></tr>")
    if not rows:
        return ""
    heads = "".join(f"<th>{label}: share · p95</th>" for _, label in TPCC_TYPES)
    return ('<div class="tl-verdicts"><table><thead><tr><th>setting</th>' + heads +
            '<th>rollbacks (intended)</th><th>retries (deadlock, lock wait)</th>'
            '<th>runs consistent after the run (conditions 1-4)</th></tr></thead><tbody>'
            + "".join(rows) + "</tbody></table></div><p class='tl-caption'>The TPC-C-like mix "
            f"in the latest result ({html.escape(describe.series_name(doc))}): medians over the "
            "runs of each point.</p>")

