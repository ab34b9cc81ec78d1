"""Stand-ins for a fleet host the unit tests share (no network): a host's result file, a
host's directory of fetched files as fleet-run.yml leaves it on this side, and the run a
result file answers."""

import json

from helpers import DATA, committed_data_files
from tuninglab.fleet import fetch

TREE = "/root/tuninglab-fleet/trees/f"


def source_file(tmp, **changes):
    """A committed doublewrite result as a host's file in tmp, with top-level changes made to
    it; (its path, its document)."""
    name = next(p for p in committed_data_files() if p.startswith("doublewrite/"))
    doc = json.loads((DATA / name).read_text())
    doc.update(changes)
    source = tmp / name.split("/")[1]
    source.write_text(json.dumps(doc))
    return source, doc


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
    """The fleet run a result file is the answer to: its recipe, variant, profile and host, and
    the revision and recipe file the fleet shipped."""
    fields = {"recipe": doc["recipe"]["name"], "profile": doc["profile"],
              "variants": frozenset([doc.get("variant", "")]), "host": host,
              "revision": doc["software"]["project"]["revision"],
              "recipe_sha256": doc["recipe"]["sha256"], "project": project, **changed}
    return fetch.Wanted(**fields)
