"""recipes/<name>/recipe.toml -> frozen dataclasses, with errors that name the file and the key:
finding the recipe files, reading them, merging each [variants.<name>] over the main experiment
and building a Recipe from the parsed tables (tables.py, lab.py) once the checks across
them (rules.py) pass.

TOML, not YAML: YAML 1.1 reads MySQL's OFF as a boolean.
"""

import dataclasses
import functools
import hashlib
import re
import tomllib
from pathlib import Path

from tuninglab import files
from tuninglab.errors import UserError
from tuninglab.recipes import defaults_sets, regime, rules
from tuninglab.recipes.lab import parse_lab
from tuninglab.recipes.model import NEEDS, PLAIN_NAME, VARIANT_KEYS, Recipe
from tuninglab.recipes.reader import Reader
from tuninglab.recipes.tables import (
    parse_allocator,
    parse_dataset,
    parse_measure,
    parse_profiles,
    parse_raid,
    parse_server_cpus,
    parse_settings,
    parse_storage,
    parse_sweep,
    parse_workload,
    parse_zfs,
)

# A recipe is a directory of recipes/ (never a path out of it), and its name is the result's
# recipe.name, which result.schema.json holds to this.
RECIPE_NAME = re.compile(r"[a-z0-9][a-z0-9-]{0,63}")
# The largest recipe file, in bytes: a result carries its recipe's whole text, and data.check
# (contrib/check.py) refuses a result whose recipe/text is longer, so a larger recipe is
# refused here, before it runs, not after.
MAX_RECIPE_TEXT = 64 * 1024


def check_name(name: str) -> None:
    if not RECIPE_NAME.fullmatch(str(name)):
        raise UserError(f"recipe {str(name)!r}: expected a plain name of lower-case letters, "
                        "digits and dashes, a directory of recipes/ (`invoke recipe.list` "
                        "lists the recipes)")


def recipe_path(name: str, recipes_dir: Path = files.RECIPES_DIR) -> Path:
    check_name(name)
    path = Path(recipes_dir) / name / "recipe.toml"
    if not path.is_file():
        known = ", ".join(list_names(recipes_dir)) or "none"
        raise UserError(f"no recipe '{name}': {path} does not exist (recipes: {known})")
    return path


def list_names(recipes_dir: Path = files.RECIPES_DIR) -> list[str]:
    return sorted(p.parent.name for p in Path(recipes_dir).glob("*/recipe.toml"))


def load(name_or_path, recipes_dir: Path = files.RECIPES_DIR, variant: str = "") -> Recipe:
    """The recipe's main experiment, or one of its variants."""
    every = load_all(name_or_path, recipes_dir)
    for recipe in every:
        if recipe.variant == variant:
            return recipe
    known = ", ".join(r.variant for r in every if r.variant)
    raise UserError(f"recipe {name_or_path} has no variant {variant!r} "
                    f"(variants: {known or 'none'})")


def load_all(name_or_path, recipes_dir: Path = files.RECIPES_DIR) -> list[Recipe]:
    """The main experiment, then each [variants.<name>]: the same question asked with another
    workload or storage, each run and saved as an experiment of its own."""
    path = Path(name_or_path)
    if not path.suffix == ".toml":
        path = recipe_path(str(name_or_path), recipes_dir)
    return from_bytes(read_bounded(path), path)


def from_text(name: str, text: str, recipes_dir: Path = files.RECIPES_DIR) -> list[Recipe]:
    """Every experiment of a recipe's text as a result records it (recipe/text): a version
    of recipes/<name>/recipe.toml that may no longer be the file's (data.check reads the one
    a result ran). Errors name the file the text is a version of."""
    check_name(name)
    raw = text.encode("utf-8", "surrogatepass")  # a lone surrogate: from_bytes refuses it
    if len(raw) > MAX_RECIPE_TEXT:
        raise UserError(f"recipe {name}: a text of more than {MAX_RECIPE_TEXT:,} bytes")
    return from_bytes(raw, Path(recipes_dir) / name / "recipe.toml")


def from_bytes(raw: bytes, path: Path) -> list[Recipe]:
    """The main experiment and each variant of a recipe file's bytes."""
    return list(_parsed(raw, Path(path)))


@functools.lru_cache(maxsize=256)
def _parsed(raw: bytes, path: Path) -> tuple[Recipe, ...]:
    # Parsed once per text: a site build reads each recipe (and each result's recorded text)
    # hundreds of times, and a Recipe is frozen. A refused text raises, and is never cached.
    try:
        data = tomllib.loads(raw.decode("utf-8"))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise UserError(f"{path}: not valid TOML: {exc}") from None
    return tuple(from_data(data, raw, path))


def from_data(data: dict, raw: bytes, path: Path) -> list[Recipe]:
    """The main experiment and each variant of a recipe's parsed TOML (raw: its bytes, which
    the Recipe keeps with their hash)."""
    variants = Reader(path, data).table("variants", required=False)
    main = {k: v for k, v in data.items() if k != "variants"}
    out = [_build(main, path, raw)]
    for name in variants.data:
        if not PLAIN_NAME.fullmatch(name):
            variants.fail(name, "expected a variant name of lower-case letters, digits and dashes")
        table = variants.table(name)
        table.only(*VARIANT_KEYS)
        out.append(_build(_merged(main, table.data), path, raw, variant=name))
    return out


def read_bounded(path: Path) -> bytes:
    """The recipe file's bytes, at most MAX_RECIPE_TEXT of them (never more read)."""
    try:
        with open(path, "rb") as f:
            raw = f.read(MAX_RECIPE_TEXT + 1)
    except OSError as exc:
        raise UserError(f"{path}: cannot read the recipe: {exc.strerror}") from None
    if len(raw) > MAX_RECIPE_TEXT:
        raise UserError(f"{path}: more than {MAX_RECIPE_TEXT:,} bytes; expected a recipe of at "
                        f"most {MAX_RECIPE_TEXT:,} bytes (data.check's limit on a result's "
                        "recipe/text)")
    return raw


def _merged(base: dict, over: dict, whole=("workload",)) -> dict:
    """base with over's keys replaced; tables merge key by key, except a workload (a scan
    shares no keys with sysbench) and arrays, which are replaced whole."""
    out = dict(base)
    for key, value in over.items():
        if isinstance(value, dict) and isinstance(base.get(key), dict) and key not in whole:
            out[key] = _merged(base[key], value, whole=())
        else:
            out[key] = value
    return out


def _build(data, path, raw, variant="") -> Recipe:
    """Each table parsed alone, the rules across tables applied, the Recipe built."""
    top = Reader(path, data, f"variants.{variant}" if variant else "")
    top.only("title", "question", "topic", "needs", "dataset", "server", "workload", "sweep",
             "measure", "profiles", "storage", "raid", "lab", "zfs", "regime", "defaults")
    t = rules.apply(_parse(top))
    return Recipe(
        name=path.parent.name, path=path, sha256=hashlib.sha256(raw).hexdigest(),
        text=raw.decode("utf-8"), title=top.get("title", str), question=top.get("question", str),
        topic=top.get("topic", str, path.parent.name), needs=t.needs,
        dataset=t.dataset, server_settings=parse_settings(top.table("server", False)),
        workload=t.workload, sweep=t.sweep,
        measure=parse_measure(top.table("measure"), t.workload.timed),
        profiles=parse_profiles(top.table("profiles", False)), storage=t.storage, raid=t.raid,
        lab=t.lab, zfs=t.zfs, variant=variant, regime=regime.parse(top, t.sweep.values),
        allocator=t.allocator, cpus=t.cpus)


def _parse(top: Reader) -> rules.Tables:
    """The tables the rules look at, each parsed alone, in the order their errors come."""
    needs = top.get("needs", list, [])
    for need in needs:
        if not isinstance(need, str) or need not in NEEDS:
            top.fail("needs", f"unknown need {need!r} (expected some of: {', '.join(sorted(NEEDS))})")
    storage = parse_storage(top.table("storage", required=False))
    raid_table = top.table("raid", required=False)
    raid = parse_raid(raid_table)
    lab = parse_lab(top.table("lab")) if "lab" in top.data else ()
    zfs = parse_zfs(top.table("zfs")) if "zfs" in top.data else ()
    sweep_table = top.table("sweep")
    defaults = top.table("defaults", required=False)
    sweep = dataclasses.replace(parse_sweep(sweep_table), sets=defaults_sets.parse(defaults),
                                read_back=defaults_sets.read_back(defaults))
    workload = parse_workload(top.table("workload"))
    server = top.table("server", False)
    return rules.Tables(top, sweep_table, raid_table, tuple(needs), storage, raid, lab, zfs,
                        sweep, workload, parse_allocator(server), parse_server_cpus(server),
                        parse_dataset(top.table("dataset")))


def command(name: str, variant: str) -> str:
    """The command that runs a recipe variant."""
    return f"invoke recipe {name}" + (f" --variant {variant}" if variant else "")
