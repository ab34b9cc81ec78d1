"""data.check's rules against a result that claims more than its runs show: statistics stored
in it that its runs do not give, and, for the files a pull request adds, a result that is no
contribution or one that poses as a host of the project's own results or A/A calibration
records."""

import json
import math
import tomllib
from pathlib import Path

from tuninglab import files
from tuninglab.contrib.jsonpaths import at, is_number
from tuninglab.errors import UserError
from tuninglab.recipes import regime
from tuninglab.results import calibrations, document
from tuninglab.results.result import Result

# A recomputation on another machine or Python may differ in the last digits, never more.
REL_TOLERANCE = 1e-9
ABS_TOLERANCE = 1e-9  # values of 0 (a stalled point, a flat series)
MAX_SHOWN = 10        # differences listed one by one; a forged file can differ everywhere
MISSING = object()
HOST_PREFIX = 8       # the characters of a host id that file names and the site show


# --- statistics ---------------------------------------------------------------------------------

def check_statistics(doc: dict) -> list[str]:
    """Each point's stats and trends, and the methods, as document.point_stats computes them
    from the runs: the site recomputes them, the terminal and older copies read them."""
    r = Result(doc)
    ids = [p.id for p in r.points]
    if r.baseline not in ids or len(set(ids)) != len(ids):
        return []  # check_points names the problem; there is nothing to compare with
    try:
        computed = document.point_stats(doc)
    except (ValueError, KeyError, TypeError, ArithmeticError) as exc:  # 1e-300 and 1e8: overflow
        return [at("points", f"the statistics cannot be computed from the runs ({exc}); "
                             "expected runs whose summaries hold the primary metric as a real "
                             "run measures it")]
    found = []
    for i, (p, c) in enumerate(zip(r.points, computed)):
        for part in ("stats", "trends"):
            found += differences(p.raw.get(part, MISSING), c.get(part, MISSING),
                                 ("points", i, part))
    methods = doc.get("methods") or {}
    for key, value in document.methods(doc).items():
        found += differences(methods.get(key, MISSING), value, ("methods", key))
    return [difference_line(*d) for d in found[:MAX_SHOWN]] + more(len(found))


def differences(stored, computed, path: tuple) -> list[tuple]:
    """(path, stored, computed) wherever the two differ beyond the tolerance."""
    if isinstance(stored, dict) and isinstance(computed, dict):
        return [d for key in {**stored, **computed}
                for d in differences(stored.get(key, MISSING), computed.get(key, MISSING),
                                     (*path, key))]
    if is_number(stored) and is_number(computed):
        same = math.isclose(stored, computed, rel_tol=REL_TOLERANCE, abs_tol=ABS_TOLERANCE)
    else:
        same = stored is not MISSING and computed is not MISSING and stored == computed \
            and type(stored) is type(computed)
    return [] if same else [(path, stored, computed)]


def difference_line(path: tuple, stored, computed) -> str:
    return at(path, f"stored {shown(stored)}, recomputed from the runs {shown(computed)}; "
                    "expected the recomputed value (stored statistics must be what the runs "
                    "give; invoke data.submit recomputes them)")


def shown(value) -> str:
    if value is MISSING:
        return "nothing"
    if isinstance(value, dict):
        return f"an object of {len(value)} keys"
    if isinstance(value, list):
        return f"a list of {len(value)}"
    # Unicode as it is ("±3%"): check.one_line escapes the control and format characters.
    return json.dumps(value, ensure_ascii=False)


def more(count: int) -> list[str]:
    if count <= MAX_SHOWN:
        return []
    return [at("points", f"{count - MAX_SHOWN} more stored statistics differ from the "
                         "recomputed ones; expected none")]


def check_regime(doc: dict) -> list[str]:
    """The regime checks a result carries are those its recipe's text declares for it: a
    condition dropped or loosened in the file would turn "regime not reached" into a verdict."""
    try:
        wanted = regime.declared(doc["recipe"]["text"], Result(doc).variant)
    except (UserError, tomllib.TOMLDecodeError, KeyError, TypeError, AttributeError):
        return []  # the recipe's own checks name a text that does not parse
    if (doc.get("regime") or []) == wanted:
        return []
    return [at("regime", f"holds {len(doc.get('regime') or [])} condition(s) that differ from "
                         f"the {len(wanted)} its recipe's text declares; expected those of the "
                         "recipe (the regime decides the verdicts)")]


# --- a pull request's results -------------------------------------------------------------------

def project_hosts(data_dir: Path, leave_out=()) -> dict[str, Path]:
    """The host ids of the project's own files in data_dir, each with a file of it: its results
    (those without a contribution block) and its A/A calibration records (a machine known only
    from one is the project's too), but the files in leave_out (the ones being checked). A
    result is named before a record where both have the host. Read as every reader of data/
    reads it (files.listing): a link or a FIFO is no file of the project's."""
    skip = {Path(p).resolve() for p in leave_out}
    hosts = {}
    if not Path(data_dir).is_dir():
        return hosts
    found = [path for directory in files.directories(data_dir)[0]
             if directory.name != "historical"
             for path in files.listing(directory, ".json")[0] if path.resolve() not in skip]
    for path in sorted(found, key=lambda p: (p.parent.name == calibrations.DIR, p)):
        try:
            doc = json.loads(files.read_regular(path, files.MAX_DATA_BYTES))
            if isinstance(doc, dict) and "contribution" not in doc:
                hosts.setdefault(str(Result(doc).host_id), path)
        except (OSError, ValueError, KeyError, TypeError):
            continue  # a broken file is checked on its own; it names no host
    return hosts


def check_contribution(doc: dict, hosts: dict[str, Path]) -> list[str]:
    """A pull request adds contributions (data.submit's block), each from a host of its own:
    one that took a project host's id would be drawn as the project's result."""
    if "contribution" not in doc:
        return [at("contribution", "missing: a pull request adds contributed results only; "
                                   "expected a result prepared by invoke data.submit")]
    if "noise" in doc:
        return [at("noise", "a contribution carries no noise block: noise figures come only from "
                            "the project's own runs (invoke data.submit leaves it out)")]
    host = Result(doc).host_id
    for project_host, path in hosts.items():
        if host[:HOST_PREFIX] == project_host[:HOST_PREFIX]:
            what = ("A/A calibration record" if path.parent.name == calibrations.DIR
                    else "result")
            return [at("host/id", f"{host} is (or begins as) the host of the project's own "
                                  f"{what} {path.parent.name}/{path.name}; expected the id "
                                  "your own run recorded (a contribution never stands for "
                                  "the project's hosts)")]
    return []
