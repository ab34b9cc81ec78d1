"""The repository's address a build links to (repository.py): REPO_URL, else the checkout's
remote where a browser can open it, never a guessed one."""

import pytest

from tuninglab.site import repository

REPO_URL = "https://example.org/someone/innodb-tuning-lab"


@pytest.mark.parametrize("remote, page", [
    ("https://github.com/o/innodb-tuning-lab.git", "https://github.com/o/innodb-tuning-lab"),
    ("https://user:secret@gitlab.com/o/lab/", "https://gitlab.com/o/lab"),
    ("git@github.com:o/innodb-tuning-lab.git", "https://github.com/o/innodb-tuning-lab"),
    ("ssh://git@example.org:2222/o/lab.git", "https://example.org/o/lab"),
    ("/srv/git/lab.git", None), ("../lab", None), ("", None),
    ("file:///srv/git/lab.git", None)])
def test_a_remote_gives_its_web_page_or_none(remote, page):
    assert repository.web_address(remote) == page
    assert repository.address(env={}, remote=remote) == page


def test_repo_url_wins_and_empty_means_none():
    assert repository.address(env={"REPO_URL": REPO_URL + "/"}, remote="") == REPO_URL
    assert repository.address(env={"REPO_URL": ""}, remote="git@github.com:o/r.git") is None
