"""The password and the two SHA-2 plugins (advise/client.py) against a fake server
(fake_mysql.py) that does what a man in the middle may: send an RSA public key of its own for
the password to be encrypted to (sha256_password; caching_sha2_password's full authentication),
or offer TLS whose certificate nobody checks and ask for the password in clear inside it. The
real PyMySQL client; each refusal is one line naming the plugin and the option that allows it,
and the fake, holding its key's private half, can read the password in no form. A key file the
user gave, a verified certificate, a Unix socket and the fast scramble still log in."""

import shutil
import ssl
import tempfile
from pathlib import Path

import pytest

from fake_keys import certificate, decrypts_to, ec_public_pem, key, public_pem
from fake_mysql import SALT, FakeServer, caching_sha2_password, sha256_password
from tuninglab.advise import server_facts
from tuninglab.advise.server_facts import Target
from tuninglab.errors import UserError

PASSWORD = "TopSecret-123"
HOSTILE = "hostile"   # the fake's own key, whose public half it sends
SERVERS = "server"    # the honest server's key, a copy of whose public half the user holds

# The exchanges a hostile server may ask for, by the plugin the refusal must name.
ASKING = {
    "sha256_password switched to": (b"mysql_native_password",
                                    lambda pem: sha256_password(pem, switch=True)),
    "sha256_password in the greeting": (b"sha256_password", sha256_password),
    "caching_sha2_password full authentication": (b"caching_sha2_password",
                                                  caching_sha2_password),
    "caching_sha2_password switched to, then full": (
        b"mysql_native_password", lambda pem: caching_sha2_password(pem, switch=True)),
}


@pytest.fixture(autouse=True)
def password(monkeypatch):
    monkeypatch.setenv("MYSQL_PWD", PASSWORD)


@pytest.fixture(scope="module")
def tls_files(tmp_path_factory):
    return certificate(tmp_path_factory.mktemp("tls"))


def tls_context(tls_files) -> ssl.SSLContext:
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(*tls_files)
    return context


def fake(case: str, tls_files=None, **kwargs) -> FakeServer:
    plugin, exchange = ASKING[case]
    return FakeServer(plugin=plugin, auth=exchange(public_pem(key(HOSTILE))),
                      tls=tls_context(tls_files) if tls_files else None, **kwargs)


def readable_by(server: FakeServer, name: str | None = None) -> bool:
    """Whether what the client sent holds the password in clear, or encrypted to the key of
    that name (the fake holds its private half)."""
    secret = PASSWORD.encode()
    return any(secret in p or (name and decrypts_to(key(name), p, secret, SALT))
               for p in server.received)


def option_file(tmp_path, **options) -> str:
    path = tmp_path / "my.cnf"
    path.write_text("[client]\n" + "".join(f"{k} = {v}\n" for k, v in options.items()))
    return str(path)


def users_key_file(tmp_path) -> str:
    path = tmp_path / "server_public_key.pem"
    path.write_bytes(public_pem(key(SERVERS)))
    return option_file(tmp_path, **{"server-public-key-path": path})


def on(server, defaults_file="") -> Target:
    return Target(host="127.0.0.1", port=server.port, user="advisor",
                  defaults_file=defaults_file)


def refused(target: Target) -> str:
    with pytest.raises(UserError) as info:
        server_facts.read(target)
    message = str(info.value)
    assert "\n" not in message and "Traceback" not in message
    return message


@pytest.mark.parametrize("case", ASKING)
@pytest.mark.parametrize("over_tls", [False, True], ids=["plain TCP", "unverified TLS"])
def test_a_server_asking_for_the_password_with_its_own_key_or_unverified_tls_is_refused(
        case, over_tls, tls_files):
    with fake(case, tls_files if over_tls else None) as server:
        message = refused(on(server))
    plugin = case.split()[0]
    assert message.startswith(f"the server at 127.0.0.1:{server.port} ")
    assert f"(the {plugin} authentication plugin" in message and "ssl-ca" in message
    if over_tls and case == "sha256_password in the greeting":
        # PyMySQL would put the password into its first answer, inside the TLS it then
        # starts: refused from the greeting, before TLS
        assert "in clear inside TLS whose certificate advise cannot check" in message
    else:
        assert server.tls_used == over_tls
        assert "sent its own RSA public key to encrypt the password to" in message
        assert "server-public-key-path" in message
    assert not readable_by(server, HOSTILE)


@pytest.mark.parametrize("case", ASKING)
def test_with_the_users_key_file_the_password_goes_to_that_key_never_the_servers(
        case, tmp_path):
    with fake(case) as server:
        facts = server_facts.read(on(server, users_key_file(tmp_path)))
    assert facts.flavor == "mariadb"
    assert readable_by(server, SERVERS)      # the honest server reads it with its own key
    assert not readable_by(server, HOSTILE)  # the key the fake sent was not used


def test_the_users_key_file_serves_inside_unverified_tls_too(tmp_path, tls_files):
    """caching_sha2_password's full authentication: PyMySQL would send the password in clear
    inside the TLS; with the user's key it is encrypted to that key instead."""
    case = "caching_sha2_password full authentication"
    with fake(case, tls_files) as server:
        server_facts.read(on(server, users_key_file(tmp_path)))
    assert server.tls_used and readable_by(server, SERVERS)
    assert not readable_by(server)


@pytest.mark.parametrize("over_tls", [False, True], ids=["plain TCP", "unverified TLS"])
def test_caching_sha2_fast_authentication_sends_no_password_and_logs_in(over_tls, tls_files):
    with FakeServer(plugin=b"caching_sha2_password",
                    auth=caching_sha2_password(public_pem(key(HOSTILE)), full=False),
                    tls=tls_context(tls_files) if over_tls else None) as server:
        assert server_facts.read(on(server)).flavor == "mariadb"
    assert server.tls_used == over_tls and not readable_by(server, HOSTILE)


@pytest.mark.parametrize("case", ["sha256_password in the greeting",
                                  "caching_sha2_password full authentication"])
def test_over_tls_with_a_verified_certificate_the_password_goes_inside_it(
        case, tmp_path, tls_files):
    cnf = option_file(tmp_path, **{"ssl-ca": tls_files[0]})
    with fake(case, tls_files) as server:
        server_facts.read(on(server, cnf))
    assert server.tls_used and readable_by(server)   # the verified server reads it


def test_over_a_unix_socket_full_authentication_sends_the_password_to_the_socket():
    directory = Path(tempfile.mkdtemp(prefix="fake-mysql-", dir="/tmp"))
    try:
        plugin, exchange = ASKING["caching_sha2_password full authentication"]
        with FakeServer(plugin=plugin, auth=exchange(public_pem(key(HOSTILE))),
                        unix=directory / "s.sock") as server:
            server_facts.read(Target(socket=server.path, user="advisor"))
    finally:
        shutil.rmtree(directory, ignore_errors=True)
    assert readable_by(server)


@pytest.mark.parametrize("content, expected", [
    (None, "no such file"),
    (b"not a key\n", "not an RSA public key in PEM"),
    (ec_public_pem(), "not an RSA public key in PEM"),
    (b"x" * (65 * 2**10), "not a public key file"),
])
def test_a_key_file_that_is_not_an_rsa_public_key_is_one_line_naming_file_and_line(
        tmp_path, content, expected):
    path = tmp_path / "key.pem"
    if content is not None:
        path.write_bytes(content)
    target = Target(host="127.0.0.1", port=1, defaults_file=option_file(
        tmp_path, **{"server-public-key-path": path}))
    message = refused(target)
    assert message.startswith(f"{tmp_path / 'my.cnf'} line 2: server-public-key-path {path}: ")
    assert expected in message


def test_a_key_file_anyone_may_write_is_refused(tmp_path):
    path = tmp_path / "key.pem"
    path.write_bytes(public_pem(key(SERVERS)))
    path.chmod(0o666)
    target = Target(host="127.0.0.1", port=1, defaults_file=option_file(
        tmp_path, **{"server-public-key-path": path}))
    assert "anyone may write it, and so put their own key there" in refused(target)
