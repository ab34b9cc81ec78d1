"""Superseded results: a result the current recipe would no longer run as it ran (its experiment
changed since, it ran without the memory cap the recipe now sets, its sandbox's loop device
went through the host's page cache, or its runs measured a fresh redo log's first pass) is kept
in data/ but left out of verdicts (sets.py) and of the charts while its host class has a
current one."""

from functools import lru_cache

from tuninglab.errors import UserError
from tuninglab.recipes import load
from tuninglab.results import redo
from tuninglab.results.result import Result


def _experiment(recipe) -> tuple:
    """What a recipe version asks, without its words and its timing: the experiment proper.
    The sweep's values are left out (a point added later leaves the others comparable); a
    regime check's reason is words."""
    regime = tuple(tuple(sorted((k, v) for k, v in dict(c).items() if k != "why"))
                   for c in recipe.regime)
    sweep = (recipe.sweep.setting, recipe.sweep.baseline)
    return (recipe.needs, recipe.dataset, recipe.server_settings, recipe.workload, sweep,
            recipe.storage, recipe.raid, recipe.lab, recipe.zfs, regime, recipe.allocator,
            recipe.cpus)


def _current(name: str, variant: str):
    """The recipe as it is now: read again when its file changes (`docs.serve` rebuilds in one
    process while a recipe is edited)."""
    try:
        stamp = load.recipe_path(name).stat().st_mtime
    except (UserError, OSError):
        return None
    return _loaded(name, variant, stamp)


@lru_cache(maxsize=256)
def _loaded(name: str, variant: str, _stamp: float):
    try:
        return load.load(name, variant=variant)
    except UserError:
        return None


@lru_cache(maxsize=1024)
def _recorded(name: str, variant: str, text: str):
    try:
        return next((x for x in load.from_text(name, text) if x.variant == variant), None)
    except UserError:
        return None


def superseded_why(doc: dict) -> str | None:
    """Why the current recipe would not run this result's experiment as it ran, or None."""
    r = Result.of(doc)
    current = _current(r.recipe, r.variant)
    if current is None:
        return "the recipe or its variant is gone"
    recorded = _recorded(r.recipe, r.variant, r.raw["recipe"].get("text", ""))
    if current.dataset.memory_limit and not (r.memory or {}).get("capped") and not r.labs:
        return "it ran without the memory cap the recipe now sets: the OS may have cached data"
    if recorded is None:
        return "its recipe version no longer loads"
    if _experiment(recorded) != _experiment(current):
        return "the recipe's experiment changed since (its settings, load, data or checks)"
    if not r.labs and _page_cached_loop(r):
        return ("its loop device went through the host's page cache, a second cache outside "
                "the memory cap: some of its device reads may have come from RAM")
    if not r.labs and redo.sizes_log(r.raw) and not redo.written_over(r.raw):
        return ("its redo log was new at the run's size and never written: the runs measured "
                "its first pass, where each fsync also converts the file's unwritten blocks")
    return None


def _page_cached_loop(r: Result) -> bool:
    """Whether a run's sandbox was a loop device attached buffered: a backing file (a named
    device has none) without direct IO (engine/storage/loop.py; files from before it record
    no loop_direct_io). The lab VM's runs are its guest's, whose disks are qemu's."""
    return any(storage.get("sandbox") and storage.get("backing_file")
               and storage.get("loop_direct_io") is not True
               for p in r.points for run in p.runs
               for storage in (run.get("storage") or {}, run.get("logs_storage") or {}))
