"""Every result on the site links to its evidence: a Results page row and a chart's bar to the
result file (served byte for byte), a Reproduce box to its recipe file and to the setup, with
the command that reruns what the page shows."""

import re

import pytest

from helpers import REPO, result_paths, unfold_evidence
from tuninglab.evidence import result_files
from tuninglab.site import hostviews

pytestmark = pytest.mark.integration


def test_every_results_row_links_to_its_file_as_committed(built, committed_data):
    page = (built / "results" / "index.html").read_text()
    links = re.findall(r'href="\.\./(data/[^"]+\.json)"', page)
    assert len(links) == len(result_paths(committed_data))
    for link in links:
        served = built / link
        assert served.read_bytes() == (committed_data / link.removeprefix("data/")).read_bytes()


def _reproduce_box(built, topic: str) -> str:
    page = (built / "topics" / topic / "index.html").read_text()
    return re.search(r'<div class="admonition example tl-reproduce">.*?</div>', page, re.S)[0]


def test_a_reproduce_box_links_to_its_recipe_and_the_setup(built):
    box = _reproduce_box(built, "doublewrite")
    recipe = re.search(r'href="\.\./\.\./(recipes/doublewrite/recipe\.toml)"', box)[1]
    assert (built / recipe).read_bytes() == (REPO / recipe).read_bytes()
    assert 'href="../../contributing/#1-run-a-recipe"' in box
    assert 'id="1-run-a-recipe"' in (built / "contributing" / "index.html").read_text()


@pytest.mark.parametrize("topic", ["doublewrite", "direct-io", "redo-size"])
def test_the_command_reruns_the_profile_the_page_shows_first(built, committed_data, topic):
    docs = result_files.results_for(topic, data_dir=committed_data)
    shown = hostviews.shown_by_default(docs)
    command = re.search(r"<pre><code>(.*?)</code>", _reproduce_box(built, topic))[1]
    assert command == f"invoke recipe {topic}" + (" --quick" if shown.profile == "quick" else "")


def test_a_recipe_that_needs_a_flag_shows_it(built):
    """buffer-pool-instances needs MySQL: its box names the server (its result is a full one)."""
    assert "<code>invoke recipe buffer-pool-instances --server mysql-9.7</code>" in \
        _reproduce_box(built, "buffer-pool-instances")


def test_a_click_on_a_bar_opens_its_result_file(browser, served_site, screen):
    page = unfold_evidence(browser.new_page(viewport=screen))
    page.goto(f"{served_site[1]}/topics/doublewrite/")
    page.wait_for_selector(".tl-chart[data-rendered='true'] .main-svg", timeout=15000)
    bar = page.locator(".tl-chart[data-rendered='true'] .bars path").first
    with page.expect_popup() as opened:
        bar.click(force=True)
    popup = opened.value
    popup.wait_for_load_state()
    assert re.search(r"/data/doublewrite/[\w.-]+\.json$", popup.url)
    assert '"recipe"' in popup.content()
    page.close()
