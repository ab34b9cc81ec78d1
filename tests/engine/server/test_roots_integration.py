"""Today's servers from their Debian roots, for real: each root built from Debian's archive (about
half a minute each, once; kept in work/server-roots-tests for later sessions), each server
initialised, started, loaded by the host's sysbench through its socket and stopped, with nothing
left mounted on the host; and a recipe run on each, its result naming the root's packages."""

import os
import subprocess
from pathlib import Path

import pytest

from helpers import fixture_recipe, run_recipe, servers_under
from tuninglab import files
from tuninglab.engine.server import mysqld as srv
from tuninglab.engine.server import roots
from tuninglab.engine.run import preflight, runner
from tuninglab.errors import NotOnThisServer

pytestmark = pytest.mark.integration


@pytest.fixture(scope="module")
def roots_wd():
    if os.geteuid() != 0:
        pytest.skip("needs root: builds the server roots with debootstrap and chroot")
    return files.default_workdir() / "server-roots-tests"


def host_mounts_under(path: Path) -> list[str]:
    inside = str(path.resolve())
    return [line.split()[4] for line in Path("/proc/self/mountinfo").read_text().splitlines()
            if line.split()[4].startswith(inside)]


@pytest.mark.parametrize("name", list(roots.SPECS))
def test_a_server_runs_from_its_root_and_leaves_nothing_mounted(name, roots_wd, tmp_path):
    binary = srv.find(server=name, workdir=roots_wd, say=lambda _line: None)
    spec = roots.SPECS[name]
    assert (binary.flavor, binary.version[:2]) == (spec.flavor, spec.version)
    package = dict(binary.packages)[spec.packages[0]]  # e.g. 1:11.8.9+ds-0+deb13u1
    assert binary.root and package.split(":")[-1].startswith(".".join(map(str, spec.version)))
    assert roots.problems(roots.cached(roots_wd, name)) == ""
    assert "innodb_buffer_pool_size" in binary.variables  # its --verbose --help, in its root
    srv.initialize(binary, tmp_path / "data", tmp_path / "install.log")
    with srv.Server(binary, tmp_path / "run", tmp_path / "data",
                    {"innodb_buffer_pool_size": "64M"}) as server:
        assert server.query("SELECT VERSION()")[0][0].startswith(
            ".".join(map(str, binary.version)))
        server.query("CREATE DATABASE sbtest")
        base = ["sysbench", "oltp_read_write", f"--mysql-socket={server.socket}",
                "--mysql-user=root", "--tables=1", "--table-size=1000"]
        subprocess.run([*base, "prepare"], check=True, capture_output=True)
        out = subprocess.run([*base, "--time=2", "run"], check=True, capture_output=True,
                             text=True).stdout
        assert "transactions:" in out
        assert host_mounts_under(roots_wd) == []  # the binds live in the server's namespace
    assert servers_under(tmp_path) == []
    assert host_mounts_under(roots_wd) == [] and host_mounts_under(tmp_path) == []


@pytest.mark.parametrize("name, fixture", [("mysql-9.7", "tiny"), ("mariadb-11.8", "tiny-logs")])
def test_a_recipe_on_a_server_by_name_records_its_root(name, fixture, roots_wd, recipes_dir,
                                                        tmp_path):
    """tiny-logs puts the redo log on a sandbox of its own: a directory a setting names, which
    the server in its root must see at the same path."""
    fixture_recipe(recipes_dir, fixture)
    _path, doc = run_recipe(fixture, recipes_dir, roots_wd, tmp_path / "data", server=name)
    spec = roots.SPECS[name]
    assert doc["server"]["flavor"] == spec.flavor
    assert doc["server"]["version"].startswith(".".join(map(str, spec.version)) + ".")
    assert doc["server"]["root"]["server"] == name
    assert spec.packages[0] in doc["server"]["root"]["packages"]
    assert all(r["summary"]["tps"] > 0 for p in doc["points"] for r in p["runs"])
    assert host_mounts_under(roots_wd / "servers") == []


@pytest.mark.parametrize("name, skipped, mode", [("mysql-9.7", "fast", "DETECT_ONLY"),
                                                 ("mariadb-11.8", "DETECT_ONLY", "fast")])
def test_each_server_runs_its_own_mode_and_skips_the_others(name, skipped, mode, roots_wd):
    """doublewrite's today-only modes: each server refuses the other's value in its own words,
    so the point is skipped with the refusal, and runs its own."""
    opts = runner.Options(profile="quick", server=name, workdir=roots_wd, variant="modes")
    plan = preflight.prepare_named("doublewrite", opts).plan
    assert [p.value for p in plan.points] == ["ON", mode, "OFF"]
    [(value, why)] = plan.skipped
    assert value == skipped and f"{skipped} is a value of" in why and "sweep.values" in why


def test_a_server_with_neither_mode_skips_the_variant(roots_wd):
    opts = runner.Options(profile="quick", server="mariadb-10.11", workdir=roots_wd,
                          variant="modes")
    with pytest.raises(NotOnThisServer, match="takes none of the values of innodb_doublewrite "
                                              "this sweep is about") as err:
        preflight.prepare_named("doublewrite", opts)
    assert "DETECT_ONLY is a value of MySQL" in str(err.value)
    assert "fast is a value of MariaDB 11" in str(err.value)
