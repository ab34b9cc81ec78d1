"""The notebooks (issue 20): executed at every build on the results being built, an exception
in a cell fails the strict build, and the noise notebook's page shows its summary of every
usable result and its figure, drawn by the site's own plotly.js, with no error output."""

import json
import os
import re
import subprocess
import sys
from html.parser import HTMLParser

import nbformat
import pytest
import yaml
from test_browser import charts_drawn, watched_page
from test_prose_numbers import MEASURED, prose

from helpers import REPO, hostile, result_paths
from tuninglab.site import noise_summary

NOISE = REPO / "docs" / "notebooks" / "noise.ipynb"
STDERR = re.compile(r'<div[^>]*data-mime-type="application/vnd\.jupyter\.stderr"')


def jupyter_settings() -> dict:
    """The mkdocs-jupyter block of mkdocs.yml (its other tags read as nothing)."""
    class Loader(yaml.SafeLoader):
        pass
    Loader.add_multi_constructor("", lambda loader, suffix, node: None)
    config = yaml.load((REPO / "mkdocs.yml").read_text(), Loader=Loader)
    return next(p["mkdocs-jupyter"] for p in config["plugins"]
                if isinstance(p, dict) and "mkdocs-jupyter" in p)


def test_notebooks_run_at_every_build_on_the_results_being_built():
    settings = jupyter_settings()
    assert settings["execute"] is True and settings["allow_errors"] is False
    # mkdocs-jupyter's cache keys on the notebook's text alone: it served the output of an
    # older data/ (and of whatever data directory a test had built from).
    assert settings["cache"] is False


@pytest.mark.integration  # builds a site (mkdocs, a Jupyter kernel)
@pytest.mark.parametrize("source, fails", [("print('fine')", False),
                                           ("raise KeyError('tps')", True)])
def test_a_notebook_that_raises_fails_the_strict_build(tmp_path, source, fails):
    """A throwaway site with the project's mkdocs-jupyter settings and one notebook: it builds
    when the notebook runs, and fails when a cell raises."""
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "index.md").write_text("# Home\n")
    notebook = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(source)], metadata={
        "kernelspec": {"name": "python3", "display_name": "Python 3", "language": "python"}})
    nbformat.write(notebook, tmp_path / "docs" / "nb.ipynb")
    (tmp_path / "mkdocs.yml").write_text(yaml.safe_dump({
        "site_name": "throwaway", "strict": True, "nav": ["index.md", "nb.ipynb"],
        "plugins": [{"mkdocs-jupyter": jupyter_settings()}]}))
    out = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict"], cwd=tmp_path,
                         capture_output=True, text=True,
                         env={**os.environ, "NO_MKDOCS_2_WARNING": "1"})
    assert (out.returncode != 0) == fails, out.stderr[-2000:]
    if fails:
        assert "KeyError" in out.stderr
    else:
        assert "fine" in (tmp_path / "site" / "nb" / "index.html").read_text()


def test_notebook_code_is_short_and_its_outputs_come_from_the_build():
    notebook = nbformat.read(NOISE, as_version=4)
    for cell in notebook.cells:
        if cell.cell_type == "code":
            assert not cell.outputs, "stored outputs: the build computes them"
            assert all(len(line) < 80 for line in cell.source.splitlines()), cell.source


def test_notebook_prose_quotes_no_measurement_by_hand():
    notebook = nbformat.read(NOISE, as_version=4)
    text = prose("\n".join(c.source for c in notebook.cells if c.cell_type == "markdown"))
    assert [m.group(0) for m in MEASURED.finditer(text)] == []


def test_every_kind_of_result_gives_its_primary_metrics_cv(committed_data):
    noise = noise_summary.collect(committed_data)
    assert noise.files == len(result_paths(committed_data))
    assert {p.metric for p in noise.points} == {"tps", "new_order_tpm", "mib_per_s"}
    assert any(p.where.startswith("lab VM") for p in noise.points)
    assert all(p.cv >= 0 for p in noise.points)
    scans = [p for p in noise.points if p.metric == "mib_per_s"]
    assert scans and all(p.per_second_cv is None for p in scans)  # one timed query a repeat


def test_skipped_results_and_points_are_counted_with_why(committed_data, tmp_path):
    data = tmp_path / "data"
    (data / "doublewrite").mkdir(parents=True)
    doc = json.loads(next((committed_data / "doublewrite").glob("*.json")).read_text())
    doc["points"][0]["runs"] = doc["points"][0]["runs"][:1]
    (data / "doublewrite" / "one-repeat.json").write_text(json.dumps(doc))
    doc["started"] = "2999-01-01T00:00:00+00:00"
    (data / "doublewrite" / "future.json").write_text(json.dumps(doc))
    noise = noise_summary.collect(data)
    assert noise.files == 2 and noise.used == 1
    assert noise.skipped == {noise_summary.FEW: 1, noise_summary.FUTURE: 1}
    assert len(noise.points) == len(doc["points"]) - 1


def test_a_hostile_result_file_reaches_the_figures_escaped(tmp_path):
    (tmp_path / "doublewrite").mkdir()
    (tmp_path / "doublewrite" / "hostile.json").write_text(json.dumps(hostile()))
    points = noise_summary.collect(tmp_path).points
    assert points
    for by in ("recipe", "where"):
        trace = noise_summary.figure(points, by)["data"][0]
        assert "<" not in "".join(trace["y"] + trace["text"])


def noise_page(built) -> str:
    return (built / "notebooks" / "noise" / "index.html").read_text()


class Charts(HTMLParser):
    """The attributes of every chart container (the notebook's HTML may reorder them)."""

    def __init__(self, page: str):
        super().__init__()
        self.found = []
        self.feed(page)

    def handle_starttag(self, tag, attrs):
        if ("class", "tl-chart") in attrs:
            self.found.append(dict(attrs))


@pytest.mark.integration  # builds the site (mkdocs)
def test_noise_page_shows_no_error_and_sums_up_every_result(built, committed_data):
    page = noise_page(built)
    assert not STDERR.search(page)
    assert "Traceback" not in page and "KeyError" not in page
    noise = noise_summary.collect(committed_data)
    assert f"{len(noise.points)} points from {noise.used} of the {noise.files} result" in page
    assert "Skipped: " in page


@pytest.mark.integration
def test_noise_page_carries_its_figures_with_titled_axes(built, committed_data):
    charts = Charts(noise_page(built)).found
    assert len(charts) == 2  # by recipe, by machine
    points = noise_summary.collect(committed_data).points
    for chart in charts:
        figure = json.loads(chart["data-figure"])  # the parser unescaped it
        assert int(chart["data-traces"]) == len(figure["data"]) >= 1
        assert "% of the mean" in figure["layout"]["xaxis"]["title"]["text"]
        assert figure["layout"]["yaxis"]["title"]["text"] in ("recipe", "machine")
        assert sum(len(trace["x"]) for trace in figure["data"]) == len(points)


@pytest.mark.integration
def test_noise_figures_render_and_code_is_not_cut_off(browser, served_site):  # noqa: F811
    _, url = served_site
    context = browser.new_context(viewport={"width": 1366, "height": 900})
    page = watched_page(context, url)
    try:
        # Instant navigation into the notebook and out of it: its figures and the site's
        # own charts are drawn by the same charts.js and plotly.js.
        page.goto(f"{url}/topics/doublewrite/")
        charts_drawn(page)
        page.click("nav a[href$='notebooks/noise/']")
        page.wait_for_selector(".jupyter-wrapper .tl-chart")  # the new content is in
        charts = charts_drawn(page)
        assert len(charts) == 2 and all(d == e and svgs >= 1 for e, d, svgs in charts)
        page.click("nav a[href$='redo-size/']")
        page.wait_for_selector(".jupyter-wrapper", state="detached")
        assert all(drawn == expected for expected, drawn, _ in charts_drawn(page))
        # On a phone, a code line wider than its cell scrolls inside it: never cut off.
        page.set_viewport_size({"width": 390, "height": 844})
        page.goto(f"{url}/notebooks/noise/")
        clipped = page.evaluate("""() => [...document.querySelectorAll(
            '.jupyter-wrapper .jp-InputArea-editor pre, .jupyter-wrapper .jp-OutputArea pre')]
            .filter(pre => {
                const fits = pre.scrollWidth <= pre.clientWidth + 1;
                const scrolls = ['auto', 'scroll'].includes(getComputedStyle(pre).overflowX);
                const right = pre.getBoundingClientRect().right;
                const column = pre.closest('.md-content').getBoundingClientRect().right;
                return !(fits || scrolls) || right > column + 1;
            }).length""")
        assert clipped == 0
        assert page.problems == []
    finally:
        context.close()
