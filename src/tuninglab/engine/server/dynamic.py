"""Which swept settings the server can change at run time: asked of the running server,
and remembered per binary in the work directory, so that the next plan (and its dry run)
knows its design without starting a server."""

import json
import re
from pathlib import Path

import pymysql

from tuninglab import files, units
from tuninglab.recipes import plan as planner
from tuninglab.recipes.plan import swept_settings

# MySQL's errors for SET GLOBAL on a variable it reads only at startup, and on a change it makes
# only at startup (innodb_doublewrite from ON to OFF: "Please shutdown and change value").
ER_READ_ONLY = 1238
ER_WRONG_ARGUMENTS = 1210
# In the work directory: what each server binary answered.
ANSWERS = "dynamic-variables.json"


class NotSwitchable(Exception):
    """The server cannot change a swept setting at run time (the message says which)."""


def not_dynamic(server, swept: dict) -> list[str]:
    """The names of swept ({name: values}) the running server will not switch between their
    values: MariaDB says which it reads only at startup in information_schema.SYSTEM_VARIABLES;
    MySQL and Percona are asked by setting each to every value in turn, then back, which a
    read-only variable or a change it makes only at startup refuses."""
    names = sorted(swept)
    if server.binary.flavor == "mariadb":
        listed = ",".join(f"'{n.upper()}'" for n in names if re.fullmatch(r"\w+", n))
        rows = server.query("SELECT VARIABLE_NAME, READ_ONLY FROM "
                            f"information_schema.SYSTEM_VARIABLES WHERE VARIABLE_NAME IN ({listed})")
        read_only = {name.lower(): flag == "YES" for name, flag in rows}
        return [n for n in names if read_only.get(n.lower(), True)]
    return [n for n in names if not _switches(server, n, list(swept[n]))]


def _switches(server, name: str, values: list) -> bool:
    if not re.fullmatch(r"\w+", name):
        raise ValueError(f"not a server variable name: {name!r}")
    [(before,)] = server.query(f"SELECT @@GLOBAL.{name}")
    try:
        for value in [*values, before]:
            server.query(set_statement(name, value))
    except pymysql.err.MySQLError as exc:
        if not exc.args or exc.args[0] not in (ER_READ_ONLY, ER_WRONG_ARGUMENTS):
            raise
        if exc.args[0] == ER_WRONG_ARGUMENTS:  # an earlier value may have taken: undo it
            server.query(set_statement(name, before))
        return False
    return True


def set_statement(name: str, value) -> str:
    """SET GLOBAL for a recipe's value: whole numbers and sizes (48M) as numbers, ON and OFF as
    keywords, anything else as a quoted string (SET GLOBAL takes no size suffix, and refuses a
    number in quotes). Names come from the recipe's reader, which allows \\w+ only."""
    if not re.fullmatch(r"\w+", name):
        raise ValueError(f"not a server variable name: {name!r}")
    text = str(value)
    if re.fullmatch(r"-?\d+", text):
        literal = text
    elif re.fullmatch(r"\d+[KMGTkmgt]", text):
        literal = str(units.size_bytes(text))
    elif text.upper() in ("ON", "OFF"):
        literal = text.upper()
    else:
        literal = "'" + text.replace("\\", "\\\\").replace("'", "''") + "'"
    return f"SET GLOBAL {name} = {literal}"


def same_value(asked, effective: str) -> bool:
    """Whether the server's value read back is the one asked for (48M is 50331648; ON is ON)."""
    text = str(asked)
    if re.fullmatch(r"\d+[KMGTkmgt]", text):
        text = str(units.size_bytes(text))
    return text.lower() == str(effective).lower()


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
    if binary.flavor == "mariadb":
        return f"{binary.label} reads {', '.join(names)} only at startup"
    return (f"{binary.label} changes {', '.join(names)} only at startup (it refuses SET GLOBAL "
            "to one of the recipe's values)")


def server_name(binary, name: str) -> str:
    return next(iter(binary.map({name: "1"})))
