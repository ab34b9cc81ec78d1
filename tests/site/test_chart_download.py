"""A chart's image download (issue 20): the PNG the toolbar saves carries the chart's title and
workload, which the page draws as text above the plot; on a phone there is no toolbar."""

import re
import struct

import pytest

from helpers import unfold_evidence

pytestmark = pytest.mark.integration

# Records the figure the toolbar hands plotly's downloadImage, then lets it save the file.
SPY = """() => { const real = Plotly.downloadImage; window.__saved = [];
    Plotly.downloadImage = (figure, options) => {
        window.__saved.push({title: figure.layout.title.text, top: figure.layout.margin.t});
        return real(figure, options); }; }"""


def test_the_saved_image_carries_the_charts_title(browser, served_site, screen):
    context = unfold_evidence(browser.new_context(viewport=screen, accept_downloads=True))
    page = context.new_page()
    page.goto(f"{served_site[1]}/topics/doublewrite/")
    chart = page.locator(".tl-chart[data-rendered='true']").first
    chart.wait_for(timeout=15000)
    chart.locator(".tl-plot").hover()
    if screen["width"] < 600:  # charts.js NARROW: no toolbar to cover the bars
        assert chart.locator(".modebar").count() == 0
        context.close()
        return
    page.evaluate(SPY)
    with page.expect_download() as download:
        chart.locator(".modebar-btn[data-title='Download as PNG, with its title']").click()
    png = open(download.value.path(), "rb").read()
    width, height = struct.unpack(">II", png[16:24])
    drawn = chart.evaluate("c => [c.querySelector('.tl-plot')._fullLayout.width, "
                           "c.querySelector('.tl-plot')._fullLayout.height]")
    shown = chart.locator(".tl-chart-title > div").all_inner_texts()
    (saved,) = page.evaluate("window.__saved")
    assert png[:8] == b"\x89PNG\r\n\x1a\n" and width == drawn[0]
    lines = saved["title"].split("<br>")
    assert height == drawn[1] + 20 * len(lines), "room above the plot for each title line"
    words = " ".join(re.sub("</?sup>", "", line) for line in lines)
    assert words == " ".join(shown), "the page's title, cut into lines plotly can draw"
    assert download.value.suggested_filename == "throughput-by-innodb-doublewrite.png"
    assert chart.locator(".modebar-btn[data-title='Download plot as a png']").count() == 0
    context.close()
