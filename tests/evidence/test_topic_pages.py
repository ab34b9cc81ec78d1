"""The topic pages' front matter, as evidence/topic_pages.py reads it without a YAML library:
what MkDocs (PyYAML) reads from every page, and a clear refusal of anything else."""

import re

import pytest
import yaml

from tuninglab.evidence import topic_pages as pages
from tuninglab.evidence.topic_pages import FrontMatterError, front_matter, topic_pages


def test_every_page_reads_as_pyyaml_reads_it():
    paths = sorted(pages.TOPICS_DIR.glob("*.md"))
    assert len(paths) > 20
    for path in paths:
        expected = yaml.safe_load(path.read_text().split("---\n", 2)[1])
        assert front_matter(path) == expected, path


def test_the_pages_come_in_their_order_with_their_slugs():
    found = topic_pages()
    assert [m["order"] for m in found] == sorted(m["order"] for m in found)
    assert all(m["slug"] and (pages.TOPICS_DIR / f"{m['slug']}.md").is_file() for m in found)


def page(tmp_path, body: str):
    path = tmp_path / "topic.md"
    path.write_text(f"---\n{body}---\n\n# A page\n")
    return path


READ = [
    ('title: "A \\"quoted\\" title"  # a comment\n', {"title": 'A "quoted" title'}),
    ("title: 'it''s'\n", {"title": "it's"}),
    ("order: 12\nratio: 1.25\n", {"order": 12, "ratio": 1.25}),
    ("advice: Keep it ON, it's cheap # why\n", {"advice": "Keep it ON, it's cheap"}),
    ("rests_on:\n  # why\n  recipe: doublewrite\n  point: \"OFF\"\n",
     {"rests_on": {"recipe": "doublewrite", "point": "OFF"}}),
    ("rests_on: none\n", {"rests_on": "none"}),
    ("rests_on:\n", {"rests_on": None}),
]


@pytest.mark.parametrize("body, expected", READ)
def test_what_it_reads_is_what_yaml_reads(tmp_path, body, expected):
    assert front_matter(page(tmp_path, body)) == expected == yaml.safe_load(body)


REFUSED = [
    ("point: OFF\n", "quote the value 'OFF'"),
    ("value: yes\n", "quote the value 'yes'"),
    ("advice: a: b\n", "quote the value"),
    ("list:\n  - a\n", "expected 'key: value'"),
    ("why: >\n  folded\n", "quote the value '>'"),
    ("  indented: x\n", "indented by two spaces under a key with no value"),
    ("a:\n    deep: x\n", "indented by two spaces"),
    ("a: 1\na: 2\n", "'a' is given twice"),
    ('title: "unclosed\n', "expected a value in \" quotes"),
    ('title: "a\\nb"\n', "escapes"),
]


@pytest.mark.parametrize("body, message", REFUSED)
def test_anything_else_is_refused_with_the_file_and_line(tmp_path, body, message):
    path = page(tmp_path, body)
    with pytest.raises(FrontMatterError) as caught:
        front_matter(path)
    assert re.match(re.escape(str(path)) + r":\d+: ", str(caught.value))
    assert message in str(caught.value)


def test_a_page_without_front_matter_is_refused(tmp_path):
    path = tmp_path / "bare.md"
    path.write_text("# no front matter\n")
    with pytest.raises(FrontMatterError, match="has no front matter"):
        front_matter(path)
