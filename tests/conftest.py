"""Shared fixtures: a session work directory whose template is reused, a copy of the committed
result files, and the site built once from that copy. Plain helpers live in helpers.py."""

import pytest

from helpers import DATA, copy_committed_data, needs_real_server
from tuninglab.contrib import check
from tuninglab.evidence import result_files


@pytest.fixture(autouse=True)
def reads_the_committed_results(monkeypatch):
    """What reads data/ unless told otherwise (the site's results, data.check's project hosts)
    reads the committed copy in every test: the checkout's data/ holds the user's own runs too.
    A test that needs other results points them elsewhere itself."""
    monkeypatch.setattr(result_files, "DATA_DIR", DATA)
    monkeypatch.setattr(check, "DATA_DIR", DATA)


@pytest.fixture
def recipes_dir(tmp_path):
    """An empty recipes directory for a test that runs a recipe on the real server."""
    needs_real_server()
    return tmp_path / "recipes"


@pytest.fixture(scope="session")
def shared_workdir(tmp_path_factory):
    """One work directory for the session so the tiny template is built once."""
    return tmp_path_factory.mktemp("workdir")


@pytest.fixture(scope="session")
def committed_data(tmp_path_factory):
    """A data/ directory holding a copy of the files git tracks in data/ (every file of data/
    without git or a checkout): what the tests read instead of data/ itself, where a user's own
    runs add results."""
    return copy_committed_data(tmp_path_factory.mktemp("committed") / "data")


@pytest.fixture(scope="session")
def served_site(tmp_path_factory, committed_data):
    """The site built strictly once per session from the committed results, served on
    127.0.0.1 at the URL it was built for (Material's instant navigation works only on the
    site_url's origin)."""
    from tuninglab.site import builder
    root = tmp_path_factory.mktemp("site") / "site"
    with builder.local_site(root) as url:
        builder.build(root, site_url=url, data_dir=committed_data)
        yield root, url.rstrip("/")


@pytest.fixture(scope="session")
def built(served_site):
    return served_site[0]
