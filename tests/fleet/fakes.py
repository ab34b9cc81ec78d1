"""Stand-ins for a fleet host the unit tests share (no network): a host's directory of fetched
files as fleet-run.yml leaves it on this side, and the run a result file answers."""

import json

from tuninglab.fleet import fetch

TREE = "/root/tuninglab-fleet/trees/f"


def fetched_dir(tmp, source, written=None, host_id=None):
    """tmp as fleet-run.yml leaves a host's fetched files: the result file (source) in
    results/, and the manifest naming what the host's log said it wrote (default: source in
    the tree's data/doublewrite/) and the host id it reported (default: source's)."""
    doc = json.loads(source.read_text())
    (tmp / "results").mkdir(parents=True, exist_ok=True)
    (tmp / "results" / source.name).write_bytes(source.read_bytes())
    paths = written or [f"{TREE}/data/doublewrite/{source.name}"]
    (tmp / "manifest.json").write_text(json.dumps(
        {"host_id": host_id or doc["host"]["id"], "written": paths}))
    return tmp


def wanted_of(doc, host="db1", project=False, **changed):
    """The fleet run a result file is the answer to: its recipe, variant, profile and host."""
    fields = {"recipe": doc["recipe"]["name"], "profile": doc["profile"],
              "variants": frozenset([doc.get("variant", "")]), "host": host,
              "project": project, **changed}
    return fetch.Wanted(**fields)
