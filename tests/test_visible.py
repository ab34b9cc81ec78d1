"""visible.py, the one place foreign text is made safe (issue 77): on one line in the terminal,
every character that acts or shows nothing written as its escape, a pile of combining marks cut
to what a script uses; on a page, format and invisible characters named."""

import pytest

from tuninglab.visible import MAX_MARKS, plain, visible


@pytest.mark.parametrize("text, shown", [
    ("kvm\n  forged: reproduced", "kvm\\n  forged: reproduced"),
    ("a\rb\tc\x1b[31m", "a\\rb\\tc\\x1b[31m"),
    ("a\x85b\x9bc", "a\\x85b\\x9bc"),                      # C1 controls: NEL, CSI
    ("a\u2028b\u2029c", "a\\u2028b\\u2029c"),              # line and paragraph separators
    ("AMD\u202eCPYE", "AMD\\u202eCPYE"),                    # a bidi override
    ("AMD\u3164EPYC\u115f", "AMD\\u3164EPYC\\u115f"),       # Hangul fillers: drawn as blank
    ("x\ufe0f\U000e0100", "x\\ufe0f\\U000e0100"),           # variation selectors
    ("Intel® Xeon® ±3% µs, Máy chủ, मेरा सर्वर", "Intel® Xeon® ±3% µs, Máy chủ, मेरा सर्वर"),
])
def test_what_acts_or_hides_is_written_as_its_escape(text, shown):
    assert visible(text) == shown
    assert "\n" not in visible(text)


def test_marks_beyond_what_a_script_stacks_and_marks_on_nothing_are_escaped():
    assert visible("Vie\u0323\u0302t") == "Vie\u0323\u0302t"   # Vietnamese: two on a letter
    piled = visible("a" + "\u0301" * 50)
    assert piled == "a" + "\u0301" * MAX_MARKS + "\\u0301" * (50 - MAX_MARKS)
    assert visible("\u0301a") == "\\u0301a"                     # on the text's start: on nothing
    assert visible("\n\u0301") == "\\n\\u0301"                  # on an escape: on nothing


def test_a_page_names_format_and_invisible_characters():
    assert plain("AMD\u3164EPYC\u202e") == "AMD[U+3164]EPYC[U+202E]"
    assert plain("a\nb") == "a\nb"  # a page shows a line break as a space: html escapes the rest
