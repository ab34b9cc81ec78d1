"""The device's bytes per transaction as costs (device_read_bytes_per_trx,
device_write_bytes_per_trx): from the run's IO summary of the storage under test, beside the
server's own; absent, never guessed, where no disk was sampled; older results without them
compare none. phase.oltp puts them in a run's summary/cost once the result schema lists them
(the schema test below)."""

import copy
import json

from helpers import DATA
from tuninglab.engine.measure import phase as measure
from tuninglab.results import document
from tuninglab.results.metrics import COST

# Captured: /proc/diskstats deltas of one sandbox over a 15 s phase (sampler.totals' shape).
TOTALS = {"loop0": {"reads": 1200, "writes": 300, "read_bytes": 19660800,
                    "write_bytes": 6553600}}


def test_the_device_cost_is_the_io_summarys_bytes_per_transaction():
    io = measure.io_per_transaction(TOTALS, 400)
    assert measure.device_cost(io) == {"device_read_bytes_per_trx": 49152.0,
                                       "device_write_bytes_per_trx": 16384.0}
    assert measure.device_cost(measure.io_per_transaction({}, 400)) == {}
    assert set(measure.device_cost(io)) <= set(COST)


def test_an_older_result_without_the_device_bytes_compares_none_of_them():
    doc = json.loads((DATA / "zfs-recordsize" / "20261124T074020Z-48806fd0-quick-7875041f.json"
                      ).read_text())
    found = document.recompute(copy.deepcopy(doc))
    for p in found["points"]:
        assert not {"device_read_bytes_per_trx", "device_write_bytes_per_trx"} & set(
            p["stats"].get("cost", {}))


def test_the_result_schema_takes_every_cost_the_engine_writes():
    """Every metrics.COST key is a property of a run's summary/cost in the schema (whose
    additionalProperties is false): a key missing there fails every run's write."""
    schema = document.schema()
    found = []

    def walk(node):
        if isinstance(node, dict):
            props = node.get("properties", {})
            if "server_cpu_us_per_trx" in props and "fsyncs_per_trx" in props:
                found.append(set(props))
            for value in node.values():
                walk(value)
        elif isinstance(node, list):
            for value in node:
                walk(value)
    walk(schema)
    assert found and all(set(COST) <= props for props in found), \
        [sorted(set(COST) - props) for props in found]
