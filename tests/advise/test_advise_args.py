"""`invoke advise`'s arguments as a user types them: invoke's own parser must not meet a value
it would turn into a traceback (it did for --port=abc when the task declared an int)."""

import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.integration  # runs invoke in a subprocess; starts no server
REPO = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize("port", ["abc", "١٠"])
def test_a_bad_port_is_one_line_from_the_command_line(port):
    result = subprocess.run([sys.executable, "-m", "invoke", "advise", "--host", "h",
                             f"--port={port}"], cwd=REPO, capture_output=True, text=True,
                            timeout=120)
    assert result.returncode == 2 and "Traceback" not in result.stderr
    assert result.stderr == f"error: --port: expected a TCP port number 1-65535, got {port!r}\n"
