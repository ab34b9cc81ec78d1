"""Whether a lab VM result shows the hardware's speed or only a mechanism: a result measured under
TCG (an emulated CPU), or with its array's disks on one physical device, is functional only. Its
throughput answers no claim (evidence/claim_verdicts.py), its costs do, and a page says what
command answers its question on real hardware."""

from tuninglab import units
from tuninglab.errors import UserError
from tuninglab.recipes import plan as planner
from tuninglab.recipes.load import command as recipe_command, load
from tuninglab.recipes.raid import member_serials, member_size
from tuninglab.results.result import Result

# Why a lab VM result shows a mechanism but not the hardware's speed: (the lab record's test,
# the reason at length, the reason in a few words).
FUNCTIONAL = ((lambda lab: lab["accelerator"] == "tcg",
               "the lab VM ran under TCG, an emulated CPU", "emulated CPU (TCG)"),
              (lambda lab: lab["shared_physical_device"],
               "its disks shared one physical device of the host", "disks on one device"))


def functional_reasons(doc: dict, short: bool = False) -> list[str]:
    """Each reason a result is functional only (FUNCTIONAL), at length or in a few words."""
    labs = Result.of(doc).labs
    return [brief if short else long for test, long, brief in FUNCTIONAL
            if any(test(lab) for lab in labs)]


def hardware_rerun(doc: dict) -> str:
    """The command that answers a lab VM result's throughput question on real hardware: the
    same recipe on a host with KVM, on disks of their own where the VM's shared one device.
    Empty when the recipe no longer loads."""
    r = Result.of(doc)
    try:
        recipe = load(r.recipe, variant=r.variant)
        points = planner.build(recipe.experiment()).points
    except (UserError, ValueError):
        return ""
    labs = r.labs
    command = recipe_command(r.recipe, r.variant)
    needs = []
    if any(lab.get("accelerator") == "tcg" for lab in labs):
        needs.append("a host with KVM (/dev/kvm)")
    if any(lab.get("shared_physical_device") for lab in labs) or any(p.raid for p in points):
        disks = max(len(member_serials(p)) for p in points)
        size = max((member_size(p) for p in points), key=units.size_bytes)
        command += "".join(f" --device DISK{i}" for i in range(1, disks + 1)) + " --destroy-data"
        needs.append(f"{disks} spare disk{'s' * (disks != 1)} of at least {size} (erased)")
    return f"on {' and '.join(needs) or 'real hardware'}, by: {command}"


def functional_only(doc: dict) -> str | None:
    """Why a result shows a mechanism but not the hardware's speed, or None if it does."""
    return "; ".join(functional_reasons(doc)) or None
