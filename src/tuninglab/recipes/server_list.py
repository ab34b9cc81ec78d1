"""The servers the guide measures, as --server names them, in the order its pages show them: the
host's own Debian 12 MariaDB (no root), then today's servers, each built from Debian's archive
into a root of its own (engine/server/roots.py holds how). Here, below the engine and the site,
so that both name the same servers."""

HOST_SERVER = "mariadb-10.11"   # the host's own, Debian 12's: no root
ROOTS = ("mariadb-11.8", "mysql-9.7")
NAMES = (HOST_SERVER, *ROOTS)

# A capped server's own memory (engine/server/memory.py), beyond what Debian 12's MariaDB 10.11
# holds besides its buffer pool: a disk-bound shape's memory_limit is sized for that server, so
# another gets this much more, and the page cache keeps about the share of the limit the shape
# gives it. (base, per client thread of the workload), measured here with MySQL 9.7 at its
# defaults on the disk-bound shape (64M pool, oltp_read_write; 4 and 16 threads): it holds about
# 535 MiB at 4 threads and 605 at 16 (performance_schema most of it), where MariaDB holds about
# 135; under 192M + 256M the kernel kills it at start, under 192M + 320M mid-run. With 352M
# and 8M a thread more, its page cache kept 40-70 MiB in a 30-s run, but in longer ones it was
# squeezed (scans reading each page about twice from the device, a 20-minute switchback falling
# to 0 tps after 16 minutes): its own memory keeps growing. 512M leaves the page cache more
# than MariaDB's share, still far from the shape's 400 MB of data; the regime checks say
# whether reads reached the device. MariaDB 11.8 holds about what 10.11 does.
MIB = 2**20
EXTRA_MEMORY = {"mysql": (512 * MIB, 8 * MIB)}


def most_threads(experiment) -> int:
    """The most client threads any point of the experiment runs (a sweep may set them)."""
    return max(experiment.workload_for(v).threads for v in experiment.sweep.values)


def extra_for(experiment, flavor: str) -> int:
    """Bytes a capped server of this flavour gets beyond the experiment's memory_limit: none
    in the lab VM, whose own RAM is the limit (and which runs its image's MariaDB)."""
    if experiment.recipe.in_lab_vm:
        return 0
    return extra_memory(flavor, most_threads(experiment))


def extra_memory(flavor: str, threads: int) -> int:
    """Bytes a capped server of this flavour gets beyond the recipe's memory_limit, for a
    workload of this many client threads."""
    base, per_thread = EXTRA_MEMORY.get(flavor, (0, 0))
    return base + per_thread * threads
