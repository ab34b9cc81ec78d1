"""The guide links to its repository and to each page's source when it is built with the
repository's address (REPO_URL and EDIT_URI, which the Pages workflow sets), and to no guessed address when
it is not."""

import html

import pytest

from tuninglab.site import builder, repository

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


def test_a_build_without_it_links_to_its_checkouts_remote_or_to_none(built):
    """The session's build has no REPO_URL: it links to the checkout's `origin` where a
    browser can open it (repository.py), else to no repository, never to a guessed one."""
    home = (built / "index.html").read_text()
    url = repository.address()
    if url is None:
        assert 'class="md-source"' not in home
    else:
        assert f'href="{url}"' in home


def test_contributing_and_check_your_server_start_from_the_clone_command(built):
    url = repository.address()
    for page in ("contributing", "check-your-server"):
        text = (built / page / "index.html").read_text()
        assert f"git clone {html.escape(url or chr(60) + 'this repository')}" in text, page
        assert "./setup.sh" in text, page


def test_a_build_with_the_address_shows_it_in_the_clone_command(tmp_path, monkeypatch,
                                                                committed_data):
    monkeypatch.setenv("REPO_URL", REPO_URL)
    site = builder.build(tmp_path / "site", data_dir=committed_data)
    text = (site / "contributing" / "index.html").read_text()
    assert f"git clone {REPO_URL}\ncd innodb-tuning-lab\n./setup.sh" in text
