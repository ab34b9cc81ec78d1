"""Each topic's current value from captured server and host facts (advise/readings.py), and
whether it is what the topic's advice says."""

from advise_facts import MYSQL_9_7, host, server, storage
from tuninglab.evidence import server_readings as readings
from tuninglab.evidence.topic_pages import topic_pages


def read(slug, s=None, h=None):
    return readings.reading(slug, s or server(), h or host())


def test_every_topic_page_has_a_reader_and_every_reader_a_page():
    assert set(readings.READERS) == {m["slug"] for m in topic_pages()}


def test_every_reader_reads_a_mariadb_and_a_mysql_server_and_a_remote_one():
    remote = host(datadir=None, logdir=None,
                  absent={"datadir": "on another machine", "logdir": "on another machine"})
    for slug in readings.READERS:
        for s in (server(), server(MYSQL_9_7)):
            for h in (host(), remote):
                r = read(slug, s, h)
                assert r.value and r.follows in (True, False, None), (slug, r)


def test_flush_log_one_follows_the_advice_two_does_not_and_says_what_it_risks():
    assert read("flush-log-at-trx-commit").follows is True
    r = read("flush-log-at-trx-commit", server(innodb_flush_log_at_trx_commit=2))
    assert (r.value, r.follows) == ("innodb_flush_log_at_trx_commit = 2", False)
    assert "second of commits" in r.note


def test_redo_size_below_what_the_evidence_measured_does_not_follow():
    page = next(m for m in topic_pages() if m["slug"] == "redo-size")
    assert page["rests_on"]["point"] == readings.REDO_MEASURED
    r = read("redo-size")
    assert r.follows is False and "smaller than the 1G" in r.note
    assert read("redo-size", server(innodb_log_file_size=2**31)).follows is True


def test_redo_size_reads_each_servers_own_variable_and_a_nearly_full_log():
    assert read("redo-size").value.startswith("innodb_log_file_size = 96M")
    assert read("redo-size", server(MYSQL_9_7)).value.startswith(
        "innodb_redo_log_capacity = 100M")
    full = server(status={"innodb_checkpoint_age": "80", "innodb_checkpoint_max_age": "100"})
    r = read("redo-size", full)
    assert r.follows is False and "80% of its maximum" in r.value


def test_io_capacity_on_mariadb_asks_for_the_low_water_mark():
    r = read("io-capacity")
    assert r.follows is False and "innodb_max_dirty_pages_pct_lwm = 0.000000" in r.value
    assert read("io-capacity", server(innodb_max_dirty_pages_pct_lwm="10")).follows is True
    assert read("io-capacity", server(MYSQL_9_7)).follows is None


def test_doublewrite_off_does_not_follow_and_detect_only_repairs_nothing():
    assert read("doublewrite").follows is True
    assert read("doublewrite", server(innodb_doublewrite="OFF")).follows is False
    assert read("doublewrite", server(MYSQL_9_7, innodb_doublewrite="DETECT_ONLY")).follows \
        is False


def test_buffer_pool_instances_is_gone_on_mariadb_and_read_on_mysql():
    assert "one buffer pool" in read("buffer-pool-instances").value
    assert read("buffer-pool-instances", server(MYSQL_9_7)).value.startswith(
        "innodb_buffer_pool_instances = 1")


def test_the_host_readings_nobarrier_parity_raid_zfs_and_swap():
    h = host(datadir=storage(mount_options="rw,nobarrier", raid_level="raid5", disk="md0"))
    assert read("mount-options", h=h).follows is False
    assert "battery" in read("mount-options", h=h).note
    assert read("raid", h=h).value == "md0: raid5" and read("raid", h=h).follows is False
    assert read("raid").follows is None   # not on md: nothing to say
    zfs = host(datadir=storage(filesystem="zfs", source="tank/db", zfs_recordsize="128K"))
    assert (read("zfs-recordsize", h=zfs).value, read("zfs-recordsize", h=zfs).follows) == \
        ("tank/db: recordsize = 128K", False)
    assert read("swap", h=host(swap_bytes=0)).follows is False
    assert read("swap", h=host(swappiness="60")).follows is False
    assert read("swap").follows is True


def test_a_remote_server_says_its_storage_was_not_read_and_why():
    h = host(datadir=None, absent={"datadir": "the server is on another machine"})
    assert read("filesystems", h=h).value == "not read: the server is on another machine"


def test_a_redo_log_on_its_own_disk_is_told_from_one_beside_the_data():
    assert "the same disk as the data" in read("logs-separate").value
    own = host(logdir=storage(path="/logs", disk="vdb", physical_disks=["vdb"]))
    assert "a disk of its own" in read("logs-separate", h=own).value


def test_a_low_water_mark_that_is_not_a_number_is_said_not_raised():
    """A server is read as it is: text where a number belongs was a ValueError traceback."""
    for text in ("ten", "nan", "inf", "1e999", "10%"):
        r = read("io-capacity", server(innodb_max_dirty_pages_pct_lwm=text))
        assert f"innodb_max_dirty_pages_pct_lwm = '{text}' is not a number" in r.value
        assert r.follows is None and "cannot tell" in r.note


def test_a_checkpoint_age_that_is_not_a_number_is_said_and_the_log_size_still_read():
    for status, shown in ((
            {"innodb_checkpoint_age": "full", "innodb_checkpoint_max_age": "100"},
            "Innodb_checkpoint_age = 'full' is not a number"), (
            {"innodb_checkpoint_age": "80", "innodb_checkpoint_max_age": "\x1b[2Jlots"},
            "Innodb_checkpoint_max_age = '\\x1b[2Jlots' is not a number")):
        r = read("redo-size", server(status=status))
        assert f"checkpoint age not read ({shown})" in r.value
        assert r.follows is False and "smaller than the 1G" in r.note   # the size, still read


def test_a_long_value_that_is_not_a_number_is_cut_short_in_its_row():
    r = read("io-capacity", server(innodb_max_dirty_pages_pct_lwm="x" * 5000))
    assert "'" + "x" * readings.SHOWN + "...' is not a number" in r.value
    assert len(r.value) < 200


def test_a_maximum_checkpoint_age_of_zero_divides_nothing():
    r = read("redo-size", server(status={"innodb_checkpoint_age": "5",
                                         "innodb_checkpoint_max_age": "0"}))
    assert "checkpoint age" not in r.value


def test_the_known_traps_are_flagged_and_apply_whatever_the_measurements_say():
    """The traps the guide's pages explain from the mechanism (issue 78): the page cleaner's
    low-water mark at 0, no swap at all (swappiness then changes nothing), O_DIRECT on a
    network filesystem; each applies in advise's row even where today's evidence cannot
    tell."""
    from tuninglab.evidence import advice, server_rows
    nfs = host(datadir=storage(filesystem="nfs4", source="filer:/db"))
    traps = [read("io-capacity"), read("swap", h=host(swap_bytes=0, swappiness="60")),
             read("direct-io", server(innodb_flush_method="O_DIRECT"), nfs)]
    assert all(r.trap and r.follows is False for r in traps)
    assert "fsync" in traps[2].note and "nfs4" in traps[2].value
    assert not read("direct-io", server(innodb_flush_method="O_DIRECT")).trap
    assert not read("swap", h=host(swappiness="60")).trap   # too high, but there is swap
    noisy = server_rows.Evidence("mariadb 10.11", "", advice.CANNOT_TELL, "older evidence",
                                 "", "", 0, 0, "", "")
    for r in traps:
        follows, applies = server_rows.what_follows({"advice": "a"}, r, noisy)
        assert applies and follows.startswith("check this: ") and "not advised" not in follows
