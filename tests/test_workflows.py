"""The GitHub workflows run third-party actions only at a commit: a tag can be moved to other
code after review, a full commit id cannot."""

import re

import yaml

from helpers import REPO

WORKFLOWS = sorted((REPO / ".github" / "workflows").glob("*.yml"))


def uses(path) -> list[str]:
    """Every `uses:` of every step of every job."""
    jobs = yaml.safe_load(path.read_text())["jobs"].values()
    return [step["uses"] for job in jobs for step in job.get("steps", []) if "uses" in step]


def test_every_action_is_pinned_to_a_commit():
    found = [(path.name, action) for path in WORKFLOWS for action in uses(path)]
    assert found, "no action found in .github/workflows"
    assert [f"{name}: {action}" for name, action in found
            if not re.fullmatch(r"[\w.-]+/[\w./-]+@[0-9a-f]{40}", action)] == []
