"""A read view held on the real server ([workload] hold_read_view): the history list grows
while the view is held, whatever the purge threads, and the run records the second it was
released; the result file validates and its regime checks read the held seconds and the drain."""

import pytest

from helpers import fixture_recipe, run_recipe
from tuninglab.results import read_view

pytestmark = pytest.mark.integration

# The tiny recipe's write-only load, held for 5 s of 12 measured: each commit adds to the history
# list while the view is held, and the purge threads' drain follows the release. Five held
# seconds, not three: the slope check reads its 95% interval's low end, and three seconds leave
# one degree of freedom (t = 12.7), so an uneven second puts a growing list's bound below zero.
HELD = {
    'script = "oltp_write_only"': 'script = "oltp_write_only"\nhold_read_view = "5s"',
    'setting = "innodb_doublewrite"\nvalues = ["ON", "OFF"]':
        'setting = "innodb_purge_threads"\nvalues = [1, 4]\nbaseline = 4',
    'duration = "2s"\nrepeats = 2': 'duration = "12s"\nrepeats = 1\ndesign = "restart"',
}
REGIME = """
[[regime]]
metric = "history_list_length"
statistic = "slope"
window = "held"
at_least = 10
of = "baseline"
why = "the history list grows while the view is held"

[[regime]]
metric = "history_list_length"
statistic = "drain"
at_most = 6
why = "purge drains the backlog within the run"
"""


def test_a_held_view_grows_the_history_list_until_its_release(recipes_dir, shared_workdir,
                                                              tmp_path):
    path = fixture_recipe(recipes_dir, "tiny", "tiny-held", replace=HELD)
    path.write_text(path.read_text() + REGIME)
    _, doc = run_recipe("tiny-held", recipes_dir, shared_workdir, tmp_path / "data")
    for p in doc["points"]:
        for run in p["runs"]:
            assert run["summary"]["read_view"] == {"hold_s": 5.0, "released_at_s": 5.0}
            history = run["series"]["history_list_length"]
            held = read_view.window(history, run, "held")
            assert len(held) == 5 and held[-1] > held[0] + 100   # hundreds of commits a second
            assert read_view.drain_seconds(run) is not None
        checks = p["stats"]["regime"]["checks"]
        assert all(c["ok"] for c in checks), checks
