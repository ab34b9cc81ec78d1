"""The result files as the site lists and serves them: the Results page's rows, the kernels
table's groups, and every file copied into the built site for the pages to link to. The files
are found and loaded by evidence/result_files.py (statistics recomputed, future-dated ones left
out of the charts)."""

from pathlib import Path

from tuninglab import files
from tuninglab.evidence import result_files
from tuninglab.evidence.result_files import FILES, future, result_dirs, results_for
from tuninglab.site.describe import host_description, shorten, software_text


def by_kernel(data_dir: Path | None = None) -> list[dict]:
    """Every result file grouped by the kernel its runs measured on: the host's, or the lab
    VM's guest kernel (with its accelerator). Newest first within a kernel. A listing of files,
    as the Results page is (invalid ones count), but without those dated in the future."""
    groups = {}
    for directory in result_dirs(data_dir or result_files.DATA_DIR):
        for r in results_for(directory.name, variant=None, data_dir=data_dir, listing=True):
            if future(r):
                continue
            kernels = {(lab.get("kernel", "?"), f"lab VM ({lab['accelerator']})")
                       for lab in r.labs} or {(r.software["kernel"], "host")}
            for kernel, where in kernels:
                group = groups.setdefault((kernel, where), {"kernel": kernel, "where": where,
                                                            "recipes": set(), "results": 0,
                                                            "latest": ""})
                group["recipes"].add(r.recipe)
                group["results"] += 1
                group["latest"] = max(group["latest"], r.date)
    return [{**g, "recipes": sorted(g["recipes"])}
            for _, g in sorted(groups.items(), key=lambda kv: kv[0])]


def publish(site_dir: Path, data_dir: Path | None = None) -> int:
    """Copy every result file into the built site (FILES), byte for byte: the evidence the
    pages link to, the files the pages list (files.listing: never a link nor a FIFO). Returns
    how many."""
    return sum(copy_into(Path(site_dir) / FILES / directory.name,
                         files.listing(directory, ".json")[0])
               for directory in result_dirs(Path(data_dir or result_files.DATA_DIR)))


def copy_into(out: Path, paths) -> int:
    """Copy regular files byte for byte into directory out (made if missing), read as
    files.read_regular reads them: one swapped for a link or a FIFO since it was listed is left
    out (the build warns: result_files.unread). Returns how many."""
    out.mkdir(parents=True, exist_ok=True)
    count = 0
    for path in sorted(paths):
        try:
            data = files.read_regular(path, files.MAX_DATA_BYTES)
        except files.NotRegular:
            continue
        (out / path.name).write_bytes(data)
        count += 1
    return count


def results_index(data_dir: Path | None = None) -> list[dict]:
    """One row per result file, by recipe and variant, newest first: where it ran, on what
    software, and whether the project ran it or someone contributed it. Free text is cut at
    200 characters: a table row, not the file."""
    data_dir = data_dir or result_files.DATA_DIR  # at call time, so a test can point it elsewhere
    rows = []
    for directory in result_dirs(data_dir):
        for r in sorted(results_for(directory.name, variant=None, data_dir=data_dir,
                                    listing=True), key=result_files.started, reverse=True):
            contribution = r.contribution
            rows.append({
                "recipe": directory.name, "variant": r.variant, "file": r.file,
                "profile": r.profile, "started": r.started[:16].replace("T", " "),
                "host": f"{shorten(host_description(r), 200)}; id {r.host_id[:8]}",
                "software": software_text(r),
                "contributed": contribution is not None,
                "submitted": str((contribution or {}).get("submitted", ""))[:10],
                "description": shorten(r.description or "", 200),
                "invalid": shorten("; ".join([*r.invalid, *filter(None, [future(r)])]), 300)})
    return sorted(rows, key=lambda r: (r["recipe"], r["variant"]))  # stable: newest first
