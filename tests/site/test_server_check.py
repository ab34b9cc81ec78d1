"""The "Check your server" page's examples (site/server_check.py): a report per captured server,
computed through the build; a bad capture is named with its key."""

import json

import pytest

from tuninglab.errors import UserError
from tuninglab.evidence import result_files
from tuninglab.evidence.topic_pages import topic_pages
from tuninglab.recipes.server_list import NAMES
from tuninglab.site import server_check

VARIABLES = {"version": "10.11.14-MariaDB-0+deb12u2", "innodb_flush_log_at_trx_commit": "2",
             "innodb_doublewrite": "ON", "innodb_io_capacity": "200",
             "innodb_log_file_size": "50331648", "datadir": "/var/lib/mysql/"}
HOST = {"kernel": "6.1.0-40-amd64", "cpu_model": "AMD <EPYC>", "cores": 2,
        "memory_bytes": 2**34, "virtualization": "kvm", "smt": False, "swap_bytes": 0,
        "swappiness": "60", "datadir": None, "logdir": None,
        "absent": {"datadir": "captured elsewhere", "logdir": "captured elsewhere"}}


def capture(tmp_path, **changed):
    doc = {"about": "MariaDB 10.11 started with <dated> settings",
           "server": {"flavor": "mariadb", "version_text": VARIABLES["version"],
                      "variables": VARIABLES, "status": {}, "absent": {}},
           "host": HOST, **changed}
    path = tmp_path / "mariadb-10.11.json"
    path.write_text(json.dumps(doc))
    return path


@pytest.fixture
def committed(committed_data, monkeypatch):
    monkeypatch.setattr(result_files, "DATA_DIR", committed_data)


def test_a_capture_becomes_a_report_with_a_row_per_topic_escaped(tmp_path, committed):
    server, html = server_check.report(capture(tmp_path))
    assert server == "mariadb 10.11"
    assert html.count("<tr><td data-label=\"Topic\">") == len(topic_pages())
    assert "&lt;dated&gt;" in html and "<dated>" not in html
    assert "AMD &lt;EPYC&gt;" in html
    assert "innodb_flush_log_at_trx_commit = 2" in html
    assert 'href="../topics/doublewrite/"' in html


def test_a_capture_without_a_key_is_named_with_its_file(tmp_path):
    path = capture(tmp_path)
    doc = json.loads(path.read_text())
    del doc["about"]
    path.write_text(json.dumps(doc))
    with pytest.raises(UserError, match=r"mariadb-10.11.json: about: missing"):
        server_check.load(path)
    doc = json.loads(capture(tmp_path).read_text())
    del doc["server"]["variables"]
    path.write_text(json.dumps(doc))
    with pytest.raises(UserError, match=r"mariadb-10.11.json: server.variables: missing"):
        server_check.load(path)


def test_every_server_of_the_guide_has_an_example():
    assert sorted(p.stem for p in server_check.EXAMPLES.glob("*.json")) == sorted(NAMES)
