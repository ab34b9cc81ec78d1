"""The servers the guide measures, as its pages show them: side by side, in one order, the host's
own Debian 12 MariaDB first (the reference the most evidence is on), then today's servers from
their Debian roots (recipes/server_list.py). A server a contributor measured with --mysqld
comes after them, by name.

Evidence sets name a server by flavour and major version ("mariadb 10.11", host_class.server_of);
a reader sees "MariaDB 10.11"; a command names it as --server takes it ("mariadb-10.11")."""

from tuninglab.evidence.host_class import server_name
from tuninglab.recipes.load import command as load_command, load
from tuninglab.recipes.server_list import HOST_SERVER, NAMES
from tuninglab.recipes.server_names import REMOVED, gone

FLAVORS = {"mariadb": "MariaDB", "mysql": "MySQL"}


def _evidence_name(option: str) -> str:
    """"mariadb-11.8" (what --server takes) as evidence sets name it: "mariadb 11.8"."""
    flavor, version = option.split("-", 1)
    return server_name(flavor, version)


# Evidence name -> what --server takes, in the pages' order.
OPTIONS = {_evidence_name(option): option for option in NAMES}
SHOWN = tuple(OPTIONS)
REFERENCE = _evidence_name(HOST_SERVER)


def rank(server: str) -> tuple[int, str]:
    """A server's place on the pages: the guide's servers in SHOWN's order, then any other by
    name."""
    return (SHOWN.index(server) if server in SHOWN else len(SHOWN), server)


def ordered(servers) -> list[str]:
    return sorted(set(servers), key=rank)


def label(server: str) -> str:
    """"mariadb 10.11" as a reader sees it: "MariaDB 10.11"."""
    flavor, _, version = server.partition(" ")
    return f"{FLAVORS.get(flavor, flavor)} {version}".strip()


def flag(server: str) -> str:
    """The command-line flag that runs a recipe on this server: "" for the host's own, --server
    for a root's, --mysqld for one the guide does not build."""
    option = OPTIONS.get(server)
    if option is None:
        return "--mysqld /path/to/its/mysqld"
    return "" if option == HOST_SERVER else f"--server {option}"


def command(recipe_command: str, server: str) -> str:
    """A recipe's command (recipes.load.command) run on this server."""
    return " ".join(x for x in (recipe_command, flag(server)) if x)


def how_to_measure(recipe: str, variant: str, server: str) -> str:
    """What a reader does to measure a recipe's variant on this server: its command, or why the
    guide cannot (a lab VM recipe runs the guest's own MariaDB, Debian 12's; the server has no
    option the recipe sets)."""
    return cannot_measure(recipe, variant, server) or \
        f"run {command(load_command(recipe, variant), server)} to measure it"


def cannot_measure(recipe: str, variant: str, server: str) -> str | None:
    """Why the guide cannot measure a recipe's variant on this server, or None if it can."""
    r = load(recipe, variant=variant)
    if server != REFERENCE and r.in_lab_vm:
        return (f"not measured on {label(server)}: the lab VM runs its guest's own "
                f"{label(REFERENCE)}")
    missing = gone_option(r, server)
    if missing:
        return f"not on {label(server)}: it has no {missing} ({REMOVED[missing]})"
    if server != REFERENCE and server in OPTIONS and _preloads(r):
        return (f"not measured on {label(server)}: it runs in its own Debian root, which has "
                f"glibc's malloc only (the other allocators are preloaded from the host)")
    return None


def _preloads(r) -> bool:
    """Whether a recipe's points preload an allocator other than glibc's, from the host's
    libraries (engine/run/preflight.check_allocators refuses that for a server in a root)."""
    experiment = r.experiment()
    return any(experiment.allocator_for(v) != "glibc" for v in r.sweep.values)


def gone_option(r, server: str) -> str | None:
    """An option the recipe sets (its sweep or its server settings) that this server no longer
    has (recipes/server_names.GONE_FROM), if any."""
    flavor, _, version = server.partition(" ")
    numbers = tuple(int(n) for n in version.split(".") if n.isdigit())
    names = [r.sweep.setting] + [name for name, _ in r.server_settings]
    return next((name for name in names if gone(name, flavor, numbers)), None)
