"""What a setting gives up for its speed (risks.py) and a swept setting's name in a summary
(setting_words.py): every risk names a point some recipe sweeps, so a renamed value cannot
drop its warning unseen, and every lab knob a recipe sweeps has words of its own."""

from tuninglab.evidence import risks, setting_words
from tuninglab.recipes.load import list_names, load_all


def _sweeps() -> set:
    return {(r.sweep.setting, v) for name in list_names() for r in load_all(name)
            for v in r.sweep.values}


def test_every_risk_is_of_a_point_a_recipe_sweeps_and_has_its_kind():
    swept = _sweeps()
    assert [key for key in risks.RISKS if key not in swept] == []
    assert set(risks.KINDS) == set(risks.RISKS)
    assert risks.risked("innodb_doublewrite", "OFF")[0] == risks.NOT_CRASH_SAFE
    assert risks.risked("innodb_doublewrite", "ON") == ("", "")


def test_the_settings_that_lose_durability_say_so_and_the_safe_ones_do_not():
    assert "committed transactions" in risks.risk("innodb_flush_log_at_trx_commit", "2")
    assert "torn" in risks.risk("innodb_doublewrite", "OFF")
    assert risks.risk("innodb_flush_log_at_trx_commit", "1") == ""
    assert risks.risk("innodb_doublewrite", "ON") == ""
    assert risks.risk("lab.disk_cache", "directsync") == ""


def test_every_lab_knob_a_recipe_sweeps_has_words():
    """A server option is its own name; "raid.disks" must not read as "1 against 4"."""
    knobs = {s for s, _ in _sweeps() if "." in s}
    assert sorted(k for k in knobs if k not in setting_words.WORDS) == []
    assert setting_words.comparison("raid.disks", "1", "4") == "RAID member disks 1 against 4"
    assert setting_words.comparison("lab.pti", "off", "on") == "pti=off against on"
    assert setting_words.comparison("innodb_doublewrite", "OFF", "ON") == \
        "innodb_doublewrite OFF against ON"
