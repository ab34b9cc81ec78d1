"""The real server: initialise, start on a private socket, refuse bad options clearly, stop."""

import pytest

from helpers import needs_real_server, servers_under
from tuninglab.engine.server import mysqld as srv
from tuninglab.errors import UserError

pytestmark = pytest.mark.integration


@pytest.fixture(scope="module")
def binary():
    needs_real_server()
    return srv.find()


@pytest.fixture(scope="module")
def datadir(binary, tmp_path_factory):
    base = tmp_path_factory.mktemp("server")
    srv.initialize(binary, base / "data", base / "install.log")
    return base / "data"


def test_default_server_is_debians_mariadb(binary):
    assert binary.flavor == "mariadb"
    assert binary.version >= (10, 5, 0)
    assert {"innodb_doublewrite", "innodb_flush_method", "innodb_log_file_size"} <= binary.variables


def test_starts_on_a_socket_without_tcp_and_stops(binary, datadir, tmp_path):
    with srv.Server(binary, tmp_path, datadir, {"innodb_buffer_pool_size": "32M",
                                                  "innodb_doublewrite": "OFF"}) as server:
        values = server.variables(["skip_networking", "innodb_doublewrite", "socket"])
        assert values["skip_networking"] == "ON"
        assert values["innodb_doublewrite"] == "OFF"
        assert values["socket"].startswith(str(tmp_path)) or "tuninglab-" in values["socket"]
        version = server.query("SELECT VERSION()")[0][0]
        assert version.startswith(".".join(map(str, binary.version)))
    assert server.process is None
    assert servers_under(tmp_path) == []


def test_unknown_option_names_the_option_and_shows_the_log(binary, datadir, tmp_path):
    with pytest.raises(UserError) as err:
        with srv.Server(binary, tmp_path, datadir, {"innodb_no_such_thing": "1"}):
            pass
    message = str(err.value)
    assert "does not know the option 'innodb_no_such_thing'" in message
    assert "[ERROR]" in message  # the tail of the error log
    assert servers_under(tmp_path) == []


def test_bad_value_names_the_option_and_value(binary, datadir, tmp_path):
    with pytest.raises(UserError, match=r"'bogus' is not valid for innodb_flush_method"):
        with srv.Server(binary, tmp_path, datadir, {"innodb_flush_method": "bogus"}):
            pass
    assert servers_under(tmp_path) == []
