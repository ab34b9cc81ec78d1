"""Stand-ins for a fleet host the unit tests share (no network): the remote side of
fetch.results, and the run a result file answers."""

from tuninglab.contrib import check
from tuninglab.fleet import fetch


class FakeRemote:
    """The calls fetch.results makes, on a local file standing for the host's; written: the
    paths its log names (default: the source's, in the tree's data/doublewrite/)."""

    tree = "/root/tuninglab-fleet/trees/f"

    def __init__(self, source, written=None):
        self.source = source
        self.paths = written or [f"{self.tree}/data/doublewrite/{source.name}"]

    def written(self, run_id):
        return self.paths

    def results_dir(self, recipe):
        return f"{self.tree}/data/{recipe}"

    def fetch(self, remote_path, local, limit):
        assert limit == check.MAX_BYTES   # the bound is the remote side's (test_fleet_trust.py)
        local.write_bytes(self.source.read_bytes())
        return local


def wanted_of(doc, host="db1", project=False, **changed):
    """The fleet run a result file is the answer to: its recipe, variant, profile and host."""
    fields = {"recipe": doc["recipe"]["name"], "profile": doc["profile"],
              "variants": frozenset([doc.get("variant", "")]), "host": host,
              "host_id": doc["host"]["id"], "project": project, **changed}
    return fetch.Wanted(**fields)
