"""A dataset as a result file records it ("dataset"): one form for the engine that writes it
(engine/run/record.py) and for data.check, which rebuilds it from the recipe to hold a result
to its experiment (contrib/experiment.py). Standard library only, as model.py."""


def recorded(d) -> dict:
    """The recipe's dataset (model.Dataset) as a result records it: the TPC-C-like
    warehouses, else sysbench's tables, with a scan's device rate where it was sized to one."""
    if d.warehouses:  # sysbench's tables do not apply to the TPC-C-like workload
        return {"shape": d.shape, "warehouses": d.warehouses,
                "buffer_pool_size": d.buffer_pool_size}
    sized = {} if d.device_read_mib_s is None else {  # a scan sized to its device
        "read_seconds": d.read_seconds, "device_read_mib_s": d.device_read_mib_s}
    return {"shape": d.shape, "tables": d.tables, "table_size": d.table_size,
            "buffer_pool_size": d.buffer_pool_size, **sized}
