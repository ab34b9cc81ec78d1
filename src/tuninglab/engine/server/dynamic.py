"""Which swept settings the server can change at run time: asked of the running server,
and remembered per binary in the work directory, so that the next plan (and its dry run)
knows its design without starting a server."""

import json
import re
from pathlib import Path

import pymysql

from tuninglab import files
from tuninglab.recipes import plan as planner
from tuninglab.recipes.plan import swept_settings

# MySQL's error for SET GLOBAL on a variable it reads only at startup.
ER_READ_ONLY = 1238
# In the work directory: what each server binary answered.
ANSWERS = "dynamic-variables.json"


class NotSwitchable(Exception):
    """The server cannot change a swept setting at run time (the message says which)."""


def not_dynamic(server, names) -> list[str]:
    """The names the running server reads only at startup: MariaDB says so in
    information_schema.SYSTEM_VARIABLES; MySQL and Percona are asked by setting each to its
    own value, which a read-only variable refuses."""
    if server.binary.flavor == "mariadb":
        listed = ",".join(f"'{n.upper()}'" for n in names if re.fullmatch(r"\w+", n))
        rows = server.query("SELECT VARIABLE_NAME, READ_ONLY FROM "
                            f"information_schema.SYSTEM_VARIABLES WHERE VARIABLE_NAME IN ({listed})")
        read_only = {name.lower(): flag == "YES" for name, flag in rows}
        return [n for n in names if read_only.get(n.lower(), True)]
    out = []
    for name in names:
        try:
            server.query(f"SET GLOBAL {name} = @@GLOBAL.{name}")
        except pymysql.err.MySQLError as exc:
            if exc.args and exc.args[0] == ER_READ_ONLY:
                out.append(name)
            else:
                raise
    return out


def _answers(wd: Path) -> dict:
    """{binary: {variable: whether it can change at run time}} as the work directory keeps
    them; a missing or broken file (or entry) is no answer."""
    try:
        answers = json.loads((wd / ANSWERS).read_text())
    except (OSError, ValueError):
        return {}
    if not isinstance(answers, dict):
        return {}
    return {binary: {k: v for k, v in mine.items() if isinstance(v, bool)}
            for binary, mine in answers.items() if isinstance(mine, dict)}


def remembered(wd: Path, binary) -> dict:
    """{variable: whether it can change at run time} as this binary answered before."""
    return _answers(wd).get(_binary_key(binary), {})


def remember(wd: Path, binary, dynamic: dict) -> None:
    answers = _answers(wd)
    key = _binary_key(binary)
    answers[key] = {**answers.get(key, {}), **dynamic}
    files.atomic_write_json(wd / ANSWERS, answers)


def _binary_key(binary) -> str:
    return f"{binary.path} {binary.version_text}"


def settled(plan, wd: Path, binary):
    """The plan, or its restart plan where this binary said before that it cannot change a
    swept setting at run time (a recipe that insists on switchback is refused)."""
    if not plan.switchback:
        return plan
    answers = remembered(wd, binary)
    fixed = sorted(n for n in swept_names(plan, binary) if answers.get(n) is False)
    if not fixed:
        return plan
    if plan.experiment.measure.design == "switchback":
        raise planner.switchback_refusal(plan.experiment, startup_only(binary, fixed))
    return planner.build(plan.experiment, plan.seed, "restart")


def swept_names(plan, binary) -> list[str]:
    return sorted(server_name(binary, name) for name in swept_settings(plan))


def startup_only(binary, names) -> str:
    return f"{binary.label} reads {', '.join(names)} only at startup"


def server_name(binary, name: str) -> str:
    return next(iter(binary.map({name: "1"})))
