"""Server option names that differ between MariaDB, Oracle MySQL and Percona Server.

Recipes use one spelling (MariaDB's, which is also MySQL 5.7's); map_settings() turns it into what
the server under test understands, so one recipe drives every server.
"""

from tuninglab import units
from tuninglab.errors import UserError

# Versions from which MySQL sizes the redo log with one capacity instead of files x file size.
MYSQL_REDO_CAPACITY = (8, 0, 30)

# Options that no longer exist somewhere, with what replaced them (shown in the error).
REMOVED = {
    "innodb_buffer_pool_instances": "MariaDB ignores it from 10.5.1 and removed it in 10.6.0 "
                                    "(MDEV-15058): one buffer pool, one page cleaner; MySQL "
                                    "8.0/8.4 and Percona Server still have it (--mysqld)",
    "innodb_log_files_in_group": "MariaDB 10.5+ and MySQL 8.0.30+ size the redo log as a whole",
    "innodb_thread_concurrency": "MariaDB 10.6+ removed it",
    "innodb_checksums": "replaced by innodb_checksum_algorithm",
    "query_cache_size": "MySQL 8.0 removed the query cache",
}


def is_mysql(flavor: str) -> bool:
    return flavor in ("mysql", "percona")


def map_settings(settings: dict, flavor: str, version: tuple) -> dict:
    """Recipe settings -> the names and values this server takes."""
    out = {}
    for name, value in settings.items():
        for mapped, mapped_value in _map_one(name, str(value), flavor, version):
            out[mapped] = mapped_value
    return out


def _map_one(name, value, flavor, version):
    redo_capacity = is_mysql(flavor) and version >= MYSQL_REDO_CAPACITY
    if name == "innodb_log_file_size" and redo_capacity:
        # MariaDB has one redo file, so its size is the whole capacity.
        return [("innodb_redo_log_capacity", value)]
    if name == "innodb_redo_log_capacity" and not redo_capacity:
        if flavor == "mariadb":
            return [("innodb_log_file_size", value)]
        # Older MySQL: the capacity is split over the (default two) log files.
        return [("innodb_log_file_size", str(_size(name, value) // 2)),
                ("innodb_log_files_in_group", "2")]
    return [(name, value)]


def _size(name, value):
    try:
        return units.size_bytes(value)
    except ValueError as exc:
        raise UserError(f"{name}: {exc}") from None


def engine_settings(flavor: str, version: tuple) -> dict:
    """Settings every throwaway server gets so servers compare like with like and stay private."""
    if not is_mysql(flavor):
        return {}
    # MySQL 8 enables the binary log and the X protocol (a TCP port) by default; MariaDB does not.
    settings = {"skip_log_bin": None}
    if version >= (8, 0, 0):
        settings["mysqlx"] = "OFF"
    return settings


def check_known(settings: dict, known: frozenset, label: str, where: str) -> None:
    """Fail before any run when an option does not exist in this server."""
    for name in settings:
        if name not in known:
            hint = f" ({REMOVED[name]})" if name in REMOVED else ""
            raise UserError(f"{where}: the server {label} has no option '{name}'{hint}")
