"""The guide links to its repository and to each page's source when it is built with the
repository's address (REPO_URL and EDIT_URI, which the Pages workflow sets), and to no guessed address when
it is not."""

import pytest

from tuninglab.site import builder

pytestmark = pytest.mark.integration

REPO_URL = "https://example.org/someone/innodb-tuning-lab"


def test_a_build_with_the_repository_address_links_to_it_and_to_each_pages_source(
        tmp_path, monkeypatch, committed_data):
    monkeypatch.setenv("REPO_URL", REPO_URL)
    monkeypatch.setenv("EDIT_URI", "edit/main/docs/")
    site = builder.build(tmp_path / "site", data_dir=committed_data)
    home = (site / "index.html").read_text()
    page = (site / "topics" / "direct-io" / "index.html").read_text()
    assert f'href="{REPO_URL}"' in home and f'href="{REPO_URL}"' in page
    assert f'href="{REPO_URL}/edit/main/docs/topics/direct-io.md"' in page


def test_a_build_without_it_links_to_no_repository(built):
    assert 'class="md-source"' not in (built / "index.html").read_text()
