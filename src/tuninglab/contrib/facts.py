"""data.check's rules on facts a result states twice, which must agree: the server's version
(server/version, the --version line it was read from, the root it ran in and that root's server
package) and the host's CPUs (host/cores, the CPUs its runs' servers were held to). A file whose
server/version said 8.0.36 where its --version line and its root said 9.7.4 passed, and opened a
"MySQL 8.0" evidence set of a server nobody ran (sets.py groups by flavour and major version)."""

import re

from tuninglab.contrib.experiment import SERVER_LABELS
from tuninglab.contrib.jsonpaths import at, runs
from tuninglab.recipes.server_version import parse_version
from tuninglab.results.result import Result

# The upstream version in a Debian package's: "1:11.8.9+ds-0+deb13u1" is 11.8.9.
PACKAGE_VERSION = re.compile(r"(?:\d+:)?(\d+\.\d+\.\d+)")


def check_server(doc: dict) -> list[str]:
    """server/version and server/flavor as the --version line, the root and its server
    package give them."""
    server = doc["server"]
    flavor, version, text = server["flavor"], server["version"], server["version_text"]
    try:
        said_flavor, numbers = parse_version(text)
    except ValueError:
        return [at("server/version_text", f"{text[:80]!r} is no --version line; expected what "
                                          "the server's --version printed (\"... Ver "
                                          f"{version}...\")")]
    said = ".".join(map(str, numbers))
    problems = []
    if said != version:
        problems.append(at("server/version", f"{version}, where server/version_text says "
                                             f"{said}; expected the version the "
                                             "server's --version line gives"))
    if said_flavor != flavor:
        problems.append(at("server/flavor", f"{flavor!r}, where server/version_text is "
                                            f"{SERVER_LABELS[said_flavor]}'s; expected "
                                            f"{said_flavor!r}"))
    return problems + root_problems(server.get("root"), flavor, version)


def root_problems(root, flavor: str, version: str) -> list[str]:
    """A root (engine/server/roots.py) is named <flavour>-<major>.<minor> and installs the
    server's version as <flavour>-server-core."""
    if not isinstance(root, dict):
        return []
    problems = []
    expected = f"{flavor}-{'.'.join(version.split('.')[:2])}"
    if root.get("server") != expected:
        problems.append(at("server/version", f"{flavor} {version}, where server/root/server "
                                             f"is {root.get('server')!r}; expected a version "
                                             "of the server that root holds (its name would "
                                             f"be {expected!r})"))
    package = f"{flavor}-server-core"
    installed = (root.get("packages") or {}).get(package)
    found = PACKAGE_VERSION.match(installed) if isinstance(installed, str) else None
    if installed is not None and (found is None or found.group(1) != version):
        problems.append(at("server/version", f"{version}, where server/root/packages/{package} "
                                             f"is {installed!r}; expected the version that "
                                             "package installs"))
    return problems


def check_cores(doc: dict) -> list[str]:
    """No run's server was held to more CPUs than the host has (values.BOUNDS holds host/cores
    to what a kernel can run)."""
    cores = Result(doc).host.get("cores")
    if not isinstance(cores, int) or isinstance(cores, bool):
        return []
    return [at((*path, "server_cpus"), f"{len(set(run['server_cpus']))} CPUs, where host/cores "
                                       f"is {cores}; expected at most host/cores")
            for path, run in runs(doc)
            if isinstance(run.get("server_cpus"), list)
            and len(set(run["server_cpus"])) > cores]
