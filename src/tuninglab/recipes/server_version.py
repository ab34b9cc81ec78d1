"""A server's `mysqld --version` line read: its flavour and version. The engine reads it when a
run starts, and data.check reads a result's server/version_text with the same rule to hold its
server/version and flavor to it (contrib never imports the engine)."""

import re

# "/usr/sbin/mysqld  Ver 9.7.4-2 for Linux on x86_64 ((Debian))"
VERSION = re.compile(r"\bVer\s+(\d+)\.(\d+)\.(\d+)(\S*)")


def parse_version(text: str) -> tuple[str, tuple]:
    """`mysqld --version` output -> (flavor, (major, minor, patch)); ValueError if it has no
    version."""
    match = VERSION.search(text)
    if not match:
        raise ValueError(f"not a mysqld --version line: {text.strip()[:200]!r}")
    lowered = text.lower()
    flavor = "mariadb" if "mariadb" in lowered else (
        "percona" if "percona" in lowered else "mysql")
    return flavor, tuple(int(match.group(i)) for i in (1, 2, 3))
