"""Server option names that differ between MariaDB, Oracle MySQL and Percona Server, as pure
tables: the engine (engine/server/option_names.py) maps a recipe's settings with them before a
run, and data.check (contrib/experiment.py) maps them again to check what a result records,
without a server at hand.

Recipes use one spelling (MariaDB's, which is also MySQL 5.7's); map_settings() turns it into
what the server under test understands, so one recipe drives every server.
"""

from tuninglab import units
from tuninglab.errors import UserError

# Versions from which MySQL sizes the redo log with one capacity instead of files x file size.
MYSQL_REDO_CAPACITY = (8, 0, 30)
MYSQL_FLAVORS = ("mysql", "percona")

# Options that no longer exist somewhere, with what replaced them (shown in the error).
REMOVED = {
    "innodb_buffer_pool_instances": "MariaDB ignores it from 10.5.1 and removed it in 10.6.0 "
                                    "(MDEV-15058): one buffer pool, one page cleaner; MySQL "
                                    "and Percona Server still have it (--server mysql-9.7)",
    "innodb_log_files_in_group": "MariaDB 10.5+ and MySQL 8.0.30+ size the redo log as a whole",
    "innodb_thread_concurrency": "MariaDB 10.6+ removed it; MySQL still has it (--server "
                                 "mysql-9.7)",
    "innodb_checksums": "replaced by innodb_checksum_algorithm",
    "query_cache_size": "MySQL 8.0 removed the query cache",
}
# Values of an option that only some servers take: (the flavours, the first version that takes
# it, which servers those are in words). A point that sets one is skipped, saying so, by a server
# that refuses it (preflight: NotOnThisServer), and so is a variant left with fewer than two
# points; data.check accepts a result that skipped a point only for such a value.
VALUES_OF = {
    "innodb_doublewrite": {
        "DETECT_ONLY": (MYSQL_FLAVORS, (8, 0, 30), "MySQL 8.0.30 and later (--server mysql-9.7)"),
        "DETECT_AND_RECOVER": (MYSQL_FLAVORS, (8, 0, 30),
                               "MySQL 8.0.30 and later (--server mysql-9.7)"),
        # MDEV-33545, merged into 11.0 in April 2024 (11.0.6)
        "fast": (("mariadb",), (11, 0, 6), "MariaDB 11.0 and later (--server mariadb-11.8)")},
}
# Where REMOVED's options are gone: (flavours, the first version without it). A run's preflight
# asks the server itself (its --verbose --help); a result file names only its flavour and
# version, so data.check reads this table instead. Only removals whose version REMOVED states.
GONE_FROM = {
    "innodb_buffer_pool_instances": (("mariadb",), (10, 6, 0)),
    "innodb_thread_concurrency": (("mariadb",), (10, 6, 0)),
    "query_cache_size": (MYSQL_FLAVORS, (8, 0, 0)),
}


def value_of_others(name: str, value: str) -> str | None:
    """Which servers take this value of the option, when only some do (VALUES_OF), in words;
    None for a value every server takes or none does."""
    found = VALUES_OF.get(name, {}).get(str(value))
    return found[2] if found else None


def refuses_value(name: str, value: str, flavor: str, version: tuple) -> bool:
    """Whether a server of this flavour and version lacks a value of the option that only some
    servers take (VALUES_OF); False for any other value."""
    found = VALUES_OF.get(name, {}).get(str(value))
    if not found:
        return False
    flavors, since, _ = found
    return flavor not in flavors or tuple(version) < since


def is_mysql(flavor: str) -> bool:
    return flavor in MYSQL_FLAVORS


def gone(name: str, flavor: str, version: tuple) -> tuple | None:
    """The version from which a server of this flavour has no option `name`, if this one is
    that or later; None when GONE_FROM knows of no removal there."""
    flavors, since = GONE_FROM.get(name, ((), ()))
    return since if flavor in flavors and tuple(version) >= since else None


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
