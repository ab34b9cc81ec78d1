"""What a recipe may set on the server: how it works, never where it reads or writes.

The engine starts the server as root with every file of it in the run's own directory (datadir,
socket, pid file, error log, redo log: model.RESERVED_OPTIONS, set by the engine alone). A recipe
that named a file or directory of its own could make that server write (a general, slow query or
binary log, a data file, a temporary file) or read (init_file's SQL, a key file) anywhere on the
host, as root: such options are refused by name, and values that hold a path are refused for
every other option. tables.parse_settings and tables.parse_sweep apply both, so a variant, a
swept value and the baseline are held to them too.

Names are those of MariaDB 10.11 and MySQL 8.4's option lists (`--verbose --help`); a name the
server does not know exactly (an abbreviation, which MariaDB's option parser accepts, or a
`loose_` prefix) is refused before any run by option_names.check_known.
"""

import re

from tuninglab.recipes.model import RESERVED_OPTIONS

# Any option whose name says it names a file or a directory...
_PATH_NAME = re.compile(r".*(?:_file|_filename|_dir|_dirs|_directory|_directories|_path|tmpdir)")
# ...but these, whose names end so and which name none: a sync policy, and two switches that
# write a core or a status file into the datadir.
NOT_PATHS = {"aria_sync_log_dir", "core_file", "innodb_status_file"}
# The options naming a file or a directory whose names do not say so.
PATH_OPTIONS = {
    "basedir", "datadir", "socket", "mysqlx_socket", "chroot", "language", "secure_file_priv",
    "log", "log_error", "log_slow_queries", "log_bin", "log_bin_index", "log_bin_basename",
    "log_basename", "relay_log", "relay_log_index", "relay_log_basename", "log_isam", "log_tc",
    "log_ddl_recovery", "innodb_directories", "keyring_file_data", "keyring_encrypted_file_data",
    "file_key_management_filekey",
}
# TLS files: ssl_ca, ssl_key, admin_ssl_cert, mysqlx_ssl_capath...
_SSL_FILE = re.compile(r"(?:\w+_)?ssl_(?:ca|capath|cert|crl|crlpath|key)")
# SQL the server runs itself, as root: it can write files (SELECT ... INTO OUTFILE).
SQL_OPTIONS = {"init_file", "init_connect", "init_slave", "init_replica"}
# Galera's options: wsrep_notify_cmd and wsrep_sst_method run programs, wsrep_provider loads a
# library by its path; the lab's server is one private server.
_CLUSTER = "wsrep_"
# The options whose values join names with '/' (db_name/table_name, a time zone's Area/City)
# and the form those values must take: names, never a path ('.', '..', a leading '/').
SLASHED_OPTIONS = {"innodb_ft_server_stopword_table", "innodb_ft_user_stopword_table",
                   "innodb_ft_aux_table", "default_time_zone", "time_zone"}
_SLASHED = re.compile(r"[A-Za-z0-9_$+-]+(?:/[A-Za-z0-9_$+-]+)+")
_LOOSE = "loose_"  # the option parser's prefix for "ignore if unknown": the same option


def name_problem(name: str) -> str | None:
    """Why a recipe may not set the option (spelt by reader.option_name), or None. The text
    follows the option's name or key in the error."""
    base = name
    while base.startswith(_LOOSE):
        base = base[len(_LOOSE):]
    if base != name and base in RESERVED_OPTIONS:
        return f"is the engine's own {base}, which recipes cannot set"
    if base in SQL_OPTIONS:
        return ("is SQL the server runs itself, as root (it can write files): a recipe sets "
                "how the server works, not statements; expected an option that runs no SQL")
    if base.startswith(_CLUSTER):
        return ("is a Galera cluster option (some run programs or load libraries): the lab's "
                "server is one private server; expected an option of a single server")
    if names_path(base):
        return ("names a file or directory of the server: the engine keeps every file of a "
                "run's server (run as root) in the run's own directory; expected an option "
                "that names no path")
    return None


def names_path(name: str) -> bool:
    """Whether the option names a file or a directory (the engine's own ones included)."""
    if name in NOT_PATHS:
        return False
    return name in PATH_OPTIONS or bool(_PATH_NAME.fullmatch(name) or _SSL_FILE.fullmatch(name))


def value_problem(name: str, value: str) -> str | None:
    """Why a recipe may not give the option this value, or None. A '/' is refused in every
    value: an option the lists above miss (a plugin's log, debug's trace file "d:o,/x") must
    not name a path either, and no value that tunes InnoDB or the OS holds one; only the
    options of SLASHED_OPTIONS join names with it."""
    if "/" not in value:
        return None
    if name in SLASHED_OPTIONS:
        if _SLASHED.fullmatch(value):
            return None
        return (f"{value!r}: expected names joined by '/' (db_name/table_name, or a time "
                "zone's Area/City), not a path")
    return (f"{value!r} holds '/': a path would take the server outside its run's directory; "
            "expected a value without '/'")
