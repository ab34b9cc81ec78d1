"""Numbers that agree with their verdict (issue 37, item 6): Ratio.text never rounds an interval
end onto 1 that excludes it, an equivalence shows the 90% interval it was tested with, a
significant effect under the smallest effect worth knowing says so, a latency's verdict reads
lower or higher latency, and the tables show the estimate the ratio compares (Point.centre,
the geometric mean) rather than a median that can contradict it."""

import copy
import math
import re
import statistics

import pytest

from helpers import make_doc, with_costs
from tuninglab.results import document, report, stats
from tuninglab.results.ratio import Ratio
from tuninglab.results.result import Result


def ratio(kind: str, r: float, low: float, high: float, tost=(None, None),
          margin: float | None = 0.03, words: tuple = ()) -> Ratio:
    verdict = stats.equivalent_text(margin or 0.03) if kind == stats.EQUIVALENT else kind
    return Ratio.of({"ratio": r, "ci_low": low, "ci_high": high, "verdict": verdict,
                     "verdict_kind": kind, "tost_low": tost[0], "tost_high": tost[1]},
                    margin, words)


# --- an interval end is never rounded onto 1 when it excludes 1 --------------------------------

@pytest.mark.parametrize("compared, text", [
    (ratio(stats.SLOWER, 0.92, 0.851, 0.9962), "ratio 0.92 [0.85, 0.996]: slower"),
    (ratio(stats.FASTER, 1.08, 1.0041, 1.16), "ratio 1.08 [1.004, 1.16]: faster"),
    # the ratio itself as well, where the interval excludes 1
    (ratio(stats.FASTER, 1.0031, 1.0012, 1.0049, (1.0015, 1.0046)),
     "ratio 1.003 [1.001, 1.005]: faster, by less than 3%"),
    # an end that excludes 1 by less than 3 more decimals show: as many as are allowed
    (ratio(stats.SLOWER, 0.9, 0.8, 0.9999999), "ratio 0.90 [0.80, 1.00000]: slower"),
    # an interval that holds 1 may read 1.00 at its end: it says what the verdict says
    (ratio(stats.TOO_NOISY, 1.02, 0.998, 1.05), "ratio 1.02 [1.00, 1.05]: too noisy to tell"),
])
def test_an_end_that_excludes_one_is_never_shown_as_one(compared, text):
    assert compared.text() == text


def test_the_terminals_cells_keep_the_end_off_one_too():
    slower = ratio(stats.SLOWER, 0.92, 0.851, 0.99962)
    assert report.ratio_cells(slower, 3) == ["0.920", "0.851 .. 0.9996"]
    assert slower.flipped().text() == "ratio 1.09 [1.0004, 1.18]: faster"


def test_every_committed_comparison_that_excludes_one_shows_its_ends_off_one():
    from helpers import DATA, committed_results
    import json
    for name in committed_results():
        r = Result(document.recompute(json.loads((DATA / name).read_text())))
        for p in r.points:
            for compared in [p.ratio] + [p.cost_ratio(k) for k in p.costs]:
                if compared is None or not compared.excludes_one:
                    continue
                ends = re.search(r"\[([\d.,]+), ([\d.,]+)\]", compared.text()).groups()
                assert "1.00" not in ends and "1.000" not in ends, (name, compared.text())


# --- equivalence shows the interval it was tested with ------------------------------------------

def test_an_equivalence_shows_its_90_percent_interval():
    alike = ratio(stats.EQUIVALENT, 1.004, 0.976, 1.034, (0.9812, 1.0231))
    assert alike.text() == ("ratio 1.00 [0.98, 1.03]: equivalent within ±3% "
                            "(90% CI [0.981, 1.023])")
    assert report.verdict(alike) == "equivalent within ±3% (90% CI 0.981 .. 1.023)"


def test_an_equivalences_interval_is_never_rounded_onto_the_margin():
    # 1.02996 to 3 decimals is 1.030 (and to 4, 1.0300), the margin a reader takes "±3%"
    # for: as many more decimals as tell them apart
    near = ratio(stats.EQUIVALENT, 1.0, 0.97, 1.035, (0.9712, 1.02996))
    assert near.text().endswith("(90% CI [0.971, 1.02996])")


def test_a_computed_equivalence_shows_the_interval_that_decided_it():
    doc = document.finish(make_doc(off_tps=(1001.0, 1009.0, 992.0)))
    off = Result(doc).points[1].ratio
    assert off.verdict_kind == stats.EQUIVALENT
    assert 1 / 1.03 < off.tost_low < off.tost_high < 1.03  # what was tested...
    assert f"(90% CI [{off.tost_low:.3f}, {off.tost_high:.3f}])" in off.text()  # ...is shown


# --- a significant effect under the smallest effect worth knowing says so -----------------------

@pytest.mark.parametrize("compared, said", [
    # the 90% interval inside ±3% as well: shown to be under it
    (ratio(stats.FASTER, 1.02, 1.006, 1.034, (1.009, 1.029)), "faster, by less than 3%"),
    (ratio(stats.SLOWER, 0.985, 0.975, 0.995, (0.977, 0.993)), "slower, by less than 3%"),
    (ratio(stats.LESS, 0.98, 0.975, 0.99, (0.977, 0.988)), "less, by under 3%"),
    (ratio(stats.MORE, 1.02, 1.01, 1.025, (1.012, 1.023)), "more, by less than 3%"),
    # the ratio under 3%, its interval reaching past it: perhaps
    (ratio(stats.FASTER, 1.022, 1.006, 1.038, (1.009, 1.035)), "faster, perhaps by less than 3%"),
    # at or past the margin: the direction alone
    (ratio(stats.FASTER, 1.25, 1.1, 1.4, (1.12, 1.38)), "faster"),
    # another margin, another size
    (ratio(stats.FASTER, 1.04, 1.01, 1.07, (1.02, 1.06), margin=0.1), "faster, by less than 10%"),
    # no margin known (a hand-made comparison): nothing said about the size
    (ratio(stats.FASTER, 1.02, 1.006, 1.034, (1.009, 1.029), margin=None), "faster"),
    (ratio(stats.TOO_NOISY, 1.02, 0.99, 1.05, (0.995, 1.045)), "too noisy to tell"),
])
def test_a_direction_under_the_margin_says_so(compared, said):
    assert compared.said == said
    assert compared.text().endswith(": " + said)
    assert compared.verdict_kind in stats.VERDICTS  # the kind stays what code matches


def test_a_result_read_through_result_knows_its_margin():
    doc = make_doc(on_tps=(1000.0, 1001.0, 999.0), off_tps=(1020.0, 1021.0, 1019.0))  # +2%
    doc["plan"]["smallest_effect_pct"] = 5
    off = Result(document.finish(doc)).points[1]
    assert off.ratio.verdict_kind == stats.FASTER and off.ratio.margin == 0.05
    assert off.ratio.said.startswith("faster, ") and "less than 5%" in off.ratio.said
    assert "less than 5%" in report.results_table(document.finish(doc))


def test_a_latencys_verdict_reads_lower_or_higher_latency():
    lower = ratio(stats.LESS, 0.8, 0.75, 0.85, (0.76, 0.84), words=stats.LATENCY_WORDS)
    assert lower.text() == "ratio 0.80 [0.75, 0.85]: lower latency"
    assert lower.flipped().text() == "ratio 1.25 [1.18, 1.33]: higher latency"
    assert lower.verdict_kind == stats.LESS and lower.to_dict()["verdict"] == stats.LESS


# --- the estimate beside a ratio is the one it compares -----------------------------------------

def skewed_doc() -> dict:
    """The issue's table: medians of 1,499 and 1,508 tps beside a ratio of 1.09: each point's
    median says "about the same", one low repeat of the baseline makes the ratio of geometric
    means 1.09."""
    doc = make_doc(on_tps=(1499.0, 1510.0, 1000.0), off_tps=(1508.0, 1495.0, 1520.0))
    return document.finish(doc)


def test_the_centre_is_the_geometric_mean_that_the_ratio_compares():
    r = Result(skewed_doc())
    on, off = r.points
    assert (on.summary("tps").median, off.summary("tps").median) == (1499.0, 1508.0)
    assert on.centre("tps") == pytest.approx(statistics.geometric_mean([1499, 1510, 1000]))
    assert off.centre("tps") / on.centre("tps") == pytest.approx(off.ratio.ratio)
    assert off.ratio.text().startswith("ratio 1.15")
    # a run of 0 has no logarithm: the arithmetic mean, whose interval is then shown
    zero = make_doc(off_tps=(0.0, 1000.0, 1000.0))
    assert Result(document.finish(zero)).points[1].centre("tps") == pytest.approx(2000 / 3)
    assert on.centre("nothing") is None


def test_the_terminal_table_shows_the_geometric_mean_beside_the_ratio():
    doc = skewed_doc()
    out = report.results_table(doc)
    on, off = Result(doc).points
    assert "geo. mean tps" in out and "median tps" not in out
    assert re.search(rf"innodb_doublewrite=OFF +{off.centre('tps'):,.1f} ", out)
    assert re.search(rf"innodb_doublewrite=ON +{on.centre('tps'):,.1f} ", out)
    assert "1,499.0" not in out and "geo. mean: the geometric mean of the repeats" in \
        " ".join(out.split("\n"))


def test_the_cost_table_shows_the_geometric_mean_of_each_cost():
    doc = document.recompute(with_costs(make_doc(), {"innodb_doublewrite=OFF":
                                                     {"server_cpu_us_per_trx": 0.8}}))
    out = report.cost_tables(doc)
    off = Result(doc).points[1]
    centre = off.centre("server_cpu_us_per_trx") / 1000
    assert re.search(rf"^server CPU ms +{centre:.3f} ", out, re.M)
    assert "gmean: the geometric mean of the repeats" in " ".join(out.split("\n"))


# --- a point's comparison in any metric (Result.comparison) -------------------------------------

def test_a_comparison_in_another_metric_is_that_metrics():
    doc = copy.deepcopy(make_doc())
    for p, bytes_, p95 in ((0, 2000.0, 10.0), (1, 2400.0, 8.0)):
        for i, run in enumerate(doc["points"][p]["runs"]):
            run["summary"]["io"]["write_bytes_per_trx"] = bytes_ * (1 + 0.005 * i)
            run["summary"]["latency_p95_ms"] = p95 * (1 - 0.005 * i)
    doc = document.finish(doc)
    r = Result(doc)
    on, off = r.points
    assert r.comparison(on, "tps") is None  # the baseline
    assert r.comparison(off, "tps") == off.ratio
    written = r.comparison(off, "write_bytes_per_trx")
    assert written.ratio == pytest.approx(1.2, rel=1e-3)
    assert written.verdict_kind == stats.MORE and written.said == "more"
    latency = r.comparison(off, "latency_p95_ms")
    assert latency.verdict_kind == stats.LESS and latency.said == "lower latency"
    assert latency.ratio == pytest.approx(0.8, rel=1e-3)
    assert r.comparison(off, "nothing") is None


def test_a_switchback_comparison_in_another_metric_pairs_the_rounds():
    doc = copy.deepcopy(make_doc())
    doc["plan"]["design"] = "switchback"
    for p, factor in ((0, 1.0), (1, 1.5)):
        for i, run in enumerate(doc["points"][p]["runs"]):
            run["summary"]["io"]["write_bytes_per_trx"] = 1000.0 * factor * (1 + 0.3 * i)
    r = Result(doc)
    written = r.comparison(r.points[1], "write_bytes_per_trx")
    # each round's ratio is exactly 1.5: paired, the interval is the point itself
    assert written.ratio == pytest.approx(1.5) and written.ci_low == pytest.approx(1.5)
    assert written.verdict_kind == stats.MORE
    assert math.isclose(written.ci_high, 1.5)
