"""Evidence sets: which results answer a comparison together.

A comparison's evidence is every valid result of the same experiment (recipe and variant, on a
recipe version whose experiment is the current one), on the same server (flavour and major
version), from one host class. A host class is what the hardware is (CPU model and cores, memory,
virtualisation, the kind of storage and its flush speed band), not a random id: every VM of the
kind the project runs on is one class, named for what it is. A contributed result makes its own
class beside the project's: contributions pool with each other, never into the project's.

A sitting is one machine instance (its salted host id): results of one sitting share that
machine's state, so pooling (results/pooling.py) counts sittings as well as results. All the
contributions of a class count as one sitting, whatever host ids they carry (Result.sitting).

A result the current recipe would no longer run as it ran (its experiment changed since, it ran
without the memory cap the recipe now sets, its loop device went through the host's page cache)
is superseded: kept in data/, left out of the
verdict, shown only as older evidence.
"""

from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from tuninglab.evidence import functional
from tuninglab.evidence import result_files, servers
from tuninglab.evidence.host_class import HostClass, host_class, server_of
from tuninglab.evidence.superseded import superseded_why
from tuninglab.errors import UserError
from tuninglab.recipes.load import recipe_path
from tuninglab.results import calibrations
from tuninglab.results.result import Result


@dataclass(frozen=True)
class EvidenceSet:
    recipe: str
    variant: str
    server: str                 # "mariadb 10.11"
    host_class: HostClass
    results: tuple              # current results (Results), oldest first
    superseded: tuple           # (result, why) pairs, oldest first

    def __post_init__(self):
        # A set made of bare documents (a test's, a caller's own) reads as one made by
        # evidence_sets: its results are Results, wrapped here once.
        object.__setattr__(self, "results", tuple(map(Result.of, self.results)))
        object.__setattr__(self, "superseded",
                           tuple((Result.of(r), why) for r, why in self.superseded))

    @property
    def sittings(self) -> int:
        return len({r.sitting for r in self.results})

    @property
    def latest(self) -> Result | None:
        return self.results[-1] if self.results else None


# --- the sets ---------------------------------------------------------------------------------

def evidence_sets(recipe: str, variant: str = "") -> list[EvidenceSet]:
    """Every evidence set of a recipe's variant: the project's own classes first, a whole
    machine before the lab VM and before a duet's half machine (a source's claim ran on a whole
    one), then by server in the pages' order (servers.py: the reference first, so a result on a
    new server adds a column rather than moving the page), then a lab VM whose throughput is
    the hardware's (KVM, one disk) before one whose is not, then by how many current results
    they hold (most first). Gathered once while the evidence stays as it is (evidence_version)."""
    return list(_evidence_sets(recipe, variant, evidence_version(recipe)))


def evidence_version(recipe: str) -> tuple:
    """What a recipe's evidence rests on that can change in one process (`docs.serve`
    rebuilds while results, calibration records and recipes change): the data directory, and
    the last change of the recipe's result files, of the calibration records and of the
    recipe: what every cache of sets and verdicts is keyed on."""
    data = Path(result_files.DATA_DIR)
    try:
        changed = recipe_path(recipe).stat().st_mtime
    except (UserError, OSError):
        changed = None
    return (str(data), result_files.stamp(data / recipe),
            result_files.stamp(data / calibrations.DIR), changed)


@lru_cache(maxsize=512)
def _evidence_sets(recipe: str, variant: str, _version: tuple) -> tuple[EvidenceSet, ...]:
    groups: dict[tuple, tuple[list, list]] = {}
    for doc in result_files.results_for(recipe, variant):
        current, older = groups.setdefault((server_of(doc), host_class(doc)), ([], []))
        why = superseded_why(doc)
        (older.append((doc, why)) if why else current.append(doc))
    sets = [EvidenceSet(recipe, variant, server, cls, tuple(_oldest_first(cur)),
                        tuple(sorted(old, key=lambda x: x[0].started)))
            for (server, cls), (cur, old) in groups.items()]
    return tuple(sorted(sets, key=lambda s: (s.host_class.contributed, s.host_class.lab,
                                             s.host_class.duet, servers.rank(s.server),
                                             not _at_hardware_speed(s), -len(s.results),
                                             s.host_class.name)))


def _at_hardware_speed(s: EvidenceSet) -> bool:
    """Whether the set has a current result whose throughput is the hardware's: not a lab VM
    under TCG, nor an array on one device (functional.functional_only)."""
    return s.latest is not None and functional.functional_only(s.latest) is None


def _oldest_first(results: list[Result]) -> list[Result]:
    return sorted(results, key=lambda r: r.started)


# --- a machine's class ------------------------------------------------------------------------

def machine_of(host_id: str, duet: bool = False) -> HostClass | None:
    """The host class of the machine with this id (machine_record); None when data/ holds
    nothing of it (a new machine's class is known once it has measured something). duet: the
    class of a duet on that machine (each server on half of it) instead."""
    doc = machine_record(host_id)
    return None if doc is None else host_class(doc, duet)


def machine_record(host_id: str):
    """What names the class of the machine with this id: its latest A/A calibration record
    (`invoke lab.noise`), else its latest result measured outside the lab VM; None."""
    data = result_files.DATA_DIR

    def mine(docs):
        return [d for d in docs if Result.of(d).host_id == host_id
                and not Result.of(d).contributed and not host_class(d).lab]
    records = mine(calibrations.load_all(data))
    if records:
        return max(records, key=lambda d: d["measured"])
    results = mine(d for path in result_files.result_dirs(data)
                   for d in result_files.results_for(path.name, None, data))
    return max(results, key=lambda r: r.started) if results else None
