"""The servers the guide measures, as --server names them, in the order its pages show them: the
host's own Debian 12 MariaDB (no root), then today's servers, each built from Debian's archive
into a root of its own (engine/server/roots.py holds how). Here, below the engine and the site,
so that both name the same servers."""

HOST_SERVER = "mariadb-10.11"   # the host's own, Debian 12's: no root
ROOTS = ("mariadb-11.8", "mysql-9.7")
NAMES = (HOST_SERVER, *ROOTS)
