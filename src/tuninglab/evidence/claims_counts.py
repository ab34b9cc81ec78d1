"""How many source results the claims map claims, and how many it explains as not testable here
or not an effect: the claims page's counts, of one source or of all."""
from dataclasses import dataclass
from pathlib import Path

from tuninglab.evidence import claims_map, historical
from tuninglab.evidence.claims_keys import NOT_AN_EFFECT, NOT_TESTABLE


@dataclass(frozen=True)
class Counts:
    """What the map makes of the source results, for the claims page."""
    claims: int          # [[claim]] entries (one result may have two: one per workload)
    claimed: int         # source rows a claim answers (its own, its base, its same_rows)
    not_testable: int    # results that are effects no recipe here can test
    not_an_effect: int   # results that are no effect at all (setups, listings, advice)

    @property
    def results(self) -> int:
        return self.claimed + self.not_testable + self.not_an_effect


def counts(source: str = "", directory: Path | None = None,
           base: Path = historical.HISTORICAL_DIR) -> Counts:
    """The claims, and the source results claimed, not testable here and not an effect: of one
    source (its slug), or of every source ("")."""
    claims, untestable = claims_map.load_map(directory)
    claims = [c for c in claims if c.source == source or not source]
    untestable = [u for u in untestable if u.source == source or not source]
    claimed = set()
    for c in claims:
        _, meta, rows = historical.historical_table(c.source, c.table, base)
        results = set(claims_map.results_of(meta, rows))
        claimed |= {(c.source, c.table, r, c.column) for r in claims_map.rows_of(c)
                    if (r, c.column) in results}
    kinds = [u.kind for u in untestable]
    return Counts(len(claims), len(claimed), kinds.count(NOT_TESTABLE),
                  kinds.count(NOT_AN_EFFECT))
