"""The rule between a tpcc workload and its dataset, which both the recipe's tables (rules.py) and
a profile's overrides (model.Recipe.experiment) must keep. Standard library only, as model.py."""

from tuninglab.recipes.reader import Reader


def check_warehouses(top: Reader, dataset, workload, sweep):
    """A tpcc workload's scale is [dataset] warehouses; no other workload has one."""
    if not workload.is_tpcc:
        if dataset.warehouses is not None:
            top.fail("dataset.warehouses", 'only a tpcc workload loads warehouses (tool = "tpcc")')
        return
    if dataset.warehouses is None:
        top.fail("dataset.warehouses", "a tpcc workload needs its scale: the number of "
                                       "warehouses to load, a whole number >= 1")
    actives = [dict(workload.options)["active_warehouses"]]
    if sweep.setting == "workload.active_warehouses":
        actives += sweep.values
    for value in actives:
        if int(value) > dataset.warehouses:
            top.fail("workload.options.active_warehouses",
                     f"{value} is more than the {dataset.warehouses} warehouses loaded")
