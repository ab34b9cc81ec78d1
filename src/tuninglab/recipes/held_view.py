"""[workload] hold_read_view against the experiment a profile and the command line make of a
recipe (recipes/model.Recipe.experiment): a held read view (engine/measure/read_view.py) is
released within the measured seconds, with seconds left to see the backlog drain, and only a
restart run holds one. Standard library only, as model.py is.
"""

from tuninglab.errors import UserError

# The fewest measured seconds after a held read view's release: its drain needs a few to show.
MIN_DRAIN_S = 5


def check(recipe, profile: str, workload, measure) -> None:
    """A held read view is released within the measured seconds, with seconds left to see the
    backlog drain, and only a restart run holds one: a switchback's blocks share one server,
    whose one view would hold every block's purge."""
    held = workload.hold_read_view
    if not held:
        return
    where = f"{recipe.path}: {recipe.label}: workload.hold_read_view"
    if measure.design != "restart":
        raise UserError(f"{where}: only a restart run holds a read view; expected [measure] "
                        f'design = "restart" (profile {profile} has {measure.design!r})')
    if measure.duration < held + MIN_DRAIN_S:
        raise UserError(f"{where}: the view is released at {held:g} s, but profile {profile} (or "
                        f"--duration) measures {measure.duration:g} s; expected at least "
                        f"{held + MIN_DRAIN_S:g} s, so that the seconds after the release show "
                        "the backlog drain")
