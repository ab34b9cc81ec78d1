"""Server roots without building one: names, the command that enters a root, the checks a cached
root must pass, and how a server in a root is named, described and refused."""

import json
from pathlib import Path

import pytest

from tuninglab import campaign, cli
from tuninglab.engine.run import leftovers, preflight
from tuninglab.engine.server import mysqld as srv
from tuninglab.engine.server import roots
from tuninglab.errors import UserError

MYSQL_IN_ROOT = srv.ServerBinary("/usr/sbin/mysqld", "mysql", (9, 7, 4),
                                 "/usr/sbin/mysqld  Ver 9.7.4-2 for Linux on x86_64 ((Debian))",
                                 "/w/servers/mysql-9.7-abc/root", "mysql-9.7",
                                 (("libc6", "2.43-7"), ("mysql-server-core", "9.7.4-2")))


def test_names_start_with_the_hosts_own():
    assert roots.names() == ["mariadb-10.11", "mariadb-11.8", "mysql-9.7"]
    assert roots.SPECS["mysql-9.7"].suite == "sid"
    assert roots.SPECS["mariadb-11.8"].label == "MariaDB 11.8"


def test_an_unknown_server_lists_the_known_ones():
    with pytest.raises(UserError, match=r"--server 'mysql-8\.0': expected one of mariadb-10\.11, "
                                        r"mariadb-11\.8, mysql-9\.7"):
        roots.spec("mysql-8.0")


def test_the_command_line_checks_the_name_before_any_work():
    with pytest.raises(UserError, match="expected one of"):
        cli._server("postgres")
    assert cli._server("mariadb-10.11") == "mariadb-10.11"
    assert cli._server(None) is None


def test_mysqld_and_server_together_are_refused():
    with pytest.raises(UserError, match="both name the server: expected one of them"):
        srv.find("/usr/sbin/mariadbd", "mysql-9.7")


def test_the_command_enters_the_root_in_a_namespace_of_its_own(tmp_path):
    run, data = tmp_path / "run", tmp_path / "run" / "data"
    data.mkdir(parents=True)
    cmd = roots.command(Path("/r"), ["/usr/sbin/mysqld", "--defaults-file=x"], [data, run, run])
    assert cmd[:4] == ["unshare", "--mount", "--propagation", "private"]
    i = cmd.index("tuninglab-root")
    # the root, then the binds (each once, a parent before what it holds), then the command
    assert cmd[i + 1:] == ["/r", "2", str(run), str(data), "/usr/sbin/mysqld", "--defaults-file=x"]
    assert 'exec chroot "$root" "$@"' in cmd[i - 1]


def test_a_bind_must_be_a_directory(tmp_path):
    with pytest.raises(UserError, match="cannot bind .*nope into the server root: not a direc"):
        roots.command(Path("/r"), ["true"], [tmp_path / "nope"])


def test_a_binary_in_a_root_runs_through_it():
    assert MYSQL_IN_ROOT.host_path == "/w/servers/mysql-9.7-abc/root/usr/sbin/mysqld"
    cmd = MYSQL_IN_ROOT.command(["--version"])
    assert cmd[0] == "unshare" and cmd[-2:] == ["/usr/sbin/mysqld", "--version"]
    host = srv.ServerBinary("/usr/sbin/mariadbd", "mariadb", (10, 11, 19), "Ver 10.11.19")
    assert host.command(["--version"]) == ["/usr/sbin/mariadbd", "--version"]
    assert host.host_path == "/usr/sbin/mariadbd"


def test_a_result_names_the_root_and_its_packages():
    described = MYSQL_IN_ROOT.describe()
    assert described["version"] == "9.7.4"
    assert described["root"] == {"server": "mysql-9.7", "path": "/w/servers/mysql-9.7-abc/root",
                                 "packages": {"libc6": "2.43-7", "mysql-server-core": "9.7.4-2"}}
    assert "root" not in srv.ServerBinary("/m", "mariadb", (10, 11, 19), "x").describe()


def test_a_server_in_a_root_sees_the_runs_directories(tmp_path):
    redo = tmp_path / "redo"
    redo.mkdir()
    server = srv.Server(MYSQL_IN_ROOT, tmp_path / "run", tmp_path / "run" / "data",
                        {"innodb_log_group_home_dir": str(redo), "innodb_buffer_pool_size": "64M"})
    (tmp_path / "run" / "data").mkdir(parents=True)
    assert set(server.binds()) == {tmp_path / "run", tmp_path / "run" / "data", redo}
    assert srv.Server(srv.ServerBinary("/m", "mariadb", (10, 11, 19), "x"), tmp_path,
                      tmp_path, {}).binds() == []


def test_a_mysql_server_may_read_and_write_files_only_in_its_run(tmp_path):
    text = srv.Server(MYSQL_IN_ROOT, tmp_path, tmp_path / "data", {}).config_text()
    assert f'secure_file_priv="{tmp_path}"' in text.splitlines()


def test_allocators_other_than_glibc_need_the_hosts_server():
    class Recipe:
        path = "recipes/allocator/recipe.toml"

    class Point:
        allocator = "jemalloc"
    with pytest.raises(UserError, match="preloaded from this host, and MySQL 9.7.4 runs in its "
                                        "own Debian root"):
        preflight.check_allocators(Recipe, [Point], MYSQL_IN_ROOT)


def test_a_campaign_names_the_evidence_set_without_building_the_root():
    assert campaign._server(None, "mysql-9.7") == "mysql 9.7"
    assert campaign._server(None, "mariadb-11.8") == "mariadb 11.8"


# --- a cached root's check ---------------------------------------------------------------------

def fake_root(workdir: Path, binary: bytes = b"\x7fELF...", **manifest) -> roots.Root:
    spec = roots.SPECS["mysql-9.7"]
    d = roots.path_for(workdir, spec)
    (d / "root/usr/sbin").mkdir(parents=True)
    (d / "root/usr/sbin/mysqld").write_bytes(binary)
    (d / "manifest.json").write_text(json.dumps({"version_text": "x", **manifest}))
    return roots.Root(d, spec)


def test_no_root_is_cached_until_one_is_built(tmp_path):
    assert roots.cached(tmp_path, "mysql-9.7") is None
    fake_root(tmp_path)
    assert roots.cached(tmp_path, "mysql-9.7").dir.name.startswith("mysql-9.7-")


def test_a_changed_binary_fails_the_check(tmp_path):
    root = fake_root(tmp_path, binary_sha256="0" * 64)
    assert roots.problems(root) == "/usr/sbin/mysqld differs from the one built"


def test_a_missing_binary_fails_the_check(tmp_path):
    root = fake_root(tmp_path)
    root.binary.unlink()
    assert roots.problems(root) == "/usr/sbin/mysqld is missing"


def test_an_unreadable_manifest_fails_the_check(tmp_path):
    root = fake_root(tmp_path)
    (root.dir / "manifest.json").write_text("{")
    assert roots.problems(root).startswith("its manifest is unreadable")


def test_the_key_changes_with_the_build_steps(monkeypatch):
    spec = roots.SPECS["mysql-9.7"]
    before = roots.key(spec)
    monkeypatch.setattr(roots, "BUILD_VERSION", roots.BUILD_VERSION + 1)
    assert roots.key(spec) != before


def test_lab_clean_removes_a_half_built_root(tmp_path):
    half = tmp_path / "servers" / "mysql-9.7-abc.build-123" / "root"
    half.mkdir(parents=True)
    (tmp_path / ".tuninglab-workdir").write_text("")  # the lab made this work directory
    done = leftovers.remove_stale_files(tmp_path)
    assert not half.parent.exists()
    assert any("mysql-9.7-abc.build-123" in line for line in done)


def test_building_needs_root(monkeypatch):
    monkeypatch.setattr("os.geteuid", lambda: 1000)
    with pytest.raises(UserError, match="building a server root needs root"):
        roots.check_build_tools()


# --- a MySQL variable that is dynamic, but not between every value -----------------------------

class FakeServer:
    """MySQL 9.7 as it answers for innodb_doublewrite: dynamic, but ON -> OFF only at startup."""

    def __init__(self):
        self.binary, self.value, self.statements = MYSQL_IN_ROOT, "ON", []

    def query(self, sql):
        import pymysql
        self.statements.append(sql)
        if sql.startswith("SELECT @@GLOBAL."):
            return [(self.value,)]
        if sql.startswith("SET GLOBAL innodb_max_dirty_pages_pct"):
            return []
        if sql.endswith("= OFF") and self.value == "ON":
            raise pymysql.err.OperationalError(1210, "cannot change doublewrite mode to OFF")
        self.value = sql.rsplit("= ", 1)[1].strip("'")
        return []


def test_a_change_mysql_makes_only_at_startup_means_restarts():
    from tuninglab.engine.server import dynamic
    server = FakeServer()
    assert dynamic.not_dynamic(server, {"innodb_doublewrite": ["ON", "OFF"],
                                        "innodb_max_dirty_pages_pct": [75, 90]}) == \
        ["innodb_doublewrite"]
    assert server.value == "ON"  # every value it took is set back
    assert "changes innodb_doublewrite only at startup" in dynamic.startup_only(
        MYSQL_IN_ROOT, ["innodb_doublewrite"])


def test_a_start_that_fails_before_the_servers_log_shows_its_stderr(tmp_path):
    server = srv.Server(MYSQL_IN_ROOT, tmp_path, tmp_path / "data", {})
    server.errlog.write_text("")
    (tmp_path / "stderr.log").write_text("mount: /w/root/run: mount point does not exist.\n")
    message = server.explain_failure()
    assert message.startswith("MySQL 9.7.4 exited during start-up; the end of "
                              f"{tmp_path / 'stderr.log'}:")
    assert "mount point does not exist" in message
    server.errlog.write_text("[ERROR] [MY-010119] [Server] Aborting\n")
    assert str(server.errlog) in server.explain_failure()


def test_the_roots_built_are_the_servers_the_guide_names():
    """The site names servers from recipes/server_list.py (it may not import the engine)."""
    from tuninglab.recipes import server_list
    assert tuple(roots.SPECS) == server_list.ROOTS
    assert roots.names() == list(server_list.NAMES) and roots.HOST_SERVER in server_list.NAMES
