"""A server.defaults sweep: each point a named set of settings, the defaults a server had before
a release changed them ([defaults."<name>"] tables), against the server's own defaults (the
point "today", which sets nothing), and `read_back`: more variables every run reads back, where
today's defaults stand on the questions the sources measured (the topic page's table of them;
tests/recipes/test_defaults_sets.py keeps it to every option a claim's recipe sweeps). A set
belongs to one flavour and to the versions from the
release that changed them ("since"): any other server skips its point, saying whose defaults
they are (engine/run/preflight.py; data.check accepts that skip and no other).

model.py's Sweep holds the sets without importing this module (the lab VM's guest imports the
model, never a server.defaults sweep, which runs on this host).
"""

from dataclasses import dataclass

from tuninglab import units
from tuninglab.recipes.reader import Reader, option_name
from tuninglab.recipes.tables import parse_settings

TODAY = "today"   # the server's own defaults: no setting at all
READ_BACK = "read_back"   # [defaults] read_back: a list of variables, not a set
FLAVORS = {"mysql": "MySQL", "mariadb": "MariaDB"}
SOURCE_MAX = 300  # a citation, not an essay


@dataclass(frozen=True)
class DefaultsSet:
    name: str
    flavor: str        # one of FLAVORS: the server these were the defaults of
    since: tuple       # the release that changed them: (8, 4, 0)
    settings: tuple    # sorted (option, value) pairs, in the spelling the flavour takes
    source: str        # where the previous defaults are stated (a manual's section)

    @property
    def server(self) -> str:
        """The servers that run this point, in words: "MySQL 8.4.0 and later"."""
        return f"{FLAVORS[self.flavor]} {'.'.join(map(str, self.since))} and later"

    def refuses(self, flavor: str, version: tuple) -> str | None:
        """Why a server of this flavour and version does not run this point, or None."""
        if flavor == self.flavor and tuple(version) >= self.since:
            return None
        return (f"{self.name} sets the defaults {self.server} changed: a point for "
                f"{self.server} only")


def parse(t: Reader) -> tuple:
    """Every [defaults."<name>"] table of the recipe, sorted by name."""
    out = []
    for name in sorted(set(t.data) - {READ_BACK}):
        table = t.table(name)
        table.only("flavor", "since", "source", "settings")
        flavor = table.get("flavor", str)
        if flavor not in FLAVORS:
            table.fail("flavor", f"expected one of {', '.join(FLAVORS)}, got {flavor!r}")
        since = _version(table)
        source = table.get("source", str)
        if not 0 < len(source) <= SOURCE_MAX:
            table.fail("source", f"expected the manual's section that states these defaults, "
                                 f"at most {SOURCE_MAX} characters")
        if name == TODAY:
            t.fail(name, f"'{TODAY}' is the server's own defaults: it sets nothing")
        out.append(DefaultsSet(name, flavor, since, _settings(table), source))
    return tuple(out)


def read_back(t: Reader) -> tuple:
    """[defaults] read_back: the variables every run reads back besides the sets' own, sorted
    (option names, in either spelling)."""
    names = t.get(READ_BACK, list, [])
    out = set()
    for name in names:
        try:
            out.add(option_name(name) if isinstance(name, str) else option_name(""))
        except ValueError as exc:
            t.fail(READ_BACK, f"{name!r}: {exc}")
    return tuple(sorted(out))


def _version(table: Reader) -> tuple:
    text = table.get("since", str)
    parts = text.split(".")
    if not 2 <= len(parts) <= 3 or None in map(units.whole_number, parts):
        table.fail("since", f'expected the release that changed the defaults, such as "8.4.0", '
                            f"got {text!r}")
    return tuple(int(p) for p in parts) + (0,) * (3 - len(parts))


def _settings(table: Reader) -> tuple:
    """The set's options, checked as [server.settings] is (names, reserved options, values)."""
    if not table.table("settings").data:
        table.fail("settings", "expected at least one setting")
    return parse_settings(Reader(table.path, {"settings": table.data["settings"]}, table.where))


def check(sweep, sets: tuple, sweep_table: Reader, top: Reader) -> None:
    """A server.defaults sweep: "today" among its values and every other value a set's name;
    [defaults] tables only beside such a sweep."""
    names = {s.name for s in sets}
    if sweep.setting != "server.defaults":
        if sets or sweep.read_back:
            top.fail("defaults", "sets of defaults are the points of a server.defaults sweep "
                                 '(sweep.setting = "server.defaults")')
        return
    if TODAY not in sweep.values:
        sweep_table.fail("values", f"expected '{TODAY}' (the server's own defaults) among them")
    for value in sweep.values:
        if value != TODAY and value not in names:
            sweep_table.fail("values", f"{value!r}: expected '{TODAY}' or the name of a "
                                       f"[defaults.\"<name>\"] table ({', '.join(sorted(names))})")


def observed(sweep) -> tuple:
    """The options any set of the sweep changes and those it reads back besides: read back at
    every point (today's values beside the previous ones), sorted."""
    return tuple(sorted({name for s in sweep.sets for name, _ in s.settings} |
                        set(sweep.read_back)))


def refusal(sweep, value: str, flavor: str, version: tuple) -> str | None:
    """Why a server of this flavour and version does not run the sweep's point at value (a set
    of another server's earlier defaults), or None."""
    found = next((s for s in sweep.sets if s.name == value), None)
    return found.refuses(flavor, version) if found else None


def about(sweep) -> list:
    """The sets a server.defaults sweep's points run (a server that runs none of them has
    nothing to compare its own defaults with)."""
    return [s for s in sweep.sets if s.name in sweep.values]
