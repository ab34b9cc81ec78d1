"""The linter (ruff, pinned in the test extras; its rules in pyproject.toml): no undefined name,
no unused or shadowed import, anywhere in the package, the tests or tasks.py."""

import subprocess
import sys

from helpers import REPO


def test_ruff_finds_nothing():
    out = subprocess.run([sys.executable, "-m", "ruff", "check", "--no-cache",
                          "--output-format", "concise", "src", "tests", "tasks.py"],
                         cwd=REPO, capture_output=True, text=True)
    assert out.returncode == 0, out.stdout + out.stderr


def test_ruff_catches_an_undefined_name(tmp_path):
    bad = tmp_path / "bad.py"
    bad.write_text("import os\n\n\ndef f():\n    return record.x\n")
    out = subprocess.run([sys.executable, "-m", "ruff", "check", "--no-cache", "--isolated",
                          "--select", "F", str(bad)], capture_output=True, text=True)
    assert out.returncode == 1
    assert "F401" in out.stdout and "F821" in out.stdout
