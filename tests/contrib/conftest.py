import pytest

from helpers import copy_committed_data
from tuninglab.contrib import check


@pytest.fixture
def data(tmp_path, monkeypatch):
    """A data/ of the committed files, as the pull request check's worktree has it."""
    data = copy_committed_data(tmp_path / "data")
    monkeypatch.setattr(check, "DATA_DIR", data)
    return data
