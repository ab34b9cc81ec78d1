"""MkDocs hooks (mkdocs.yml `hooks:`), so that a plain `mkdocs build` or `mkdocs serve` gives
the same working site as `invoke docs.build`: the site's plotly.js is put in place first."""

from tuninglab.site import plotly_bundle


def on_pre_build(config, **kwargs) -> None:
    plotly_bundle.vendor()
