"""A result made with the command line's --repeats, --duration or --warmup (plan/overrides,
engine/run/record.py) says so beside its chart: describe.overrides_text words it against the
profile of the recipe text the result ran, and the plotly fence puts it by the host's view."""

from helpers import HOST_A, result, spec
from tuninglab.evidence import result_files
from tuninglab.site import describe, fence
from tuninglab.results.result import Result


def overridden(**over) -> dict:
    doc = result(HOST_A)
    doc["plan"]["overrides"] = over
    return doc


def test_no_overrides_no_text():
    assert describe.overrides_text(result(HOST_A)) is None


def test_each_override_against_the_profiles_value():
    # a doublewrite result of the full profile: 5 repeats, 10 s warm-up, 60 s measured
    doc = overridden(duration_s=30.0, repeats=3)
    assert describe.overrides_text(doc) == (
        "run with --repeats 3 instead of the full profile's 5, --duration 30s instead of the "
        "full profile's 1m00s")
    assert describe.overrides_text(overridden(warmup_s=1.0)) == \
        "run with --warmup 1s instead of the full profile's 10s"


def test_a_recipe_text_that_no_longer_loads_shows_the_overrides_alone():
    doc = overridden(duration_s=30.0)
    doc["recipe"]["text"] = "not toml ["
    assert describe.overrides_text(doc) == "run with --duration 30s"


def test_the_chart_says_so_beside_the_result(monkeypatch):
    doc = overridden(duration_s=30.0)
    monkeypatch.setattr(result_files, "results_for", lambda name, variant="": [Result(doc)])
    for kind, kw in (("results", {}), ("series", {"metric": "tps"})):
        out = fence.plotly_fence(spec(kind=kind, recipe="doublewrite", **kw), "plotly", "", {},
                                 None)
        assert ('<p class="tl-caption tl-overrides">This result (2026-11-22) was run with '
                "--duration 30s instead of the full profile&#x27;s 1m00s.</p>") in out, kind
    monkeypatch.setattr(result_files, "results_for",
                        lambda name, variant="": [Result(result(HOST_A))])
    out = fence.plotly_fence(spec(kind="results", recipe="doublewrite"), "plotly", "", {}, None)
    assert "tl-overrides" not in out


def test_every_view_of_a_host_a_reader_picks_carries_its_note():
    """The per-host files the page fetches when a reader picks another host hold the note
    too (charts.js sets it as text under the view)."""
    from tuninglab.site import hostviews
    doc = overridden(repeats=3)
    views = hostviews.views(doc)
    assert views and all(v["note"].startswith("This result (") and "--repeats 3" in v["note"]
                         for v in views.values())
    assert all("note" not in v for v in hostviews.views(result(HOST_A)).values())


def test_a_result_that_skipped_a_point_says_so_beside_each_view():
    from tuninglab.site import hostviews
    doc = overridden(repeats=3)
    doc["plan"]["skipped"] = [{"value": "fast", "why": "fast is a value of MariaDB 11 only"}]
    doc["server"].update(flavor="mysql", version="9.7.4")
    assert describe.skipped_text(doc) == "skipped the point fast, which MySQL 9.7.4 does not take"
    note = hostviews.overrides_note(doc)
    assert note.startswith("This result (") and "was run with --repeats 3" in note
    assert note.endswith(" and skipped the point fast, which MySQL 9.7.4 does not take.")
    del doc["plan"]["overrides"]
    assert hostviews.overrides_note(doc).endswith(") skipped the point fast, which MySQL 9.7.4 "
                                                  "does not take.")
