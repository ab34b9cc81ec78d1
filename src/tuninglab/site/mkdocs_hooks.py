"""MkDocs hooks (mkdocs.yml `hooks:`), so that a plain `mkdocs build` or `mkdocs serve` gives
the same working site as `invoke docs.build`: the site's plotly.js is put in place before the
build, and after it the static files the pages fetch or link to (each host's views, every
result file, every recipe file)."""

from pathlib import Path

from tuninglab.files import RECIPES_DIR
from tuninglab.site import hostviews, plotly_bundle, result_files


def on_pre_build(config, **kwargs) -> None:
    plotly_bundle.vendor()


def on_post_build(config, **kwargs) -> None:
    site_dir = Path(config["site_dir"])
    hostviews.write(site_dir, result_files.DATA_DIR)
    result_files.publish(site_dir)
    publish_recipes(site_dir)


def publish_recipes(site_dir: Path) -> None:
    """Each recipe file at <site>/recipes/<name>/recipe.toml: what a Reproduce box links to."""
    for recipe in sorted(RECIPES_DIR.glob("*/recipe.toml")):
        result_files.copy_into(site_dir / "recipes" / recipe.parent.name, [recipe])
