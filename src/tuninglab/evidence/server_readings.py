"""Each topic's current value on the reader's server and host, and whether it is what the
topic page's advice says (`follows`: True, False, or None where the advice names no value, as
"measure your own load" does). A reader is a function of the server's facts
(ServerFacts) and the host's (advise/host_facts.read) for one topic page, by its slug;
what it cannot read it says, never guesses.

Here in the site (below the advise command), so that the "Check your server" page computes its
example reports from captured facts through the build, with today's evidence."""

import re
from dataclasses import dataclass, field

from tuninglab import units
from tuninglab.errors import UserError
from tuninglab.recipes.server_names import MYSQL_REDO_CAPACITY, gone, is_mysql
from tuninglab.visible import visible

ON = ("ON", "1", "YES", "TRUE")
# Filesystems whose writes cross a network: O_DIRECT there is the flush method to measure.
NETWORK_FILESYSTEMS = ("nfs", "cifs", "smb", "ceph", "glusterfs", "fuse.", "9p", "lustre",
                       "gpfs", "ocfs2", "gfs2")
# A numeric variable or status value as a server prints it: digits, perhaps a fraction. Bounded,
# so that float() never sees 'nan', 'inf', '1e999' or '1_0', which it would take.
NUMBER = re.compile(r"[0-9]{1,20}(\.[0-9]{1,20})?")
SHOWN = 40  # characters of a value that is not a number shown in its row


@dataclass(frozen=True)
class ServerFacts:
    """What a server said of itself (advise/server_facts.read), or a capture of it."""
    flavor: str                 # "mariadb", "mysql" or "percona"
    version: tuple              # (11, 8, 9)
    version_text: str           # what VERSION() says
    variables: dict             # lower-case name -> value, as SHOW GLOBAL VARIABLES gives it
    status: dict                # lower-case name -> value, as SHOW GLOBAL STATUS gives it
    absent: dict = field(default_factory=dict)  # what could not be read -> why

    def var(self, name: str) -> str | None:
        return self.variables.get(name.lower())

    def stat(self, name: str) -> str | None:
        return self.status.get(name.lower())

    def as_dict(self) -> dict:
        return {"flavor": self.flavor, "version": ".".join(map(str, self.version)),
                "version_text": self.version_text, "variables": self.variables,
                "status": self.status, "absent": self.absent}

    @classmethod
    def from_dict(cls, given: dict, where: str = "") -> "ServerFacts":
        """Facts as as_dict wrote them (`invoke advise --json`'s "server"); UserError naming
        where and the key that is missing."""
        for key in ("flavor", "version_text", "variables", "status"):
            if key not in given:
                raise UserError(f"{where}: server.{key}: missing (expected what `invoke "
                                f"advise --json` writes)")
        text = given["version_text"]
        return cls(given["flavor"], version_of(text), text, given["variables"],
                   given["status"], given.get("absent", {}))


def flavor_of(version_text: str, comment: str) -> str:
    """"mariadb", "percona" or "mysql" from VERSION() and @@version_comment."""
    if "mariadb" in version_text.lower():
        return "mariadb"
    return "percona" if "percona" in comment.lower() else "mysql"


def version_of(version_text: str) -> tuple:
    found = re.match(r"(\d+)\.(\d+)\.(\d+)", version_text)
    if not found:
        raise UserError(f"the server's version {version_text!r} is not major.minor.patch")
    return tuple(int(n) for n in found.groups())


@dataclass(frozen=True)
class Reading:
    value: str                 # the current value in words
    follows: bool | None       # whether it is what the advice says; None: it names no value
    note: str = ""             # what the advice says of this value, or why nothing was read
    # A known trap: a value whose harm the guide shows from the server's or kernel's own
    # mechanism (its manual), flagged whatever today's measurements can tell on this hardware.
    trap: bool = False


def _on(value) -> bool:
    return str(value).upper() in ON


def _size(value) -> str:
    try:
        return units.human_size(int(value))
    except (TypeError, ValueError):
        return str(value)


def _number(value) -> float | None:
    """A server's value as a number, or None where it is text: a server that is not what it
    seems (or a fork that prints a unit) sends what float() would refuse or misread."""
    text = str(value).strip()
    return float(text) if NUMBER.fullmatch(text) else None


def _not_a_number(name: str, value) -> str:
    """The words for a value that should be a number and is not: its name and its text, made
    safe to print and cut short (it is the server's)."""
    text = str(value)
    shown = visible(text[:SHOWN]) + ("..." if len(text) > SHOWN else "")
    return f"{name} = '{shown}' is not a number"


def _variable(s, name: str) -> str:
    value = s.var(name)
    return f"{name} = {value}" if value is not None else f"{name}: not on this server"


def _storage(h: dict, key: str = "datadir") -> dict | None:
    return h.get(key)


def _no_storage(h: dict, key: str = "datadir") -> Reading:
    return Reading(f"not read: {h['absent'].get(key, 'the datadir was not read')}", None)


# --- server options ---------------------------------------------------------------------------

def async_io(s, h) -> Reading:
    value = s.var("innodb_use_native_aio")
    if value is None:
        return Reading("innodb_use_native_aio: not on this server", None)
    if _on(value):
        return Reading(f"innodb_use_native_aio = {value}", True)
    return Reading(f"innodb_use_native_aio = {value}", False,
                   "the advice keeps it ON where the kernel and the filesystem take it")


def binaries(s, h) -> Reading:
    malloc = s.var("version_malloc_library")
    text = s.version_text + (f", malloc: {malloc}" if malloc else "")
    return Reading(text, None)


def buffer_pool_instances(s, h) -> Reading:
    if gone("innodb_buffer_pool_instances", s.flavor, s.version):
        return Reading("one buffer pool (this server has no innodb_buffer_pool_instances)", None)
    pool = s.var("innodb_buffer_pool_size")
    return Reading(f"{_variable(s, 'innodb_buffer_pool_instances')}, innodb_buffer_pool_size = "
                   f"{_size(pool)}", None, "measure before raising it")


def commit_batching(s, h) -> Reading:
    flush = s.var("innodb_flush_log_at_trx_commit")
    waits = flush == "1"
    return Reading(f"innodb_flush_log_at_trx_commit = {flush}", None,
                   "each COMMIT waits for a redo log flush: grouping statements into fewer "
                   "transactions saves flushes" if waits else
                   "COMMITs do not wait for the disk: measure before grouping statements")


def defaults(s, h) -> Reading:
    return Reading(s.version_text, None)


def direct_io(s, h) -> Reading:
    method = s.var("innodb_flush_method")
    buffering = [f"{n} = {s.var(n)}" for n in ("innodb_data_file_buffering",
                                               "innodb_log_file_buffering")
                 if s.var(n) is not None]
    parts = ([f"innodb_flush_method = {method}"] if method is not None else []) + buffering
    d = _storage(h)
    fs = (d or {}).get("filesystem") or ""
    if method and "O_DIRECT" in str(method).upper() and fs.startswith(NETWORK_FILESYSTEMS):
        return Reading(", ".join(parts) + f", datadir on {fs}", False,
                       "on network storage fsync (innodb_flush_method = fsync) can be faster "
                       "than O_DIRECT, as the MySQL manual warns: measure both", trap=True)
    return Reading(", ".join(parts) or "innodb_flush_method: not on this server", None)


def doublewrite(s, h) -> Reading:
    value = s.var("innodb_doublewrite")
    if value is None:
        return Reading("innodb_doublewrite: not on this server", None)
    off = str(value).upper() in ("OFF", "0", "DETECT_ONLY")
    return Reading(f"innodb_doublewrite = {value}", not off,
                   "torn pages are not repaired: safe only where the storage writes 16K pages "
                   "atomically" if off else "")


def flush_log(s, h) -> Reading:
    value = s.var("innodb_flush_log_at_trx_commit")
    if value == "1":
        return Reading("innodb_flush_log_at_trx_commit = 1", True)
    return Reading(f"innodb_flush_log_at_trx_commit = {value}", False,
                   "a crash can lose up to a second of commits")


def io_capacity(s, h) -> Reading:
    value = f"innodb_io_capacity = {s.var('innodb_io_capacity')}"
    lwm = s.var("innodb_max_dirty_pages_pct_lwm")
    if s.flavor == "mariadb" and s.version >= (10, 5, 0) and lwm is not None:
        if _number(lwm) is None:
            return Reading(f"{value}, {_not_a_number('innodb_max_dirty_pages_pct_lwm', lwm)}",
                           None, "advise cannot tell whether the page cleaner flushes ahead")
        value += f", innodb_max_dirty_pages_pct_lwm = {lwm}"
        if _number(lwm) == 0:
            return Reading(value, False, "with the low-water mark at 0 the page cleaner may "
                           "not flush ahead whatever innodb_io_capacity says: set "
                           "innodb_max_dirty_pages_pct_lwm (10, say) to flush in the "
                           "background", trap=True)
        return Reading(value, True)
    return Reading(value, None, "set it to what the storage sustains in the background")


def purge(s, h) -> Reading:
    length = s.stat("innodb_history_list_length")
    value = _variable(s, "innodb_purge_threads") + (
        f", history list length now {length}" if length is not None else
        f", history list length not read ({s.absent.get('innodb_history_list_length', '?')})")
    return Reading(value, None, "watch the history list over time, not once")


# The redo log size the redo page's evidence compares with the smallest (its rests_on point):
# a log smaller than it is one the evidence says fills and forces page writes.
REDO_MEASURED = "1G"


def redo_size(s, h) -> Reading:
    if is_mysql(s.flavor) and s.version >= MYSQL_REDO_CAPACITY:
        name = "innodb_redo_log_capacity"
    else:
        name = "innodb_log_file_size"
    size = s.var(name)
    value = f"{name} = {_size(size)}"
    share, words = _checkpoint_share(s)
    value += words
    if share is not None and share >= 0.75:
        return Reading(value, False, "the log is nearly full: checkpoints are driven by the "
                       "log's size, not by time")
    try:
        small = int(size) < units.size_bytes(REDO_MEASURED)
    except (TypeError, ValueError):
        return Reading(value, None)
    return Reading(value, not small, f"smaller than the {REDO_MEASURED} the evidence measured: "
                   "under a write load it fills and forces page writes" if small else "")


def _checkpoint_share(s) -> tuple[float | None, str]:
    """MariaDB's checkpoint age as a share of its maximum, and the words for the row; (None,
    "") where the server has neither, and the value that is not a number where one is not."""
    age, most = s.stat("innodb_checkpoint_age"), s.stat("innodb_checkpoint_max_age")
    if age is None or not most:
        return None, ""
    for name, text in (("Innodb_checkpoint_age", age), ("Innodb_checkpoint_max_age", most)):
        if _number(text) is None:
            return None, f", checkpoint age not read ({_not_a_number(name, text)})"
    if _number(most) == 0:
        return None, ""
    share = _number(age) / _number(most)
    return share, f", checkpoint age now {share:.0%} of its maximum"


def threads(s, h) -> Reading:
    parts = [f"max_connections = {s.var('max_connections')}",
             f"threads running now {s.stat('threads_running')}", f"{h['cores']} CPUs"]
    if s.var("innodb_thread_concurrency") is not None:
        parts.insert(1, f"innodb_thread_concurrency = {s.var('innodb_thread_concurrency')}")
    return Reading(", ".join(parts), None, "size the connection pool to the cores and the "
                   "disk, not to the users")


# --- the host ---------------------------------------------------------------------------------

def filesystems(s, h) -> Reading:
    d = _storage(h)
    return Reading(f"{d['filesystem']} on {d['source']}", None) if d else _no_storage(h)


def mount_options(s, h) -> Reading:
    d = _storage(h)
    if not d:
        return _no_storage(h)
    options = d["mount_options"].split(",")
    unsafe = [o for o in options if o in ("nobarrier", "barrier=0")]
    return Reading(f"{d['filesystem']}: {d['mount_options']}", not unsafe,
                   f"{unsafe[0]} is safe only behind a battery-backed write cache" if unsafe
                   else "")


def io_schedulers(s, h) -> Reading:
    d = _storage(h)
    if not d:
        return _no_storage(h)
    return Reading(f"{d.get('disk') or '?'}: {d.get('scheduler') or 'not read'}", None)


def read_ahead(s, h) -> Reading:
    d = _storage(h)
    if not d:
        return _no_storage(h)
    method = s.var("innodb_flush_method")
    how = f", innodb_flush_method = {method}" if method else ""
    return Reading(f"{d.get('disk') or '?'}: read_ahead_kb = {d.get('read_ahead_kb')}{how}",
                   None)


def raid(s, h) -> Reading:
    d = _storage(h)
    if not d:
        return _no_storage(h)
    level = d.get("raid_level")
    if not level:
        return Reading(f"{d.get('disk') or '?'}: not a software RAID (md) device", None)
    parity = level in ("raid5", "raid6")
    return Reading(f"{d['disk']}: {level}", not parity,
                   "RAID10 takes writes better than parity RAID" if parity else "")


def write_cache(s, h) -> Reading:
    d = _storage(h)
    if not d:
        return _no_storage(h)
    return Reading(f"{d.get('disk') or '?'}: {d.get('write_cache') or 'not read'}", None,
                   "keep a write cache on only where its flushes reach stable storage")


def zfs_recordsize(s, h) -> Reading:
    d = _storage(h)
    if not d:
        return _no_storage(h)
    if d["filesystem"] != "zfs":
        return Reading(f"not on ZFS ({d['filesystem']})", None)
    size = d.get("zfs_recordsize") or "not read"
    return Reading(f"{d['source']}: recordsize = {size}", size.upper() == "16K",
                   "" if size.upper() == "16K" else "the advice matches InnoDB's 16K page")


def logs_separate(s, h) -> Reading:
    d, log = _storage(h), _storage(h, "logdir")
    if not d or not log:
        return _no_storage(h, "logdir" if d else "datadir")
    shared = set(d.get("physical_disks") or [d.get("disk")]) & \
        set(log.get("physical_disks") or [log.get("disk")])
    where = "the same disk as the data" if shared else "a disk of its own"
    return Reading(f"redo log in {log['path']}, on {where}", None)


def kernels(s, h) -> Reading:
    release = h["kernel"]
    special = "-rt" in release
    return Reading(release, not special, "a real-time kernel: worth it only where a test of "
                   "your own load shows it" if special else "")


def hyperthreading(s, h) -> Reading:
    return Reading(f"{h['cores']} CPUs, SMT {'on' if h['smt'] else 'off or absent'}", None,
                   "count the server's capacity in cores, not in the CPUs the OS lists")


def swap(s, h) -> Reading:
    size, swappiness = h.get("swap_bytes"), h.get("swappiness")
    value = f"swap {_size(size or 0)}, vm.swappiness = {swappiness}"
    if not size:   # vm.swappiness then changes nothing: there is nothing to swap to
        return Reading(value, False, "no swap: a memory peak gets mysqld killed by the "
                       "kernel's OOM killer rather than slowed; add a little swap with a low "
                       "vm.swappiness", trap=True)
    if swappiness is not None and int(swappiness) > 10:
        return Reading(value, False, "a high vm.swappiness swaps the buffer pool out early")
    return Reading(value, True)


READERS = {
    "async-io": async_io, "binaries": binaries, "buffer-pool-instances": buffer_pool_instances,
    "commit-batching": commit_batching, "defaults": defaults, "direct-io": direct_io,
    "doublewrite": doublewrite, "filesystems": filesystems,
    "flush-log-at-trx-commit": flush_log, "hyperthreading": hyperthreading,
    "io-capacity": io_capacity, "io-schedulers": io_schedulers, "kernels": kernels,
    "logs-separate": logs_separate, "mount-options": mount_options,
    "purge-threads": purge, "raid": raid, "read-ahead": read_ahead, "redo-size": redo_size,
    "swap": swap, "threads": threads, "write-cache": write_cache,
    "zfs-recordsize": zfs_recordsize,
}


def reading(slug: str, s, h) -> Reading:
    """A topic's current value; KeyError for a topic no reader knows (a test checks every
    topic page has one)."""
    return READERS[slug](s, h)
