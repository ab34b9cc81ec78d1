"""Captured facts for the advise unit tests: what a server's SHOW GLOBAL VARIABLES and STATUS gave
(the few rows the readers use) and a host's facts as host_facts.read returns them."""

from tuninglab.advise.server_facts import ServerFacts

MARIADB_10_11 = {
    "version": "10.11.14-MariaDB-0+deb12u2", "version_comment": "Debian 12",
    "innodb_use_native_aio": "ON", "innodb_doublewrite": "ON",
    "innodb_flush_log_at_trx_commit": "1", "innodb_flush_method": "O_DIRECT",
    "innodb_io_capacity": "200", "innodb_max_dirty_pages_pct_lwm": "0.000000",
    "innodb_log_file_size": "100663296", "innodb_purge_threads": "4",
    "innodb_buffer_pool_size": "134217728", "max_connections": "151",
    "version_malloc_library": "system", "datadir": "/var/lib/mysql/",
    "innodb_log_group_home_dir": "./",
}
MYSQL_9_7 = {
    "version": "9.7.4", "version_comment": "(Debian)", "innodb_use_native_aio": "ON",
    "innodb_doublewrite": "ON", "innodb_flush_log_at_trx_commit": "1",
    "innodb_flush_method": "O_DIRECT", "innodb_io_capacity": "10000",
    "innodb_redo_log_capacity": "104857600", "innodb_log_file_size": "50331648",
    "innodb_buffer_pool_instances": "1", "innodb_buffer_pool_size": "134217728",
    "innodb_thread_concurrency": "0", "innodb_purge_threads": "4", "max_connections": "151",
    "datadir": "/var/lib/mysql/",
}


def server(variables=MARIADB_10_11, status=None, **changed) -> ServerFacts:
    from tuninglab.advise.server_facts import flavor_of, version_of
    v = {**variables, **{k: str(x) for k, x in changed.items()}}
    return ServerFacts(flavor_of(v["version"], v["version_comment"]), version_of(v["version"]),
                       v["version"], v, {"threads_running": "2", **(status or {})}, {})


def storage(**changed) -> dict:
    return {"path": "/var/lib/mysql", "mount_point": "/", "filesystem": "ext4",
            "mount_options": "rw,relatime", "source": "/dev/vda1", "device": "vda1",
            "disk": "vda", "scheduler": "mq-deadline", "read_ahead_kb": 128,
            "rotational": False, "logical_block_size": 512, "write_cache": "write back",
            "raid_level": None, "physical_disks": ["vda"], **changed}


def host(**changed) -> dict:
    return {"kernel": "6.1.0-40-amd64", "cpu_model": "AMD EPYC", "cores": 2,
            "memory_bytes": 24 * 2**30, "virtualization": "kvm", "smt": False,
            "swap_bytes": 2**30, "swappiness": "10", "datadir": storage(),
            "logdir": storage(), "absent": {}, **changed}
