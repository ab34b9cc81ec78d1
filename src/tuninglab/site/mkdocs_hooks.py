"""MkDocs hooks (mkdocs.yml `hooks:`), so that a plain `mkdocs build` or `mkdocs serve` gives
the same working site as `invoke docs.build`: the repository's address is found
(repository.py) and the site's plotly.js put in place before the build, and after it the
static files the pages fetch or link to (each host's views, every result file, every recipe
file); each page's table cells are kept apart for the search index, its captions say the
method once, its first use of each glossary term links to the glossary, and a topic page's
evidence is folded under its answers."""

import re
from pathlib import Path

from tuninglab.evidence import result_files
from tuninglab.files import RECIPES_DIR
from tuninglab.site import (folds, glossary_links, hostviews, plotly_bundle, repository,
                            result_listings)


def on_config(config, **kwargs):
    """The repository's address from the checkout's own remote where REPO_URL does not give
    one (repository.py): a clone's local build links to where it came from."""
    if not config["repo_url"] and (url := repository.address()):
        config["repo_url"] = url
        config["repo_name"] = "/".join(url.split("/")[-2:])
    return config


def on_pre_build(config, **kwargs) -> None:
    plotly_bundle.vendor()


# The end of a table cell, row or caption, or a line break, followed at once by the next tag,
# and a fold opening straight after a tag: the generated tables have no whitespace between
# cells nor around a cell's lines, and the search index, which keeps only text, would read
# "too noisy to tell" and "btrfs" of the next cell (or "1 result" of the next line) as one
# word. Whitespace there changes nothing a table shows.
_CELL_END = re.compile(r"(</(?:td|th|tr|caption|thead|tbody)>|<br\s*/?>)(?=<)|(?<=>)(?=<details\b)")


def on_page_content(html: str, page, **kwargs) -> str:
    html = glossary_links.linked(said_once(apart(html)), page.url)
    return folds.folded(html) if page.url.startswith("topics/") else html


# Words a caption shares with every block of its kind (result_tables.said): the method,
# said once a page rather than under every table.
_SAID = re.compile(r'<span class="tl-said">(.*?)</span>', re.S)
_EMPTY_CAPTION = re.compile(r"<p class=['\"]tl-caption['\"]>\s*</p>")


def said_once(html: str) -> str:
    """The page with each repeat of a caption's shared words removed, its first use kept."""
    seen = set()

    def keep_first(m: re.Match) -> str:
        if m.group(1) in seen:
            return ""
        seen.add(m.group(1))
        return m.group(0)
    return _EMPTY_CAPTION.sub("", _SAID.sub(keep_first, html))


def apart(html: str) -> str:
    """The page's HTML with a line break after each table cell, row and caption."""
    return _CELL_END.sub(lambda m: (m.group(1) or "") + "\n", html)


def on_post_build(config, **kwargs) -> None:
    site_dir = Path(config["site_dir"])
    hostviews.write(site_dir, result_files.DATA_DIR)
    result_listings.publish(site_dir)
    publish_recipes(site_dir)


def publish_recipes(site_dir: Path) -> None:
    """Each recipe file at <site>/recipes/<name>/recipe.toml: what a Reproduce box links to."""
    for recipe in sorted(RECIPES_DIR.glob("*/recipe.toml")):
        result_listings.copy_into(site_dir / "recipes" / recipe.parent.name, [recipe])
