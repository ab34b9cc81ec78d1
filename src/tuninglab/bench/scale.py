"""The site with thousands of contributions (invoke bench --only scale): N result files made
from the project's own, each under another host, in a temporary directory (never data/), spread
over the recipes and then all on one; each time the strict build's time and the chart data the
heaviest topic page carries, as ratios to their targets (60 s, 500 KB)."""

import copy
import hashlib
import json
import re
import tempfile
import time
from datetime import datetime, timedelta
from pathlib import Path

from tuninglab import files
from tuninglab.contrib.check import result_files
from tuninglab.results import calibrations, document
from tuninglab.site import builder, hostviews

BUILD_TARGET_S = 60
PAGE_TARGET_BYTES = 500_000
FIGURE = re.compile(r'data-figure="([^"]*)"')


def run(say=print, n: int = 1000) -> dict:
    """Two shapes of n contributions: spread over every recipe like the project's own results,
    and all on one recipe (the most popular page's worst case)."""
    out = {}
    for shape, recipe in (("spread over the recipes", None), ("all on doublewrite", "doublewrite")):
        say(f"-- {n} contributions {shape}")
        out[recipe or "spread"] = _build(say, n, recipe)
    return out


def _build(say, n: int, recipe: str | None) -> dict:
    with tempfile.TemporaryDirectory(prefix="bench-scale-") as tmp:
        work = Path(tmp)
        made = generate(work / "data", n, recipe)
        say(f"{made} result files generated in a temporary directory (from "
            f"{len(sources(recipe))} in data/)")
        started = time.monotonic()
        builder.build(work / "site", data_dir=work / "data")
        build = time.monotonic() - started
        page, size = heaviest_page(work / "site")
        hosts = host_files(work / "site")
    say(f"site build: {build:.1f}s, {build / BUILD_TARGET_S:.2f} of the {BUILD_TARGET_S} s "
        "target")
    say(f"chart data on the heaviest topic page ({page}): {size / 1000:,.0f} KB, "
        f"{size / PAGE_TARGET_BYTES:.2f} of the {PAGE_TARGET_BYTES // 1000} KB target")
    say(f"per-host files, fetched only when a reader picks a host: {hosts['files']}, the "
        f"largest {hosts['largest'] / 1000:,.0f} KB; the longest host list "
        f"{hosts['largest_index'] / 1000:,.0f} KB")
    return {"files": made, "build_s": build, "page": page, "page_bytes": size, **hosts}


def sources(recipe: str | None = None) -> list[Path]:
    """The result files of data/ (or of one recipe) the contributions are made from; the A/A
    calibration records are no results."""
    return [p for p in result_files([files.DATA_DIR / recipe if recipe else files.DATA_DIR])
            if p.parent.name != calibrations.DIR]


def generate(data: Path, n: int, recipe: str | None = None) -> int:
    """n results: the project's own (of one recipe, or of all), round robin, each as a
    contribution from its own host, an hour apart and earlier than the project's own (the site
    never charts a result dated in the future)."""
    docs = [json.loads(p.read_text()) for p in sources(recipe)]
    for i in range(n):
        doc = copy.deepcopy(docs[i % len(docs)])
        doc["host"]["id"] = hashlib.sha256(f"bench-host-{i}".encode()).hexdigest()[:16]
        when = datetime.fromisoformat(doc["started"]) - timedelta(hours=i + 1)
        doc["started"] = when.isoformat(timespec="seconds")
        doc["contribution"] = {"description": f"bench host {i}: {doc['host']['cpu_model']}",
                               "submitted": doc["started"], "tool": "data.submit"}
        target = document.final_path(doc, data)
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(json.dumps(doc))
    return n


def heaviest_page(site_dir: Path) -> tuple[str, int]:
    """The topic page whose embedded figures (data-figure attributes) weigh the most."""
    sizes = {page.parent.name: sum(len(m) for m in FIGURE.findall(page.read_text()))
             for page in (site_dir / "topics").glob("*/index.html")}
    name = max(sizes, key=sizes.get)
    return name, sizes[name]


def host_files(site_dir: Path) -> dict:
    """The files hostviews wrote: how many hosts' views, the largest, the largest index."""
    sizes = {"files": 0, "largest": 0, "largest_index": 0}
    for path in (Path(site_dir) / hostviews.DIR).rglob("*.json"):
        field = "largest_index" if path.name == "index.json" else "largest"
        sizes[field] = max(sizes[field], path.stat().st_size)
        sizes["files"] += path.name != "index.json"
    return sizes
