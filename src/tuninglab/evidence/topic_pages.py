"""The topic pages' front matter (docs/topics/*.md): each page's title, order, recipe, advice
and what the advice rests on (evidence/advice.py reads `rests_on`).

It is read here without a YAML library, so that `invoke advise` loads none of the page
machinery. The front matter is a small, strict subset of YAML: `key: value` lines, one level of
keys indented by two spaces under a key with no value, `#` comments, and scalars that are
quoted, an integer, a decimal or plain text. Anything else (a list, a block scalar, a plain
word YAML reads as a boolean or null, a plain value holding ": ") is refused with the file and
line, never read differently than MkDocs reads it; tests/evidence/test_topic_pages.py holds
this reader to PyYAML's reading of every page.
"""

import re
from pathlib import Path

from tuninglab.files import PROJECT_DIR

TOPICS_DIR = PROJECT_DIR / "docs" / "topics"
KEY = re.compile(r"([A-Za-z_][A-Za-z0-9_]*):(?: (.*))?$")
# Plain words YAML 1.1 (PyYAML, hence MkDocs) reads as a boolean or as null: a page quotes them.
NOT_TEXT = re.compile(r"(y|Y|yes|Yes|YES|n|N|no|No|NO|true|True|TRUE|false|False|FALSE|"
                      r"on|On|ON|off|Off|OFF|null|Null|NULL|~)")
INTEGER = re.compile(r"0|[1-9][0-9]*")
DECIMAL = re.compile(r"[0-9]+\.[0-9]+")
INDICATORS = "-?:,[]{}#&*!|>'\"%@`"


class FrontMatterError(ValueError):
    pass


def topic_pages(topics_dir: Path | None = None) -> list[dict]:
    """Every topic page's front matter (with its slug), in the pages' order."""
    pages = []
    for path in sorted(Path(topics_dir or TOPICS_DIR).glob("*.md")):
        meta = front_matter(path)
        meta["slug"] = path.stem
        pages.append(meta)
    return sorted(pages, key=lambda m: m.get("order", 99))


def front_matter(path: Path) -> dict:
    """The page's front matter as a dict, or FrontMatterError naming the file and line."""
    text = path.read_text()
    if not text.startswith("---\n") or "\n---\n" not in text[3:]:
        raise FrontMatterError(f"{path} has no front matter")
    lines = text[4:].split("\n---\n", 1)[0].split("\n")
    meta, section = {}, None
    for number, line in enumerate(lines, start=2):
        where = f"{path}:{number}"
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        indent = len(line) - len(line.lstrip(" "))
        if indent not in (0, 2) or (indent == 2 and section is None) or "\t" in line:
            raise FrontMatterError(f"{where}: expected 'key: value' at the start of the line, "
                                   f"or indented by two spaces under a key with no value")
        key, value = _key_value(line.strip(), where)
        target = meta if indent == 0 else meta[section]
        if key in target:
            raise FrontMatterError(f"{where}: {key!r} is given twice")
        if indent == 0:
            section = key if value is None else None
            target[key] = {} if value is None else value
        elif value is None:
            raise FrontMatterError(f"{where}: {key!r} has no value (only one level of keys "
                                   f"nests)")
        else:
            target[key] = value
    return {k: (None if v == {} else v) for k, v in meta.items()}


def _key_value(line: str, where: str) -> tuple[str, object]:
    match = KEY.match(line)
    if not match:
        raise FrontMatterError(f"{where}: expected 'key: value', got {line!r}")
    key, value = match.group(1), (match.group(2) or "").strip()
    return key, (scalar(value, where) if value and not value.startswith("#") else None)


def scalar(text: str, where: str):
    """A value as YAML reads it: a quoted string, an integer, a decimal or plain text."""
    if text[0] in "\"'":
        return _quoted(text, where)
    value = re.split(r"\s#", text, maxsplit=1)[0].rstrip()
    if INTEGER.fullmatch(value):
        return int(value)
    if DECIMAL.fullmatch(value):
        return float(value)
    if NOT_TEXT.fullmatch(value) or value[0] in INDICATORS or ": " in value \
            or value.endswith(":"):
        raise FrontMatterError(f"{where}: quote the value {value!r} (YAML would not read it "
                               f"as this text)")
    return value


def _quoted(text: str, where: str) -> str:
    """A quoted value: double quotes with \\" and \\\\ as its only escapes, or single quotes
    with '' for a quote; then nothing but a comment."""
    quote = text[0]
    pattern = r'"((?:[^"\\]|\\["\\])*)"' if quote == '"' else r"'((?:[^']|'')*)'"
    match = re.match(pattern + r"(\s+#.*)?$", text)
    if not match:
        raise FrontMatterError(f"{where}: expected a value in {quote} quotes, with only a "
                               f"comment after it (escapes: \\\" and \\\\ only), got {text!r}")
    inner = match.group(1)
    if quote == '"':
        return re.sub(r"\\([\"\\])", r"\1", inner)
    return inner.replace("''", "'")
