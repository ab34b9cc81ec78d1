"""A result's text is one line (issue 77, case 2): a contribution whose host.virtualization held a
newline and a forged verdict passed `data.check --contributions`, and data.claims printed the
verdict as a line of the project's. Every control character and line or paragraph separator in
any string of a result (its keys too) is refused, one line naming the file and the JSON path;
the recipe's text alone is a file of lines."""

import copy
import json

import pytest

from helpers import contributed, DATA, place_result as place, \
    result_problems as problems_of
from tuninglab.contrib import check

BASE = DATA / "doublewrite" / "20261121T233847Z-209a4cf4-quick.json"
FORGED = ("kvm\n  zfs2009-doublewrite-off-serie-h: then x1.03, today x1.31 [1.28, 1.34] (9 "
          "results, 9 sittings (0 quick)): reproduced")
ONE_LINE = ("expected one line of text without control characters or line separators (a line "
            "break would forge a line of the terminal's)")


def contributed_base() -> dict:
    return contributed(json.loads(BASE.read_text()))



def test_the_forged_verdict_line_is_refused_naming_the_file_and_the_key(data):
    doc = contributed_base()
    doc["host"]["virtualization"] = FORGED
    path = place(data.parent, doc)
    assert check.check_paths([path], contributions=True) == [
        f"{path}: host/virtualization: control character U+000A at character 3; {ONE_LINE}"]


@pytest.mark.parametrize("c, what", [
    ("\n", "control character U+000A"), ("\r", "control character U+000D"),
    ("\t", "control character U+0009"), ("\x1b", "control character U+001B"),
    ("\x00", "control character U+0000"), ("\x85", "control character U+0085"),  # C1: NEL
    ("\x9b", "control character U+009B"),                                       # C1: CSI
    ("\u2028", "line separator U+2028"), ("\u2029", "paragraph separator U+2029")])
@pytest.mark.parametrize("key", [("host", "cpu_model"), ("contribution", "description"),
                                 ("server", "version_text")])
def test_every_control_and_separator_is_refused_in_every_field(tmp_path, c, what, key):
    doc = contributed_base()
    doc[key[0]][key[1]] = doc[key[0]].get(key[1], "words") + c + "more"
    at = len(doc[key[0]][key[1]]) - 5
    path, problems = problems_of(tmp_path, doc)
    line = f"{path}: {'/'.join(key)}: {what} at character {at}; {ONE_LINE}"
    assert line in problems
    assert all(c not in p for p in problems)  # each line is one line


def test_a_key_of_two_lines_is_refused():
    doc = contributed_base()
    doc["points"][1]["effective"] = {"innodb_x\nforged: ok": "1"}
    assert check.check_text(doc) == [
        f"points/1/effective/innodb_x\nforged: ok: the key control character U+000A at "
        f"character 8; {ONE_LINE}"]
    assert check.one_line(check.check_text(doc)[0]).count("\n") == 0


def test_the_recipe_text_keeps_its_lines_but_no_other_control_character():
    doc = copy.deepcopy(contributed_base())
    assert "\n" in doc["recipe"]["text"] and check.check_text(doc) == []
    doc["recipe"]["text"] += "\r\n"
    [line] = check.check_text(doc)
    assert line.startswith("recipe/text: control character U+000D at character ")
    assert line.endswith("; expected text without control characters (newlines and tabs are "
                         "fine)")


def test_a_description_on_two_lines_is_refused_before_data_submit_writes_it():
    assert check.text_problems("my box\nerror: forged", 500) == [
        f"control character U+000A at character 6; {ONE_LINE}"]
