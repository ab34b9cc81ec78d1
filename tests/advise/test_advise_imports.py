"""`invoke advise` weighs the evidence without the site: importing its command module (and the
command line's advise) loads no tuninglab.site module, no Markdown, YAML or MkDocs. The layout
test follows the imports in the source; this one asks a real interpreter what it loaded."""

import json
import subprocess
import sys

import pytest

from helpers import REPO

pytestmark = pytest.mark.integration

PAGE_MACHINERY = ("markdown", "yaml", "mkdocs", "pymdownx", "plotly")


def loaded_by(code: str) -> list[str]:
    """The modules a fresh interpreter has loaded after running code."""
    script = f"{code}\nimport json, sys\nprint(json.dumps(sorted(sys.modules)))"
    out = subprocess.run([sys.executable, "-c", script], cwd=REPO, capture_output=True,
                         text=True, check=True, timeout=120)
    return json.loads(out.stdout.splitlines()[-1])


@pytest.mark.parametrize("code", [
    "import tuninglab.advise.report",
    "import tuninglab.advise.examples, tuninglab.advise.placement",
    "from tuninglab import cli; cli.advise  # the command line's module, as tasks.py loads it",
])
def test_advise_loads_nothing_of_the_site(code):
    modules = loaded_by(code)
    assert [m for m in modules if m.startswith("tuninglab.site")] == []
    assert [m for m in modules if m.split(".")[0] in PAGE_MACHINERY] == []
    assert "tuninglab.evidence.answers" in modules or "cli" in code   # the answer index
