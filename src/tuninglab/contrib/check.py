"""Checks a result file before it joins data/: that it is a small JSON object, matches the
schema, names a recipe and a version of it that exist and is the experiment that version plans
(experiment.py, readback.py, history.py), holds sane values (values.py) and facts that agree
(facts.py), plain text on one line and the statistics its runs give (forgery.py), and sits
where document.final_path puts it. A file under
data/calibrations/ is an A/A calibration record, checked by results/calibrations.py. With
contributions, the rules of a pull request's files too: contributions only, none posing as a
project host (forgery.py). Every problem is one line:
'<file>: <json path>: <what is wrong>; expected <what>'.
"""

import hashlib
import json
import math
import tomllib
import unicodedata
from pathlib import Path

from tuninglab import files
from tuninglab.contrib import experiment, facts, forgery, history, scrub, values
from tuninglab.contrib.jsonpaths import at, walk
from tuninglab.errors import UserError
from tuninglab.files import DATA_DIR
from tuninglab.recipes.load import MAX_RECIPE_TEXT, list_names, load_all
from tuninglab.recipes.model import PLAIN_NAME
from tuninglab.recipes.reader import Reader
from tuninglab.visible import INVISIBLE, MAX_MARKS, is_mark, visible
from tuninglab.results import calibrations, document, stats
from tuninglab.results.result import Result

MAX_BYTES = files.MAX_DATA_BYTES  # 20 MB: a full run is ~1 MB; more is not a result
MAX_TEXT = 2_000                # characters in any string of the document...
# ...but recipe/text, the whole recipe file: MAX_RECIPE_TEXT UTF-8 bytes, as recipes are loaded
MAX_DIGITS = 20                 # a 64-bit counter, the largest integer a server reports
# Objects and arrays inside one another: a result nests 10 deep; the site's build, which
# recurses, failed without naming the file on a 900-deep value that passed the schema.
MAX_DEPTH = 32
MAX_LINE = 400                  # a problem line is cut in the middle beyond this


# --- entry points -------------------------------------------------------------------------------

def result_files(paths=()) -> list[Path]:
    """The files to check: directories expand to their *.json except historical/ (CSV sources);
    default data/. An empty path (Path("") is the current directory, .venv and all) and a
    directory without a result file are refused: neither is a request to check nothing."""
    found = []
    for text in paths or [DATA_DIR]:
        if str(text) == "":
            raise UserError("--path: an empty path; expected a result file or a directory of "
                            "result files (no --path: all of data/)")
        p = Path(text)
        if p.is_dir():
            under = sorted(f for f in p.rglob("*.json")
                           if "historical" not in f.relative_to(p).parts)
            # calibration records are checked as what they are (check_file: calibrations)
            if not under:
                raise UserError(f"--path {p}: a directory without result files (*.json); "
                                "expected a result file or a directory of result files")
            found += under
        else:
            found.append(p)  # a missing or odd path is reported by check_file
    return found


def check_paths(paths=(), contributions=False) -> list[str]:
    """Every problem of the files; contributions: as files a pull request adds (contributed
    results only, none from a host of the project's results in DATA_DIR)."""
    found = result_files(paths)
    hosts = forgery.project_hosts(DATA_DIR, leave_out=found) if contributions else None
    return [line for path in found for line in check_file(path, project_hosts=hosts)]


def check_file(path, project_hosts=None, stored_stats=True) -> list[str]:
    """Every problem of one result file as a line; empty when it may join data/.
    project_hosts: the project's host ids (forgery.project_hosts), for a file a pull request
    adds; stored_stats=False leaves out the statistics, which data.submit recomputes."""
    path = Path(path)
    if path.parent.name == calibrations.DIR:  # an A/A calibration record, not a result
        if project_hosts is not None:  # as CI's pull request check (pull_request.py) says
            return [one_line(f"{path}: {calibrations.NOT_CONTRIBUTED}")]
        return [one_line(line) for line in calibrations.problems(path)]
    doc, problems = load(path)
    if doc is not None:
        schema = document.validate(doc)
        problems = check_text(doc) + schema
        if not schema:  # the deeper checks need a document of the schema's shape
            recipe = check_recipe(doc)
            problems += recipe
            if not recipe:  # a version of the recipe: the file must be the experiment it plans
                problems += experiment.check_experiment(doc)
            for check in (check_smallest_effect, values.check_numbers,
                          values.check_magnitudes, values.check_plan,
                          values.check_repeats, values.check_series, values.check_times,
                          values.check_points, forgery.check_regime, facts.check_server,
                          facts.check_cores, history.check_dates):
                problems += check(doc)
            if stored_stats:
                problems += forgery.check_statistics(doc)
            if project_hosts is not None:
                # a contribution: no project host's id, no credential left (data.submit's checks)
                problems += forgery.check_contribution(doc, project_hosts)
                problems += scrub.credential_problems(doc)
            problems += check_profile(doc) + check_location(doc, path)
    return [one_line(f"{path}: {problem}") for problem in problems]


# --- the file -----------------------------------------------------------------------------------

class NonFinite:
    """NaN, Infinity or -Infinity: Python's json reads them, JSON has none."""

    def __init__(self, token):
        self.token = token


class LongInteger:
    """An integer of more than MAX_DIGITS digits: no measure has one, and Python refuses to
    read one of more than 4,300 (its advice, sys.set_int_max_str_digits, is no help here)."""

    def __init__(self, text):
        self.digits = len(text.lstrip("-"))


def unique_keys(repeated: list):
    """json's object_pairs_hook: the object as a dict, each key it holds twice noted in
    repeated (json.loads alone keeps the last silently: two values, one read)."""
    def hook(pairs):
        seen = set()
        repeated.extend(key for key, _ in pairs if key in seen or seen.add(key))
        return dict(pairs)
    return hook


def too_deep(doc: dict) -> list[tuple]:
    """The path of the first value nested past MAX_DEPTH (walk is iterative: no recursion)."""
    return next(([path] for path, _ in walk(doc) if len(path) > MAX_DEPTH), [])


def read_int(text: str):
    return LongInteger(text) if len(text.lstrip("-")) > MAX_DIGITS else int(text)


def load(path: Path) -> tuple[dict | None, list[str]]:
    """The document, or None and why the file is not one."""
    try:  # never through a link, never waiting on a FIFO (files.read_regular)
        raw = files.read_regular(path, MAX_BYTES)
    except FileNotFoundError:
        return None, [at("(file)", "no such file; expected a result file")]
    except files.NotRegular as exc:
        return None, [at("(file)", f"{exc.what}; expected a result file")]
    except files.TooLarge as exc:
        return None, [at("(file)", f"{exc.size:,} bytes; expected at most 20 MB "
                                   f"({MAX_BYTES:,} bytes)")]
    except OSError as exc:
        return None, [at("(file)", f"cannot be read ({exc.strerror}); expected a result file")]
    repeated = []
    try:
        doc = json.loads(raw.decode("utf-8"), parse_constant=NonFinite,
                         parse_int=read_int, object_pairs_hook=unique_keys(repeated))
    except UnicodeDecodeError as exc:
        return None, [at("(file)", f"not UTF-8 (byte {exc.start}); expected UTF-8 JSON")]
    except json.JSONDecodeError as exc:
        return None, [at("(file)", f"not JSON: {exc.msg} at line {exc.lineno} column "
                                   f"{exc.colno}; expected a JSON document")]
    except (ValueError, RecursionError) as exc:  # a 5000-digit number, deep nesting
        return None, [at("(file)", f"not JSON this checker reads: {exc}; "
                                   "expected a JSON document")]
    if not isinstance(doc, dict):
        return None, [at("(top)", f"a JSON {type(doc).__name__}; expected an object")]
    bad = [at("(file)", f"the key {key!r} twice in one object; expected each key once (a JSON "
                        "reader keeps only the last)") for key in repeated]
    bad += [at(key, f"nested {len(key)} levels deep; expected at most {MAX_DEPTH}")
            for key in too_deep(doc)]
    bad += [at(key, f"{value.token}; expected a finite number (JSON has no NaN or Infinity)")
           for key, value in walk(doc) if isinstance(value, NonFinite)]
    bad += [at(key, f"{value!r} (a number too large for a float); expected a finite number")
            for key, value in walk(doc) if isinstance(value, float) and not math.isfinite(value)]
    bad += [at(key, f"a number of {value.digits:,} digits; expected a number of at most "
                    f"{MAX_DIGITS} digits (a 64-bit counter has 20)")
            for key, value in walk(doc) if isinstance(value, LongInteger)]
    return (None, bad) if bad else (doc, [])


# --- text ---------------------------------------------------------------------------------------

def check_text(doc: dict) -> list[str]:
    """Every string, keys included: not too long, on one line with no control characters (a
    line break would forge a line of data.claims' or a CI log's own, an ESC recolour it), no
    format characters (bidi controls reorder what a page or a review shows, zero-width ones
    hide text), nothing else that shows nothing, no pile of combining marks, no lone
    surrogates (not text). The recipe's text alone is a file of lines."""
    problems = []
    for path, value in walk(doc):
        if isinstance(value, dict):
            problems += [at(path + (key,), f"the key {problem}")
                         for key in value for problem in text_problems(key, MAX_TEXT)]
        elif isinstance(value, str):
            is_recipe = path == ("recipe", "text")
            problems += [at(path, problem) for problem in
                         text_problems(value, MAX_RECIPE_TEXT if is_recipe else MAX_TEXT,
                                       in_bytes=is_recipe, lines=is_recipe)]
    return problems


ONE_LINE = ("expected one line of text without control characters or line separators (a "
            "line break would forge a line of the terminal's)")
LINES = "expected text without control characters (newlines and tabs are fine)"


def text_problems(text: str, limit: int, in_bytes=False, lines=False) -> list[str]:
    """What is wrong with a string, the first character that is wrong and the length; lines:
    a text of lines (newlines and tabs are fine), else one line."""
    problems = []
    size = len(text.encode("utf-8", "surrogatepass")) if in_bytes else len(text)
    if size > limit:
        unit = "bytes" if in_bytes else "characters"
        problems.append(f"{size:,} {unit}; expected at most {limit:,}")
    marks = 0  # combining marks on the character before
    for i, c in enumerate(text):
        marks = marks + 1 if is_mark(c) else 0
        problem = character_problem(c, i, lines) or marks_problem(text, i, marks)
        if problem:
            return problems + [problem]
    return problems


def character_problem(c: str, i: int, lines: bool) -> str | None:
    """Why one character may not be in a result's text, or None."""
    kind, code = unicodedata.category(c), f"U+{ord(c):04X}"
    if kind == "Cf":
        return (f"format character {code} ({unicodedata.name(c, '?')}) at character {i}; "
                "expected text without bidi controls or zero-width characters (Unicode "
                "category Cf)")
    if kind == "Cs":
        return (f"lone surrogate {code} at character {i}; expected text (half a UTF-16 pair is "
                "no character)")
    if kind in ("Cc", "Zl", "Zp") and not (lines and c in "\n\t"):
        what = {"Cc": "control character", "Zl": "line separator",
                "Zp": "paragraph separator"}[kind]
        return f"{what} {code} at character {i}; {LINES if lines else ONE_LINE}"
    if c in INVISIBLE:
        return (f"invisible character {code} ({unicodedata.name(c, 'reserved')}) at character "
                f"{i}; expected text without characters that show nothing (Unicode's "
                "default-ignorable code points)")
    return None


def marks_problem(text: str, i: int, marks: int) -> str | None:
    """A combining mark on no character (the text's first), or one too many on one."""
    if marks and i == marks - 1:
        return (f"combining mark U+{ord(text[i]):04X} ({unicodedata.name(text[i], '?')}) at "
                "character 0, on no character; expected a mark after the letter it belongs to")
    if marks > MAX_MARKS:
        base = i - marks  # the character they sit on; the run may go on beyond i
        run = next((j for j in range(i, len(text)) if not is_mark(text[j])), len(text)) - base - 1
        return (f"{run} combining marks on the character at {base}; expected at most "
                f"{MAX_MARKS} on one character (more are no script's, only a pile drawn over "
                "the lines around it)")
    return None


# --- the recipe and its version -----------------------------------------------------------------

def check_recipe(doc: dict) -> list[str]:
    """The recipe and variant exist, the text is the one hashed, and the hash is a version of
    the recipe: the current file or a committed one (results keep the version they ran)."""
    name, text, sha = (doc["recipe"][k] for k in ("name", "text", "sha256"))
    if name not in list_names():
        return [at("recipe/name", f"no recipe {name!r}: recipes/{name}/recipe.toml does not "
                                  "exist; expected a recipe in recipes/ (invoke recipe.list)")]
    problems = check_variant(name, Result(doc).variant)
    digest = hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()
    if digest != sha:
        return problems + [at("recipe/sha256", f"{sha} is not the sha256 of recipe/text "
                                               f"({digest}); expected the two to match")]
    versions, why_not_all = history.recipe_versions(name)
    if sha not in versions:
        where = f"recipes/{name}/recipe.toml"
        if why_not_all:
            problems.append(at("recipe/sha256", f"{sha} is not the current {where}, and cannot "
                                                f"check older versions: {why_not_all}"))
        else:
            problems.append(at("recipe/sha256", f"{sha} is no version of {where}; expected "
                                                "the current file or one in its git history"))
    return problems


def check_variant(name: str, variant: str) -> list[str]:
    try:
        variants = [r.variant for r in load_all(name)]
    except UserError as exc:
        return [at("recipe/name", f"the recipe does not load ({exc}); expected a valid recipe")]
    if variant in variants:
        return []
    choices = ", ".join(repr(v) + (" (the main experiment)" if not v else "") for v in variants)
    return [at("variant", f"recipe {name} has no variant {variant!r}; expected one of: "
                          f"{choices}")]


def check_smallest_effect(doc: dict) -> list[str]:
    """The margin of the equivalence verdicts is the one the recipe's text (check_recipe: a
    version of the recipe) names for its variant, or the default where it names none: the
    statistics are recomputed with the file's own margin, which must not be widened to call
    an effect "equivalent"."""
    try:
        data = tomllib.loads(doc["recipe"]["text"])
        variant = Result(doc).variant
        measure = {**data.get("measure", {}),
                   **data.get("variants", {}).get(variant, {}).get("measure", {})}
        named = Reader("recipe/text", measure, "measure").percent("smallest_effect", None)
    except (tomllib.TOMLDecodeError, UserError, AttributeError, TypeError):
        return []  # a text no version of the recipe has: check_recipe says so
    expected = stats.DEFAULT_SMALLEST_EFFECT_PCT if named is None else named
    recorded = doc["plan"].get("smallest_effect_pct", stats.DEFAULT_SMALLEST_EFFECT_PCT)
    if recorded == expected:
        return []
    where = ("names none: the default" if named is None
             else "names in [measure] smallest_effect")
    return [at("plan/smallest_effect_pct", f"{recorded:g} is not the smallest effect worth "
                                           f"knowing of the recipe; expected {expected:g}, "
                                           f"what recipe/text {where}")]


# --- the file's place ---------------------------------------------------------------------------

def check_profile(doc: dict) -> list[str]:
    """A profile is named as recipes name theirs (PLAIN_NAME, which the recipe reader holds
    [profiles] to): it goes into the file's name, which a hand-made "quické" would make
    non-ASCII, a name git quotes and a file CI once skipped."""
    profile = doc["profile"]
    if PLAIN_NAME.fullmatch(profile):
        return []
    return [at("profile", f"{profile!r} is no profile name; expected lower-case ASCII letters, "
                          "digits and dashes, as a recipe's [profiles] are named")]


def check_location(doc: dict, path: Path) -> list[str]:
    """data/<recipe>/<name>.json as document.final_path names it: a file cannot pose as another
    recipe's result, nor hide under another name."""
    expected = document.final_path(doc, Path("data"))
    if (path.parent.name, path.name) == (expected.parent.name, expected.name):
        return []
    return [at("(top)", f"the file is {path.parent.name}/{path.name}; expected {expected} "
                        "(document.final_path: recipe/name, started, host/id, profile, variant)")]


# --- the lines ---------------------------------------------------------------------------------

def one_line(text: str) -> str:
    """Control characters escaped (a line cannot forge another, nor a terminal's colours) and a
    long line cut in the middle, keeping the file, the path and what was expected."""
    text = visible(text)
    if len(text) > MAX_LINE:
        text = text[:MAX_LINE * 2 // 3] + " ... " + text[-MAX_LINE // 3:]
    return text
