"""Shared fixtures: a tiny recipe writer and a session work directory whose template is reused."""

import os
import shutil
import subprocess
import textwrap
from pathlib import Path

import pytest

TINY_RECIPE = """
title = "Tiny test recipe"
question = "Does the engine run end to end?"

[dataset]
shape = "cpu-bound"
tables = 2
table_size = 2000
buffer_pool_size = "32M"

[workload]
script = "oltp_write_only"
threads = 2

[sweep]
setting = "innodb_doublewrite"
values = ["ON", "OFF"]

[measure]
warmup = "1s"
duration = "2s"
repeats = 2
"""


def write_recipe(recipes_dir: Path, name: str, text: str = TINY_RECIPE) -> Path:
    path = Path(recipes_dir) / name / "recipe.toml"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(textwrap.dedent(text))
    return path


def needs_real_server():
    """Skip with a reason that names what is missing."""
    for tool, hint in (("mariadbd", "mariadb-server"), ("sysbench", "sysbench"), ("fio", "fio")):
        if not (shutil.which(tool) or os.path.exists(f"/usr/sbin/{tool}")):
            pytest.skip(f"needs {tool} (apt-get install {hint})")


@pytest.fixture(scope="session")
def shared_workdir(tmp_path_factory):
    """One work directory for the session so the tiny template is built once."""
    return tmp_path_factory.mktemp("workdir")


def servers_under(path: Path) -> list[str]:
    """Server processes whose command line points into path."""
    out = subprocess.run(["pgrep", "-af", "mariadbd|mysqld"], capture_output=True, text=True)
    return [line for line in out.stdout.splitlines() if str(path) in line]


@pytest.fixture(scope="session")
def served_site(tmp_path_factory):
    """The site built strictly once per session, served on 127.0.0.1 at the URL it was built
    for (Material's instant navigation works only on the site_url's origin)."""
    from tuninglab import site
    root = tmp_path_factory.mktemp("site") / "site"
    with site.local_site(root) as url:
        site.build(root, site_url=url)
        yield root, url.rstrip("/")


@pytest.fixture(scope="session")
def built(served_site):
    return served_site[0]
