"""The project's own sysbench scripts (engine/workloads/lua/<name>.lua) and their
[workload.options]: what says a value is wrong (None if fine), and its default. Standard library
only, as recipes.model, which the lab VM's guest imports."""

import re


def _one_of(*allowed):
    def check(value):
        return None if value in allowed else f"expected one of {', '.join(allowed)}, got {value!r}"
    return check


def _whole_number(value):
    if re.fullmatch(r"[0-9]+", value):
        return None
    return f"expected a whole number >= 0, got {value!r}"


def _commit_every(value):
    """statement (autocommit), N (one COMMIT per N statements) or 1s (one a second)."""
    if value in ("statement", "1s") or re.fullmatch(r"[0-9]+", value) and int(value) >= 1:
        return None
    return f"expected statement, a whole number of statements >= 1 or 1s, got {value!r}"


# The TPC-C-like workload's script (lua/tpcc.lua), which a tpcc workload runs: it is named
# after the workload's kind (model.TPCC), and no sysbench workload may name it.
TPCC_SCRIPT = "tpcc"
# The project's own sysbench scripts (workloads/lua/<name>.lua): for each option of
# [workload.options], what says a value is wrong (None if fine), and its default.
PROJECT_SCRIPTS = {
    "insert_batch": {"commit": (_commit_every, "statement"),
                     "key": (_one_of("unique", "primary"), "unique")},
    # The TPC-C-like workload: active_warehouses N > 0 keeps the transactions' home warehouses
    # to 1..N, the small, CPU-bound shape; 0 uses all the dataset's.
    TPCC_SCRIPT: {"active_warehouses": (_whole_number, "0")},
}
