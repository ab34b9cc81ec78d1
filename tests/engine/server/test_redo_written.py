"""A redo log the server makes anew at a run's size is written over before the run measures
(engine/server/datadir.write_over, engine/run/repeat._written_redo): its first pass over
unwritten extents would cost every fsync a journal commit."""

import os
import subprocess

import pytest

from helpers import needs_real_server, servers_under
from tuninglab.engine.server import datadir
from tuninglab.engine.server import mysqld as srv


def unwritten_extents(path) -> int:
    out = subprocess.run(["filefrag", "-v", str(path)], capture_output=True, text=True,
                         check=True).stdout
    return sum("unwritten" in line for line in out.splitlines())


def test_only_a_run_that_sizes_its_redo_log_makes_it_anew():
    assert datadir.makes_redo_anew({"innodb_log_file_size": "1G"})
    assert datadir.makes_redo_anew({"innodb_redo_log_capacity": "1G"})
    assert not datadir.makes_redo_anew({"innodb_doublewrite": "OFF"})
    assert not datadir.makes_redo_anew({"innodb_log_file_size": None})


def test_the_redo_files_of_mariadb_and_of_mysql(tmp_path):
    (tmp_path / "ib_logfile0").write_bytes(b"x")
    (tmp_path / "ibdata1").write_bytes(b"x")
    redo = tmp_path / "#innodb_redo"
    redo.mkdir()
    for name in ("#ib_redo9", "#ib_redo10_tmp"):
        (redo / name).write_bytes(b"x")
    assert datadir.redo_files(tmp_path) == [tmp_path / "ib_logfile0", redo / "#ib_redo10_tmp",
                                            redo / "#ib_redo9"]


def test_writing_over_keeps_every_byte_and_leaves_no_extent_unwritten(tmp_path):
    log = tmp_path / "ib_logfile0"
    content = os.urandom(3 * 4096) + bytes(datadir.WRITE_CHUNK * 2 + 512)
    log.write_bytes(content)
    with open(log, "r+b") as f:  # as the server makes it: allocated, not written
        os.posix_fallocate(f.fileno(), len(content), 4 * datadir.WRITE_CHUNK)
    grown = log.read_bytes()
    assert datadir.write_over([log]) == len(grown)
    assert log.read_bytes() == grown and grown.startswith(content)
    assert unwritten_extents(log) == 0


@pytest.mark.integration
def test_a_log_the_server_made_at_another_size_is_written_over(tmp_path):
    needs_real_server()
    binary = srv.find()
    data = tmp_path / "data"
    srv.initialize(binary, data, tmp_path / "install.log")
    settings = {"innodb_buffer_pool_size": "32M", "innodb_log_file_size": "64M"}
    with srv.Server(binary, tmp_path, data, settings):
        pass
    [log] = datadir.redo_files(data)
    assert log.stat().st_size == 64 << 20 and unwritten_extents(log) > 0
    before = log.read_bytes()
    assert datadir.write_over([log]) == 64 << 20
    assert log.read_bytes() == before and unwritten_extents(log) == 0
    with srv.Server(binary, tmp_path, data, settings) as server:  # the server takes it back
        assert server.variables(["innodb_log_file_size"]) == {"innodb_log_file_size":
                                                              str(64 << 20)}
    assert servers_under(tmp_path) == []
