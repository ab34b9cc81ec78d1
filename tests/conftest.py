"""Shared fixtures: a session work directory whose template is reused, and the site built once.
Plain helpers live in helpers.py."""

import pytest


@pytest.fixture(scope="session")
def shared_workdir(tmp_path_factory):
    """One work directory for the session so the tiny template is built once."""
    return tmp_path_factory.mktemp("workdir")


@pytest.fixture(scope="session")
def served_site(tmp_path_factory):
    """The site built strictly once per session, served on 127.0.0.1 at the URL it was built
    for (Material's instant navigation works only on the site_url's origin)."""
    from tuninglab.site import builder
    root = tmp_path_factory.mktemp("site") / "site"
    with builder.local_site(root) as url:
        builder.build(root, site_url=url)
        yield root, url.rstrip("/")


@pytest.fixture(scope="session")
def built(served_site):
    return served_site[0]
