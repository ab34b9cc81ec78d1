"""A capped server's own memory beyond the MariaDB the data shapes are sized for
(recipes/server_list.py EXTRA_MEMORY): MySQL 9.7 gets it on top of the recipe's memory_limit,
the result records it, and data.check expects it from the result's server."""

import json

from helpers import DATA, result_problems
from tuninglab.engine.server import memory
from tuninglab.recipes import server_list
from tuninglab.recipes.load import load

RESTART = DATA / "doublewrite" / "20261124T044854Z-48806fd0-quick-a005932b.json"
MB = 2**20


def experiment():
    return load("doublewrite").experiment("quick")


def test_mariadb_is_held_to_the_limit_and_mysql_to_the_limit_and_its_extra():
    e = experiment()
    assert e.dataset.memory_limit == "192M" and e.workload.threads == 4  # the shape's
    assert memory.extra(e, "mariadb") == 0
    extra = memory.extra(e, "mysql")
    assert extra == server_list.extra_memory("mysql", 4) == 544 * MB
    block = memory.describe(e.dataset, extra_bytes=extra)
    assert block["limit_bytes"] == 192 * MB + extra and block["server_extra_bytes"] == extra
    assert "server_extra_bytes" not in memory.describe(e.dataset)


def test_more_threads_more_extra_and_a_sweep_of_threads_takes_its_most():
    assert server_list.extra_memory("mysql", 16) - server_list.extra_memory("mysql", 4) == \
        12 * 8 * MB
    concurrency = load("concurrency").experiment("quick")
    most = max(concurrency.workload_for(v).threads for v in concurrency.sweep.values)
    assert server_list.most_threads(concurrency) == most > 4


def test_in_the_lab_vm_its_ram_is_the_limit_whatever_the_server():
    e = load("write-cache").experiment("quick")   # disk-bound, in the lab VM
    assert e.recipe.in_lab_vm and memory.extra(e, "mysql") == 0
    block = memory.describe(e.dataset, in_lab_vm=True, extra_bytes=memory.extra(e, "mysql"))
    assert block["limit_bytes"] == 192 * MB and "server_extra_bytes" not in block
    assert block["capped"] is False


def test_data_check_expects_the_extra_of_the_results_server(tmp_path):
    doc = json.loads(RESTART.read_text())
    base = doc["memory"]["limit_bytes"]
    doc["server"]["flavor"] = "mysql"
    path, problems = result_problems(tmp_path, doc)
    expected = base + server_list.extra_memory("mysql", 4)
    assert f"{path}: memory/limit_bytes: {base}; expected {expected}, the memory limit " \
        "profile quick of recipe/text gives" in problems
    doc["memory"].update(limit_bytes=expected, server_extra_bytes=expected - base)
    assert not [p for p in result_problems(tmp_path, doc)[1] if "memory" in p]
