"""The --defaults-file (advise/option_files.py), read as MySQL's clients read it: its client
groups, repeated ones too, quoting, comments, includes; each error names the file and the line
and never the line's text (it may hold a password)."""

import os

import pytest

from tuninglab.advise import option_files, server_facts
from tuninglab.advise.server_facts import Target
from tuninglab.errors import UserError

SECRET = "hunter2-secret"


def cnf(tmp_path, text, name="my.cnf"):
    path = tmp_path / name
    path.write_bytes(text.encode() if isinstance(text, str) else text)
    return path


def values(path) -> dict:
    return {k: o.value for k, o in option_files.read(str(path)).items()}


def refused(path) -> str:
    with pytest.raises(UserError) as info:
        option_files.read(str(path))
    message = str(info.value)
    assert SECRET not in message and "\n" not in message
    return message


def test_the_syntax_mysql_reads(tmp_path):
    path = cnf(tmp_path, f"""# a comment
; another
[ CLIENT ]
user=advisor
password = "{SECRET} # not a comment"   # a comment
host='db1'
ssl_ca = /etc/ca.pem
loose-ssl-cert=/etc/cert.pem
socket = a\\tb\\\\c\\sd\\q
skip-ssl
[mysqld]
user = mysql
""")
    assert values(path) == {
        "user": "advisor", "password": f"{SECRET} # not a comment", "host": "db1",
        "ssl-ca": "/etc/ca.pem", "ssl-cert": "/etc/cert.pem", "socket": "a\tb\\c d\\q",
        "skip-ssl": None}


def test_a_repeated_client_group_and_mariadbs_groups_apply_in_line_order(tmp_path):
    path = cnf(tmp_path, """[client]
user = first
password = one
[mysqld]
password = the server's
[client-mariadb]
user = second
[client]
password = two
[client-server]
port = 3307
""")
    assert values(path) == {"user": "second", "password": "two", "port": "3307"}


def test_an_option_before_any_group_is_refused_naming_the_line(tmp_path):
    path = cnf(tmp_path, f"\n# note\npassword={SECRET}\n[client]\n")
    assert refused(path) == (f"{path} line 3: an option before any [group] header (MySQL "
                             "refuses it too: put advise's options under [client])")


def test_bytes_that_are_not_utf8_are_refused_without_echoing_them(tmp_path):
    path = cnf(tmp_path, b"[client]\npassword=" + SECRET.encode() + b"\xff\xfe\n")
    assert refused(path) == f"{path} line 2: not UTF-8 text (advise reads option files as UTF-8)"


@pytest.mark.parametrize("text, words", [
    (f"[client\npassword={SECRET}\n", "line 1: a group header without its closing ']'"),
    (f"[client]\npass word = {SECRET}\n", "line 2: expected 'name = value'"),
    (f"[client]\n!exec {SECRET}\n", "line 2: expected '!include FILE' or '!includedir DIR'"),
    ("[client]\n!includedir /nonexistent/dir\n", "line 2: cannot list the included directory"),
])
def test_each_malformed_line_is_named_never_shown(tmp_path, text, words):
    assert words in refused(cnf(tmp_path, text))


def test_includes_are_followed_as_mysql_follows_them(tmp_path):
    conf_d = tmp_path / "conf.d"
    conf_d.mkdir()
    cnf(conf_d, "[client]\nuser = from-b\n", "b.cnf")
    cnf(conf_d, "[client]\nuser = from-a\npassword = a\n", "a.cnf")
    cnf(conf_d, "[client]\nuser = not-a-cnf\n", "c.txt")
    extra = cnf(tmp_path, "[client]\nport = 3308\n", "extra.cnf")
    path = cnf(tmp_path, f"[client]\nuser = top\n!include {extra}\n!include /nonexistent.cnf\n"
                         f"!includedir {conf_d}\n")
    assert values(path) == {"user": "from-b", "password": "a", "port": "3308"}


def test_an_error_in_an_included_file_names_that_file_and_a_loop_is_refused(tmp_path):
    inner = cnf(tmp_path, f"password={SECRET}\n", "inner.cnf")
    outer = cnf(tmp_path, f"[client]\n!include {inner}\n", "outer.cnf")
    assert refused(outer).startswith(f"{inner} line 1: an option before any [group]")
    loop = tmp_path / "loop.cnf"
    loop.write_text(f"[client]\n!include {loop}\n")
    assert "includes nest more than 10 files deep" in refused(loop)


def test_a_world_writable_file_is_refused_as_mysql_ignores_it(tmp_path):
    path = cnf(tmp_path, f"[client]\npassword={SECRET}\n")
    os.chmod(path, 0o666)
    assert "anyone may write it, so MySQL ignores it" in refused(path)


def test_a_missing_file_is_named(tmp_path):
    assert refused(tmp_path / "my.cnf") == f"--defaults-file {tmp_path / 'my.cnf'}: no such file"


def test_advise_takes_the_login_port_and_tls_from_the_file(tmp_path, monkeypatch):
    monkeypatch.delenv("MYSQL_PWD", raising=False)
    path = cnf(tmp_path, "[client]\nuser=advisor\npassword='pä ss'\nport=3307\nssl-ca=/ca.pem\n"
                         "host=ignored\n")
    options = server_facts._options(Target(host="db1", defaults_file=str(path)), 5)
    assert (options["host"], options["port"], options["user"], options["password"],
            options["ssl"]) == ("db1", 3307, "advisor", "pä ss".encode(), {"ca": "/ca.pem"})
    given = server_facts._options(Target(host="db1", port=3310, user="me",
                                         defaults_file=str(path)), 5)
    assert (given["port"], given["user"]) == (3310, "me")  # the command line wins


@pytest.mark.parametrize("text, words", [
    ("[client]\nport = 99999\n", "line 2: port: expected a TCP port number 1-65535"),
    ("[client]\npassword\n", "line 2: password without a value (advise never prompts"),
])
def test_a_value_advise_cannot_use_names_the_line(tmp_path, text, words):
    path = cnf(tmp_path, text)
    with pytest.raises(UserError) as info:
        server_facts._options(Target(host="db1", defaults_file=str(path)), 5)
    assert str(info.value).startswith(f"{path} {words}") and "99999" not in str(info.value)
