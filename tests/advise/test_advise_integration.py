"""`invoke advise` against real servers: Debian 12's MariaDB 10.11, and MariaDB 11.8 and MySQL
9.7 from their Debian roots (built once into work/server-roots-tests, as the roots' own tests
do), each started with deliberately dated settings (advise/examples.DATED: a small redo log,
the fsync flush method, io_capacity 200). An account with no privilege beyond logging in reads it; each row is checked
against the committed evidence; the server's variables and write counters are unchanged after.
Then the failures, each one line: a bad socket, a refused login, an unreachable host."""

import json
import os
import re
import shutil
import subprocess

import pytest

from helpers import needs_real_server, servers_under
from tuninglab import cli, files
from tuninglab.advise import examples
from tuninglab.errors import UserError
from tuninglab.evidence import server_rows as rows
from tuninglab.evidence import advice, claim_verdicts, result_files
from tuninglab.evidence.topic_pages import topic_pages
from tuninglab.recipes.server_list import HOST_SERVER, NAMES

pytestmark = pytest.mark.integration

# Counters that move when anything is written: rows, tables, users, settings.
WRITES = ("innodb_rows_inserted", "innodb_rows_updated", "innodb_rows_deleted", "com_insert",
          "com_update", "com_delete", "com_replace", "com_create_table", "com_drop_table",
          "com_alter_table", "com_grant", "com_create_user")


@pytest.fixture(scope="module", params=NAMES)
def dated(request, tmp_path_factory):
    """A started server with dated settings and an account that may only log in."""
    needs_real_server()
    name = request.param
    if name != HOST_SERVER and os.geteuid() != 0:
        pytest.skip("needs root: the server roots are built with debootstrap and chroot")
    base = tmp_path_factory.mktemp(name)
    with examples.dated_server(name, base, files.default_workdir() / "server-roots-tests",
                               say=lambda _line: None) as (server, password):
        yield name, server, password
    assert servers_under(base) == []


@pytest.fixture
def committed(committed_data, monkeypatch):
    monkeypatch.setattr(result_files, "DATA_DIR", committed_data)
    return committed_data


def snapshot(server) -> tuple[dict, dict]:
    variables = dict(server.query("SHOW GLOBAL VARIABLES"))
    status = {k.lower(): v for k, v in server.query("SHOW GLOBAL STATUS")}
    return variables, {k: status.get(k) for k in WRITES}


def advise_json(server, password, monkeypatch, **kwargs) -> tuple[int, dict]:
    monkeypatch.setenv("MYSQL_PWD", password)
    out = []
    status = cli.advise(socket=str(server.socket), user="advisor", json=True, say=out.append,
                        **kwargs)
    return status, json.loads(out[0])


def test_advise_reads_a_dated_server_read_only_and_gives_the_evidence(dated, committed,
                                                                      monkeypatch):
    name, server, password = dated
    before = snapshot(server)
    status, report = advise_json(server, password, monkeypatch)
    assert snapshot(server) == before   # nothing set, nothing written
    by = {r["slug"]: r for r in report["rows"]}
    assert list(by) == [m["slug"] for m in topic_pages()]
    assert "= 48M" in by["redo-size"]["reading"]["value"]
    assert "innodb_io_capacity = 200" in by["io-capacity"]["reading"]["value"]
    assert "fsync" in by["direct-io"]["reading"]["value"] or \
        "innodb_data_file_buffering = ON" in by["direct-io"]["reading"]["value"]
    assert report["server"]["version"].startswith(name.split("-")[1])
    assert report["guide_server"] == name.replace("-", " ")
    assert report["host"]["datadir"]["path"] == str(server.datadir.resolve())
    assert status == (1 if report["applies"] else 0)
    for meta in topic_pages():
        check_against_the_evidence(meta, by[meta["slug"]], report["guide_server"])


def check_against_the_evidence(meta: dict, row: dict, server: str):
    """The row's verdict is the committed evidence's, on its host class and server; a known
    trap (the low-water mark at 0, no swap) applies whatever the evidence can tell."""
    e, trap = row["evidence"], row["reading"]["trap"] and row["reading"]["follows"] is False
    r = advice.rests_on(meta)
    if r is None:
        assert e["kind"] == advice.CANNOT_TELL and row["applies"] == trap
        return
    found = [c for c in claim_verdicts.comparisons(r.recipe, r.variant, r.point, r.metric)
             if c.evidence.server == server]
    if not found:
        assert e["kind"] == rows.NO_EVIDENCE and row["applies"] == trap
        return
    c = next(c for c in found if c.evidence.host_class.name == e["host_class"])
    assert e["kind"] == advice.judge_comparison(r, c).kind, meta["slug"]
    assert e["results"] == (c.pooled.k if c.pooled else len(c.evidence.results))
    assert row["applies"] == (trap or (e["kind"] == advice.HOLDS and
                                       row["reading"]["follows"] is False))


def test_the_markdown_report_links_every_topic(dated, committed, monkeypatch):
    _, server, password = dated
    monkeypatch.setenv("MYSQL_PWD", password)
    out = []
    cli.advise(socket=str(server.socket), user="advisor", markdown=True, say=out.append)
    assert out[0].count("](") >= len(topic_pages()) and "| Topic | Yours |" in out[0]


def test_each_failure_is_one_clear_line(dated, tmp_path, monkeypatch):
    _, server, _ = dated
    cases = [({"socket": str(tmp_path / "none.sock")}, "no such socket"),
             ({"host": "127.0.0.1", "port": 1}, "cannot reach the server at 127.0.0.1:1")]
    for kwargs, words in cases:
        with pytest.raises(UserError, match=words) as err:
            cli.advise(**kwargs)
        assert "\n" not in str(err.value)
    monkeypatch.setenv("MYSQL_PWD", "wrong")
    with pytest.raises(UserError, match="login refused at socket") as err:
        cli.advise(socket=str(server.socket), user="advisor")
    assert "\n" not in str(err.value)


def test_a_capture_for_the_page_holds_the_facts_and_no_host_name():
    needs_real_server()
    capture = examples.capture(HOST_SERVER, say=lambda _line: None)
    assert capture["about"].startswith("MariaDB 10.11 (mariadb-10.11), started by")
    assert "hostname" not in capture["server"]["variables"]
    assert capture["server"]["variables"]["innodb_io_capacity"] == "200"
    assert capture["host"]["datadir"]["filesystem"]


def test_a_capture_of_a_server_s_defaults_reads_back_as_its_defaults(tmp_path):
    """Debian 12's MariaDB 10.11 with no settings of ours: its file, read by the pages' reader,
    gives the server's own defaults (MariaDB's documented ones for these four)."""
    from tuninglab.evidence import server_defaults
    needs_real_server()
    capture = examples.capture_defaults(HOST_SERVER, say=lambda _line: None)
    path = examples.write(tmp_path / f"{HOST_SERVER}.json", capture)
    found = server_defaults.load(path, "mariadb 10.11")
    assert found.source.version.startswith("10.11.") and found.cores >= 1
    assert found.source.version in found.source.version_text
    assert "hostname" not in capture["variables"]
    assert found.value("innodb_flush_method") == "O_DIRECT"
    assert found.value("innodb_io_capacity") == "200"
    assert found.value("innodb_doublewrite") == "ON"
    assert float(found.value("innodb_max_dirty_pages_pct_lwm")) == 0
    assert found.value("datadir") is None   # the lab's, not a default


def test_a_calibration_writes_a_result_and_places_the_host(shared_workdir, tmp_path,
                                                           committed_data):
    """A smaller run than `--calibrate`'s (2 rounds of 2-second blocks), into a copy of the
    committed data: it writes a result data.check accepts, and says the host's class."""
    from tuninglab.advise import placement
    from tuninglab.contrib import check
    needs_real_server()
    said = []
    path = placement.calibrate(None, shared_workdir, said.append, repeats=2, duration="2s",
                               warmup="5s", data_dir=committed_data, baseline_seconds=1)
    assert path.parent == committed_data / "flush-log-at-trx-commit"
    assert check.check_file(path) == []
    assert any(line.startswith("this host's class: ") for line in said)
    assert said[-1] == f"contribute it: invoke data.submit --path {path}"
    path.unlink()   # the session's copy of the committed data stays as it was


# --- beside the advisers DBAs run: Percona Toolkit's pt-variable-advisor and mysqltuner ------

# The variables their rules name, by the topic of this guide that measures them.
TOPIC_OF = {
    "innodb_log_file_size": "redo-size", "innodb_redo_log_capacity": "redo-size",
    "innodb_log_files_in_group": "redo-size",
    "innodb_flush_log_at_trx_commit": "flush-log-at-trx-commit",
    "innodb_flush_method": "direct-io", "innodb_doublewrite": "doublewrite",
    "innodb_buffer_pool_instances": "buffer-pool-instances",
    "innodb_io_capacity": "io-capacity", "innodb_io_capacity_max": "io-capacity",
    "innodb_max_dirty_pages_pct": "io-capacity", "innodb_thread_concurrency": "threads",
    "max_connections": "threads", "innodb_read_io_threads": "threads",
    "innodb_write_io_threads": "threads", "innodb_file_io_threads": "threads",
    "innodb_purge_threads": "purge-threads", "innodb_use_native_aio": "async-io",
    "swappiness": "swap",
}
VARIABLE = re.compile(r"\b(innodb_[a-z_]+|max_connections|swappiness)\b")


def pt_variable_advisor(server) -> set[str]:
    """The variables pt-variable-advisor's rules fired on ("# NOTE innodb_flush_method: ...")."""
    out = subprocess.run(["pt-variable-advisor", "--no-version-check",
                          f"S={server.socket},u=root"], capture_output=True, text=True,
                         timeout=120)
    assert out.returncode == 0, out.stdout[-2000:] + out.stderr
    rules = re.findall(r"^# (?:WARN|NOTE|CRIT) ([\w-]+):", out.stdout, re.M)
    return {re.sub(r"-\d$", "", rule) for rule in rules}


def mysqltuner(server, tmp_path) -> set[str]:
    """The variables mysqltuner's recommendations name. Its --socket passes a port beside the
    socket, which MariaDB's clients take for TCP: an option file gives it the socket instead."""
    cnf = tmp_path / "client.cnf"
    cnf.write_text(f"[client]\nuser=root\nsocket={server.socket}\n")
    out = subprocess.run(["mysqltuner", "--nocolor", "--noinfo", "--nogood", "--skipsize",
                          "--skippassword", "--defaults-file", str(cnf)], capture_output=True,
                         text=True, timeout=300, stdin=subprocess.DEVNULL)
    assert "Recommendations" in out.stdout, out.stdout[-2000:] + out.stderr[-1000:]
    return set(VARIABLE.findall(out.stdout.partition("Recommendations")[2]))


@pytest.mark.skipif(not (shutil.which("pt-variable-advisor") and shutil.which("mysqltuner")),
                    reason="needs percona-toolkit and mysqltuner (apt-get install)")
def test_every_topic_the_other_advisers_name_has_a_row_with_its_evidence(dated, committed,
                                                                         monkeypatch, tmp_path):
    """Their rules give a threshold and no evidence; the guide's row on the same topic gives
    the pooled evidence wherever the guide has any for the server."""
    name, server, password = dated
    theirs = {TOPIC_OF[v] for v in pt_variable_advisor(server) | mysqltuner(server, tmp_path)
              if v in TOPIC_OF}
    assert theirs, "neither adviser named a variable this guide measures"
    _, report = advise_json(server, password, monkeypatch)
    ours = {r["slug"]: r for r in report["rows"]}
    for topic in theirs:
        e = ours[topic]["evidence"]
        assert e["kind"] in (*advice.KINDS, rows.NO_EVIDENCE), topic
        if e["kind"] != rows.NO_EVIDENCE and advice.rests_on(
                next(m for m in topic_pages() if m["slug"] == topic)) is not None:
            assert e["results"] >= 1 and e["host_class"], (name, topic, e)
