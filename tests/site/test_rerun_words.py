"""A topic page's rerun line says how long the rerun takes in plain words: no profile's name
("quick: 4m37s") on the first screen, where its --quick flag is already in the command."""

from tuninglab.site import rerun


def test_a_duration_reads_in_round_words():
    assert rerun.about(50) == "about a minute"
    assert rerun.about(650) == "about 11 minutes"
    assert rerun.about(2380) == "about 40 minutes"
    assert rerun.about(9000) == "about 2.5 hours"


def test_the_rerun_line_names_no_profile():
    line = rerun.rerun_html("invoke recipe doublewrite", "doublewrite", "")
    assert "<code>invoke recipe doublewrite --quick</code> (about " in line
    assert "the full run about " in line
    assert "quick:" not in line and "full:" not in line
