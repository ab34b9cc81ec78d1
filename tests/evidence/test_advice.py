"""The advice, judged (evidence/advice.py): each topic page's rests_on, checked against its recipe;
the verdict from the pooled interval against the range; the home page's ranking; a lab VM's
throughput never a verdict."""

import dataclasses
import math

import pytest

from tuninglab.errors import UserError
from tuninglab.evidence import advice, answers, claim_verdicts
from tuninglab.evidence.claim_verdicts import Comparison
from tuninglab.evidence.sets import EvidenceSet, HostClass
from tuninglab.evidence.topic_pages import topic_pages
from tuninglab.results.pooling import Pooled



def host(name: str, lab: bool) -> HostClass:
    """A host class with every text field the name (the class's fields are still settling)."""
    texts = {f.name: name for f in dataclasses.fields(HostClass) if f.type in (str, "str")}
    return HostClass(**{**texts, "contributed": False, "lab": lab})


PROJECT = host("AMD EPYC, 2 cores", lab=False)
LAB = host("lab VM (TCG) on AMD EPYC", lab=True)


def meta(slug="doublewrite", **rests) -> dict:
    given = {"recipe": "doublewrite", "point": "OFF", "holds_when": "at most 1.10"}
    given.update(rests)
    return {"slug": slug, "title": slug, "advice": "Keep it ON.",
            "rests_on": {k: v for k, v in given.items() if v is not None}}


def pooled(ratio, low, high) -> Pooled:
    return Pooled(ratio, low, high, low, high, k=2, sittings=2, between_sd=0.05,
                  between_from="assumed", method="")


def comparison(ratio=None, low=None, high=None, host=PROJECT, kind="", why="") -> Comparison:
    s = EvidenceSet("doublewrite", "", "mariadb 10.11", host, (), ())
    p = pooled(ratio, low, high) if ratio is not None else None
    return Comparison(s, p, kind, why)


def error(m: dict) -> str:
    with pytest.raises(UserError) as exc:
        advice.rests_on(m)
    return str(exc.value)


# --- validation -------------------------------------------------------------------------------

def test_a_valid_comparison_reads_with_the_recipes_baseline():
    r = advice.rests_on(meta())
    assert (r.recipe, r.variant, r.point, r.baseline, r.metric) == \
        ("doublewrite", "", "OFF", "ON", "")
    assert (r.low, r.high) == (None, 1.10)
    assert r.text == "holds when OFF vs ON is at most x1.10"


def test_an_unknown_recipe_names_the_page_and_the_key():
    msg = error(meta(recipe="no-such-recipe"))
    assert msg.startswith("docs/topics/doublewrite.md: rests_on.recipe:")
    assert "no-such-recipe" in msg


def test_an_unknown_variant_names_the_variant_key():
    msg = error(meta(variant="nope"))
    assert msg.startswith("docs/topics/doublewrite.md: rests_on.variant:")


def test_a_recipe_of_another_topic_is_refused():
    msg = error(meta(recipe="redo-size", point="1G"))
    assert "rests_on.recipe" in msg and "'redo-size'" in msg


@pytest.mark.parametrize("point", ["MAYBE", "ON"])
def test_a_point_the_recipe_does_not_sweep_or_its_baseline_is_refused(point):
    msg = error(meta(point=point))
    assert msg.startswith("docs/topics/doublewrite.md: rests_on.point:")
    assert "ON, OFF" in msg


def test_an_unquoted_yaml_off_is_refused_as_not_a_string():
    msg = error(meta(point=False))
    assert "rests_on.point" in msg and "quoted string" in msg


@pytest.mark.parametrize("text", ["below 1.10", "at most", "at most -1", "at least 0",
                                  "between 1.2 and 1.1", "at most 1/0", "at most 1.1x"])
def test_a_bad_range_text_is_refused(text):
    msg = error(meta(holds_when=text))
    assert msg.startswith("docs/topics/doublewrite.md: rests_on.holds_when:")


def test_a_metric_must_be_a_cost():
    assert "rests_on.metric" in error(meta(metric="dirty_pages"))
    assert advice.rests_on(meta(metric="server_write_bytes_per_trx")).metric == \
        "server_write_bytes_per_trx"


def test_unknown_and_missing_keys_are_refused():
    assert "rests_on.recipies" in error(meta(recipies="x"))
    assert "rests_on.holds_when: missing" in error(meta(holds_when=None))
    m = meta()
    del m["rests_on"]
    assert "docs/topics/doublewrite.md: rests_on: missing" in error(m)


def test_none_needs_a_why_and_a_why_needs_none():
    m = {"slug": "purge-threads", "rests_on": "none"}
    assert "rests_on_why: missing" in error(m)
    assert advice.rests_on({**m, "rests_on_why": "Advice on what to watch."}) is None
    assert "rests_on_why" in error({**meta(), "rests_on_why": "why"})
    assert "rests_on:" in error({"slug": "x", "rests_on": "nothing"})


def test_ranges_read_fractions_and_both_bounds():
    assert advice.parse_range("at least 1/1.03") == (pytest.approx(1 / 1.03), None)
    assert advice.parse_range("between  0.95 and 1.05") == (0.95, 1.05)
    r = advice.rests_on(meta(holds_when="at least 1/1.03"))
    assert r.range_text == "at least x0.971"


# --- the verdict ------------------------------------------------------------------------------

@pytest.mark.parametrize("low,high,kind", [
    (0.98, 1.08, advice.HOLDS),             # inside "at most 1.10"
    (1.02, 1.10, advice.HOLDS),             # touching the bound is inside
    (1.12, 1.30, advice.DOES_NOT_HOLD),     # wholly above it
    (1.01, 1.25, advice.CANNOT_TELL),       # across it
])
def test_judge_at_most(low, high, kind):
    r = advice.rests_on(meta())
    v = advice.judge_comparison(r, comparison(math.sqrt(low * high), low, high))
    assert v.kind == kind
    assert (v.why == "") == (kind != advice.CANNOT_TELL)
    assert v.pooled is not None and v.ratio.ci_low == low


@pytest.mark.parametrize("low,high,kind", [
    (0.98, 1.02, advice.HOLDS), (0.80, 0.94, advice.DOES_NOT_HOLD),
    (1.06, 1.20, advice.DOES_NOT_HOLD), (0.93, 1.01, advice.CANNOT_TELL)])
def test_judge_between(low, high, kind):
    r = advice.rests_on(meta(holds_when="between 0.95 and 1.05"))
    assert advice.judge_comparison(r, comparison(1.0, low, high)).kind == kind


@pytest.mark.parametrize("low,high,kind", [
    (0.98, 1.20, advice.HOLDS), (0.80, 0.95, advice.DOES_NOT_HOLD),
    (0.90, 1.05, advice.CANNOT_TELL)])
def test_judge_at_least(low, high, kind):
    r = advice.rests_on(meta(slug="direct-io", recipe="direct-io", point="O_DIRECT",
                             holds_when="at least 1/1.03"))
    assert advice.judge_comparison(r, comparison(1.0, low, high)).kind == kind


def test_no_pooled_comparison_cannot_tell_and_says_why(monkeypatch):
    c = comparison(kind=claim_verdicts.REGIME_NOT_REACHED, why="a check missed")
    monkeypatch.setattr(claim_verdicts, "comparisons", lambda *a, **k: [c])
    v = answers.answer(meta()).verdict
    assert v.kind == advice.CANNOT_TELL and v.pooled is None and v.ratio is None
    assert v.why == f"{claim_verdicts.REGIME_NOT_REACHED}: a check missed"
    monkeypatch.setattr(claim_verdicts, "comparisons", lambda *a, **k: [])
    v = answers.answer(meta(variant="tpcc")).verdict
    assert v.kind == advice.CANNOT_TELL
    assert "invoke recipe doublewrite --variant tpcc" in v.why


def test_the_first_comparison_is_the_one_judged(monkeypatch):
    first, other = comparison(1.0, 0.98, 1.02), comparison(1.5, 1.4, 1.6)
    monkeypatch.setattr(claim_verdicts, "comparisons", lambda *a, **k: [first, other])
    v = answers.answer(meta()).verdict
    assert v.kind == advice.HOLDS and v.comparison is first


def test_a_page_resting_on_none_cannot_tell_with_its_why():
    v = answers.answer({"slug": "purge-threads", "title": "t", "advice": "a", "rests_on": "none",
                      "rests_on_why": "It says what to watch. "}).verdict
    assert (v.kind, v.why, v.rests_on, v.range_text) == \
        (advice.CANNOT_TELL, "It says what to watch.", None, "")


# --- a lab VM's throughput --------------------------------------------------------------------

@pytest.mark.parametrize("kind,why", [(claim_verdicts.NOT_TESTABLE, "lab VM, emulated CPU"),
                                      ("", "")])
def test_lab_vm_throughput_is_never_a_verdict(kind, why):
    """Whether the lead's API says not testable or (drifting) gives a pooled interval, a lab
    VM's throughput neither holds nor fails to hold: it cannot tell, and says why."""
    r = advice.rests_on(meta())
    for low, high in ((0.98, 1.02), (1.5, 1.7)):
        c = comparison(1.0, low, high, host=LAB, kind=kind, why=why)
        v = advice.judge_comparison(r, c)
        assert v.kind == advice.CANNOT_TELL and v.pooled is None
        assert v.why.startswith(claim_verdicts.NOT_TESTABLE) and "lab VM" in v.why


def test_a_lab_vm_cost_is_a_verdict():
    r = advice.rests_on(meta(metric="server_write_bytes_per_trx", holds_when="at least 1.5"))
    v = advice.judge_comparison(r, comparison(1.9, 1.8, 2.0, host=LAB))
    assert v.kind == advice.HOLDS


# --- the ranking ------------------------------------------------------------------------------

def test_ranked_by_the_measured_effect_unanswered_last_in_page_order(monkeypatch):
    by_point = {"O_DSYNC": comparison(1.1, 1.05, 1.15),     # |log| 0.095
                "O_DIRECT": comparison(0.5, 0.45, 0.55),     # |log| 0.69
                "O_DIRECT_NO_FSYNC": comparison(kind=claim_verdicts.NOT_MEASURED, why="-")}
    monkeypatch.setattr(claim_verdicts, "comparisons",
                        lambda recipe, variant, point, metric="": [by_point[point]])
    pages = [meta("direct-io", recipe="direct-io", point=p, holds_when="at least 1")
             for p in ("O_DIRECT_NO_FSYNC", "O_DSYNC", "O_DIRECT")]
    pages.insert(1, {"slug": "purge-threads", "title": "t", "advice": "a", "rests_on": "none", "rests_on_why": "w"})
    order = [(m["slug"], m["rests_on"] if m["rests_on"] == "none" else m["rests_on"]["point"])
             for m, _ in ranked(pages)]
    assert order == [("direct-io", "O_DIRECT"), ("direct-io", "O_DSYNC"),
                     ("direct-io", "O_DIRECT_NO_FSYNC"), ("purge-threads", "none")]


def test_a_large_effect_too_loose_to_judge_ranks_after_a_small_answered_one(monkeypatch):
    by_point = {"O_DSYNC": comparison(1.1, 1.05, 1.15),     # holds, |log| 0.095
                "O_DIRECT": comparison(1.5, 0.9, 2.5)}      # |log| 0.41, but holds both ways
    monkeypatch.setattr(claim_verdicts, "comparisons",
                        lambda recipe, variant, point, metric="": [by_point[point]])
    pages = [meta("direct-io", recipe="direct-io", point=p, holds_when="at least 1")
             for p in ("O_DIRECT", "O_DSYNC")]
    found = ranked(pages)
    assert [(m["rests_on"]["point"], v.kind) for m, v in found] == \
        [("O_DSYNC", advice.HOLDS), ("O_DIRECT", advice.CANNOT_TELL)]


def test_a_lab_vm_throughput_ranks_with_the_unanswered(monkeypatch):
    monkeypatch.setattr(claim_verdicts, "comparisons",
                        lambda *a, **k: [comparison(3.0, 2.9, 3.1, host=LAB)])
    (_, v), = ranked([meta()])
    assert v.effect is None


# --- the committed pages ----------------------------------------------------------------------

def test_every_topic_page_names_what_its_advice_rests_on():
    pages = topic_pages()
    assert len(pages) > 10
    for m in pages:
        r = advice.rests_on(m)
        if r is None:
            assert m["rests_on_why"].strip().endswith("."), m["slug"]


def test_every_topic_page_is_judged_and_no_lab_throughput_is_an_answer():
    for m, v in ranked(topic_pages()):
        assert v.kind in advice.KINDS, m["slug"]
        c = v.comparison
        if c is not None and c.evidence.host_class.lab and not v.rests_on.metric:
            assert v.kind == advice.CANNOT_TELL and v.pooled is None, m["slug"]
        if v.kind == advice.CANNOT_TELL:
            assert v.why, m["slug"]


def ranked(pages):
    """(page, its advice verdict) on the reference server, as the answer index ranks them."""
    return [(a.meta, a.verdict) for a in answers.ranked(metas=pages)]
