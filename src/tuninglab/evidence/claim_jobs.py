"""The runs that would answer the open claims (claim_status.Status): one per recipe variant,
ordered by expected answers per hour, and the count of the claims no run here answers, by what
keeps them from one; the plan `invoke claims.rerun` follows and `invoke claims.status` prints."""

from dataclasses import dataclass

from tuninglab.evidence.claim_status import Status
from tuninglab.recipes.model import label as recipe_label


@dataclass(frozen=True)
class Job:
    """One recipe variant to run for the open claims it answers."""
    recipe: str
    variant: str
    statuses: tuple             # the open claims it answers (Status)

    @property
    def label(self) -> str:
        return recipe_label(self.recipe, self.variant)

    @property
    def seconds(self) -> float | None:
        """The time of its slowest claim's reach (one run answers them all), None if unknown."""
        times = [s.reach.seconds for s in self.statuses if s.reach]
        return max(times) if len(times) == len(self.statuses) else None

    @property
    def per_hour(self) -> float:
        """Expected answers per hour (0 when its time is unknown: it goes last)."""
        return 0.0 if not self.seconds else len(self.statuses) / (self.seconds / 3600)


def jobs(found: list[Status]) -> list[Job]:
    """The open claims grouped by recipe variant, in order of expected answers per hour (the
    ones whose time is unknown last, in the map's order)."""
    groups: dict[tuple, list] = {}
    for s in found:
        if s.open:
            groups.setdefault((s.claim.recipe, s.claim.variant), []).append(s)
    out = [Job(recipe, variant, tuple(group)) for (recipe, variant), group in groups.items()]
    return sorted(out, key=lambda j: -j.per_hour)


def blocked(found: list[Status]) -> dict[str, int]:
    """The unanswered claims no run here answers, counted by what keeps them from one."""
    out: dict[str, int] = {}
    for st in found:
        if not st.answered and not st.open:
            out[st.block] = out.get(st.block, 0) + 1
    return out
