"""CI's check of the claims and historical files a pull request adds or changes
(.github/check-new-results.sh runs it in the base branch's worktree, the pull request's files
copied in): every source under data/historical/ read as the site reads it (historical.py:
source.toml against its schema, each listed CSV against its metadata, no file it does not
list), then the claims map (claims_map.check: each entry's keys of their types and values
(claims_keys.py), ids once, every source result claimed or explained, no headline with a
caveat). One line per problem, naming the file.

    python -m tuninglab.evidence.check_sources        exit status 1 on any problem
"""

import sys
from pathlib import Path

from tuninglab import files
from tuninglab.visible import visible
from tuninglab.evidence import claims_map, historical


def source_problems(source_dir: Path, base: Path) -> list[str]:
    """What keeps one data/historical/<source>/ from reading: its name, its source.toml, each
    table it lists, and any file it does not list (the site would never show it)."""
    shown = files.shown(source_dir)
    if source_dir.is_symlink() or not source_dir.is_dir():
        return [f"{shown}: not a directory; expected data/historical/<source>/ holding "
                "source.toml and its tables"]
    try:
        tables = [t["file"] for t in historical.historical_source(source_dir.name, base)
                  ["tables"]]
    except ValueError as exc:
        return [str(exc)]
    out = []
    for table in tables:
        try:
            historical.historical_table(source_dir.name, table, base)
        except (ValueError, OSError) as exc:
            out.append(str(exc))
    out += [f"{files.shown(p)}: not a table source.toml lists; expected source.toml and the "
            "CSV files of its [[tables]] only" for p in sorted(source_dir.iterdir())
            if p.name != "source.toml" and p.name not in tables]
    return out


def problems(base: Path = historical.HISTORICAL_DIR,
             claims_dir: Path = claims_map.CLAIMS_DIR) -> tuple[list[str], int, int]:
    """(every problem's line, the sources checked, the claims files checked)."""
    sources = sorted(Path(base).iterdir())
    out = [line for source_dir in sources for line in source_problems(source_dir, base)]
    out += claims_map.check(claims_dir, base)
    return out, len(sources), len(list(Path(claims_dir).glob("*.toml")))


def main() -> int:
    lines, sources, claims = problems()
    for line in lines:
        print(visible(line))  # a name or value in a file cannot forge a line of the CI log
    print(f"{sources} historical source(s) and {claims} claims file(s) checked, "
          f"{len(lines)} problem(s)")
    return 1 if lines else 0


if __name__ == "__main__":
    sys.exit(main())
