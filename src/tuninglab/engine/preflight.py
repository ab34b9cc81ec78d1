"""Everything a run checks before anything starts: the recipe and its variant, the host's
abilities, --device, the server binary, sysbench and every server option the recipe sets."""

import os

from tuninglab.engine import server as srv
from tuninglab.engine.server_options import check_known
from tuninglab.engine.storage import guard
from tuninglab.engine.workloads import sysbench
from tuninglab.errors import UserError
from tuninglab.recipes import plan as planner
from tuninglab.recipes.load import load


def prepare(name: str, opts):
    """Everything that can fail on bad input, checked before anything runs."""
    recipe = load(name, opts.recipes_dir, opts.variant)
    experiment = recipe.experiment(opts.profile, opts.repeats, opts.duration, opts.warmup)
    check_needs(recipe)
    plan = planner.build(experiment, opts.seed)
    opts.devices = check_devices(recipe, opts, plan.points)
    binary = srv.find(opts.mysqld)
    sysbench.executable()
    check_options(recipe, experiment, binary)
    return plan, binary


def check_needs(recipe) -> None:
    if "root" in recipe.needs and os.geteuid() != 0:
        raise UserError(f"recipe {recipe.name} needs root (it changes storage settings); "
                        "run it with sudo")
    missing = [n for n in recipe.needs if n != "root"]
    if missing:
        raise UserError(f"recipe {recipe.name} needs {', '.join(missing)}, which this version "
                        "of the engine cannot provide yet")


def check_devices(recipe, opts, points) -> tuple:
    """--device: one device for a recipe with [storage], one per member (and spare) in the
    lab VM; never a device in use. Returns the resolved device paths."""
    if not opts.devices:
        return ()
    if not recipe.in_lab_vm:
        if not recipe.storage:
            raise UserError(f"recipe {recipe.label} runs in the work directory and takes no "
                            "--device")
        separate = any(p.storage.get("logs") == "separate" for p in points)
        if len(opts.devices) != 1 + separate:
            what = "two devices, for the data and for the redo log," if separate else \
                "one device,"
            raise UserError(f"recipe {recipe.label} tests {what} got {len(opts.devices)}: "
                            f"{', '.join(opts.devices)}")
    resolved = tuple(guard.check_device(d, opts.destroy_data) for d in opts.devices)
    # Resolved: /dev/disk/by-id/... and /dev/sdb are one device.
    if len(set(resolved)) != len(resolved):
        raise UserError(f"recipe {recipe.label}: a device is named twice in --device "
                        f"({', '.join(opts.devices)})")
    if recipe.in_lab_vm:
        from tuninglab.engine.lab import members  # noqa: PLC0415
        members.check(resolved, points, recipe.label)
    return resolved


def check_options(recipe, experiment, binary) -> None:
    known = binary.variables
    check_known(binary.map(dict(recipe.server_settings)), known, binary.label,
                f"{recipe.path}: server.settings")
    if experiment.sweep.server_option:
        check_known(binary.map({experiment.sweep.setting: experiment.sweep.baseline}), known,
                    binary.label, f"{recipe.path}: sweep.setting")
