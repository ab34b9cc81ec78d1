"""A server.defaults sweep on the real server (recipes/defaults_sets.py): the set's point starts
the server with the earlier defaults, the point "today" with none, and every run reads back
each variable a set changes, so today's own value stands in the result beside the earlier one;
a set of another flavour is skipped and recorded as such, and data.check accepts that skip."""

import pytest

from helpers import fixture_recipe, run_recipe
from tuninglab.contrib import experiment as ex
from tuninglab.recipes.load import load

pytestmark = pytest.mark.integration

# Two sets on the tiny recipe: one this host's MariaDB 10.11 runs (io_capacity and the adaptive
# hash index, both far from its defaults), one for MySQL that it skips.
SETS = {
    'setting = "innodb_doublewrite"\nvalues = ["ON", "OFF"]':
        'setting = "server.defaults"\nvalues = ["today", "older", "mysql-old"]\n'
        'baseline = "today"',
    "[measure]": '''[defaults.older]
flavor = "mariadb"
since = "10.0"
source = "a test's own set"

[defaults.older.settings]
innodb_io_capacity = 123
innodb_adaptive_hash_index = "ON"

[defaults.mysql-old]
flavor = "mysql"
since = "8.4.0"
source = "a test's own set"

[defaults.mysql-old.settings]
innodb_io_capacity = 321

[measure]
design = "restart"''',
}


def test_a_set_of_earlier_defaults_runs_and_today_reads_its_own_back(recipes_dir, shared_workdir,
                                                                      tmp_path):
    fixture_recipe(recipes_dir, "tiny", "tiny-defaults", replace=SETS)
    path, doc = run_recipe("tiny-defaults", recipes_dir, shared_workdir, tmp_path / "data")
    points = {p["value"]: p for p in doc["points"]}
    assert set(points) == {"today", "older"}
    [skipped] = doc["plan"]["skipped"]
    assert skipped["value"] == "mysql-old" and "a point for MySQL 8.4.0 and later" in skipped["why"]
    for run in points["older"]["runs"]:
        assert run["effective"]["innodb_io_capacity"] == "123"
        assert run["effective"]["innodb_adaptive_hash_index"] == "ON"
    for run in points["today"]["runs"]:
        assert run["effective"]["innodb_io_capacity"] == "200"       # MariaDB 10.11's own
        assert run["effective"]["innodb_adaptive_hash_index"] == "OFF"
    experiment = load("tiny-defaults", recipes_dir=recipes_dir).experiment()
    assert ex.check_skipped(doc, experiment, "mariadb", (10, 11, 0)) == []
