"""The site's plotly.js is the registry's partial bundle, checked against its pinned sha512,
and it can draw every figure the site has; without the registry the build still works, with
the full bundle of the plotly package, and says so."""

import html
import json
import os
import re
import subprocess
import sys

import pytest

from tuninglab.site import plotly_bundle

FIGURE = re.compile(r'data-figure="([^"]*)"')


def _trace_types(text: str) -> set[str]:
    """The trace types of every figure embedded in a page (or a per-host view's JSON)."""
    types = set()
    for payload in FIGURE.findall(text):
        figure = json.loads(html.unescape(payload))
        types |= {t.get("type", "scatter") for t in figure.get("data", [])}
    return types


@pytest.mark.integration
def test_the_built_site_serves_the_partial_bundle_and_draws_only_its_trace_types(built):
    script = (built / "assets" / "vendor" / "plotly.min.js").read_bytes()
    assert b"plotly.js (basic - minified)" in script[:200]
    assert len(script) < 1.3 * 2**20  # the full bundle is over 4 MB
    used = set()
    for page in built.rglob("*.html"):
        used |= _trace_types(page.read_text(errors="replace"))
    assert used and used <= set(plotly_bundle.TRACES)


def test_a_tarball_that_does_not_match_its_pin_is_refused(tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(plotly_bundle, "CACHE", tmp_path / "cache")
    monkeypatch.setattr(plotly_bundle, "tarball",
                        lambda: (_ for _ in ()).throw(OSError("no registry here")))
    target = plotly_bundle.vendor(tmp_path / "plotly.min.js")
    assert b"plotly.js v" in target.read_bytes()[:300]  # the plotly package's full bundle
    assert "the partial plotly.js bundle is unavailable (no registry here)" in \
        capsys.readouterr().err
    assert not plotly_bundle.verified(b"not the tarball")


@pytest.mark.integration
def test_a_plain_mkdocs_build_puts_plotly_in_place_itself(tmp_path, committed_data):
    # What `mkdocs build` or `mkdocs serve` gives without `invoke docs.build` before it.
    plotly_bundle.VENDOR.unlink(missing_ok=True)
    env = {**os.environ, "TUNINGLAB_DATA_DIR": str(committed_data), "NO_MKDOCS_2_WARNING": "1"}
    out = subprocess.run([sys.executable, "-m", "mkdocs", "build", "-q", "-d",
                          str(tmp_path / "site")], cwd=plotly_bundle.PROJECT_DIR, env=env,
                         capture_output=True, text=True)
    assert out.returncode == 0, out.stderr[-2000:]
    served = tmp_path / "site" / "assets" / "vendor" / "plotly.min.js"
    assert served.read_bytes() == plotly_bundle.VENDOR.read_bytes()
