"""Texts about a result file: its host, software, device baseline and verdicts; and esc, the
escaping of any text from a data file put in a figure. (Why a lab VM result is functional only
is evidence/functional.py's.)

Every text that comes from a data file is HTML-escaped in a figure: plotly renders a few tags in
labels, and contributed files must not be able to inject any. Its format characters are made
visible (plain): escaping does not stop a bidi control from reordering what a reader sees.
"""

import html

from tuninglab.errors import UserError
from tuninglab.evidence import servers
from tuninglab.evidence.host_class import CONTRIBUTED, hardware, host_class
from tuninglab.recipes.load import from_text
from tuninglab.results.ratio import Ratio
from tuninglab.results.result import Point, Result
from tuninglab.units import human_seconds
from tuninglab.visible import plain


# A category label longer than this is broken in two on a chart's axis: plotly draws a tick
# label on one line, and one that is not turned runs off the side of a phone's chart.
TICK_CHARS = 16


def esc(text) -> str:
    # Plotly reads &lt; &gt; &amp; and numeric references in labels, but not &quot;: a quote
    # becomes &#34;, which shows as the quote it is.
    return html.escape(plain(str(text)), quote=True).replace("&quot;", "&#34;")


def series_name(doc: dict) -> str:
    r = Result.of(doc)
    return esc(f"{r.cpu_model or 'unknown CPU'} ({r.host_id[:8]}), {r.server}, {r.profile}, "
               f"{r.date}")


# Texts below are plain (unescaped): callers escape them where they put them on the page.


def host_description(doc: dict) -> str:
    """The machine a result ran on: CPU, cores, memory and virtualisation; for a lab VM
    result, the guest first (what the runs measured), then the host that ran it."""
    r = Result.of(doc)
    virtualization = r.host.get("virtualization")
    host = ", ".join(hardware(r) + ([f"virtualised ({virtualization})"]
                                     if virtualization and virtualization != "none" else []))
    guest = lab_text(r)
    return f"{guest}; on host {host}" if guest else host


def _values(labs: list[dict], key: str) -> list:
    return sorted({lab.get(key) for lab in labs if lab.get(key) is not None})


def lab_text(doc: dict) -> str | None:
    """The lab VM its runs measured in: accelerator, CPU model, vCPUs and memory (older
    results did not record the guest's CPU model), or None for a result from the host."""
    labs = Result.of(doc).labs
    if not labs:
        return None
    parts = [f"lab VM ({'/'.join(a.upper() for a in _values(labs, 'accelerator'))})",
             " / ".join(_values(labs, "cpu_model")) or "guest CPU model not recorded"]
    if _values(labs, "cpus"):
        parts.append(f"{'/'.join(map(str, _values(labs, 'cpus')))} vCPUs")
    if _values(labs, "memory_bytes"):
        # Kernels reserve different amounts: each size once, as the reader sees it.
        sizes = dict.fromkeys(f"{m / 2**30:.1f} GiB" for m in _values(labs, "memory_bytes"))
        parts.append("/".join(sizes))
    return ", ".join(parts)


def software_text(doc: dict) -> str:
    """Server, sysbench and kernel: the lab VM guest's kernels for a result measured there."""
    r = Result.of(doc)
    guest = ", ".join(_values(r.labs, "kernel"))
    kernel = f"guest kernel {guest}" if guest else f"kernel {r.software.get('kernel') or '?'}"
    return f"{r.server}, sysbench {r.software.get('sysbench') or '?'}, {kernel}"


def shorten(text: str, limit: int = 60) -> str:
    """Cut before escaping, so an entity is never cut in half; hovers keep the whole text."""
    return text if len(text) <= limit else text[:limit - 1].rstrip() + "\u2026"


def host_name(doc: dict, cut: bool = True) -> str:
    """A host's series name: the contributor's own description, else its host class and server;
    after the name a fleet run's inventory gave it (fleet.run), if any. The server is never
    cut: a long CPU name is, so that one host's series on two servers keep two names. A
    contribution's name always begins with "contributed: ": a description or fleet name that
    reads as the project's own ("(project)" in look-alike letters) is still marked."""
    r = Result.of(doc)
    mark = CONTRIBUTED if r.contributed else ""  # before the cut, never cut itself
    named = f"{r.fleet_host}: " if r.fleet_host else ""
    if r.description:
        return mark + (shorten(named + r.description) if cut else named + r.description)
    server = f", {r.server}"
    name = named + host_class(r).short
    return mark + (shorten(name, 60 - len(server)) if cut else name) + server


def distinct_names(docs: list) -> list[str]:
    """Each host's series name (host_name), told apart where two read alike: in full where
    the cut made them alike (two lab VM classes that differ past the cut), then with the
    host's id."""
    names = [host_name(d) for d in docs]
    names = [host_name(d, cut=False) if names.count(n) > 1 else n for d, n in zip(docs, names)]
    return [f"{n} ({Result.of(d).host_id[:8]})" if names.count(n) > 1 else n
            for d, n in zip(docs, names)]


def uncapped(doc: dict) -> bool:
    """Whether a disk-bound result ran without the memory model (engine/server/memory.py): before it
    existed, or on a host that could not give it."""
    r = Result.of(doc)
    return r.shape == "disk-bound" and not (r.memory or {}).get("capped")


def baseline_text(doc: dict) -> str:
    r = Result.of(doc)
    fsync, iops = r.device("fsync_per_s"), r.device("randwrite_16k_iops")
    if fsync is None:
        return "device baseline: fsync/s not measured, so throughput cannot be normalised"
    writes = "random 16K writes not measured" if iops is None else \
        f"{iops:,.0f} random 16K writes/s"
    return f"device baseline (fio): {fsync:,.0f} fsync/s, {writes}"


def verdict_text(point: dict | Point) -> str:
    """A point's comparison to the baseline in words: the ratio, its 95% interval and the
    verdict (Ratio.text); "baseline" for the baseline itself."""
    ratio = point.ratio if isinstance(point, Point) else Ratio.of(point["stats"].get("ratio"))
    return "baseline" if ratio is None else ratio.text()


# plan/overrides' keys (engine/run/record.py): the command line's flag and the profile's field.
OVERRIDE_FLAGS = (("repeats", "--repeats", "repeats"), ("duration_s", "--duration", "duration"),
                  ("warmup_s", "--warmup", "warmup"))


def overrides_text(doc: dict) -> str | None:
    """What the command line changed of the result's profile, as plan/overrides records it:
    "run with --duration 30s instead of the quick profile's 15s"; None if nothing. The
    profile's own values come from the recipe text the result ran (recipe/text)."""
    r = Result.of(doc)
    over = (r.raw.get("plan") or {}).get("overrides") or {}
    profile = _profile_measure(r)
    parts = []
    for key, flag, field in OVERRIDE_FLAGS:
        if key not in over:
            continue
        shown = str(over[key]) if key == "repeats" else human_seconds(over[key])
        if profile is None:
            parts.append(f"{flag} {shown}")
            continue
        was = getattr(profile, field)
        parts.append(f"{flag} {shown} instead of the {r.profile} profile's "
                     f"{was if key == 'repeats' else human_seconds(was)}")
    return f"run with {', '.join(parts)}" if parts else None


def skipped_text(doc: dict) -> str | None:
    """The recipe's points the result's server could not express (plan/skipped): "skipped the
    point fast, which MySQL 9.7.4 does not take"; None if none."""
    r = Result.of(doc)
    skipped = (r.raw.get("plan") or {}).get("skipped") or []
    if not skipped:
        return None
    values = ", ".join(str(s.get("value")) for s in skipped)
    server = r.raw.get("server") or {}
    who = servers.label(f"{server.get('flavor', 'its server')} {server.get('version', '')}")
    return f"skipped the point{'s' * (len(skipped) > 1)} {values}, which {who} does not take"


def _profile_measure(r: Result):
    """The recorded profile's [measure] of the recipe text the result ran, or None when that
    text no longer loads (the site shows the overrides alone then)."""
    try:
        recipe = next(x for x in from_text(r.recipe, r.raw["recipe"]["text"])
                      if x.variant == r.variant)
        return recipe.experiment(r.profile).measure
    except (UserError, StopIteration, KeyError, TypeError):
        return None


def server_text(doc: dict) -> str:
    """The server a result ran, as its makers name it: "MariaDB 10.11.19"."""
    server = Result.of(doc).raw.get("server") or {}
    flavor = str(server.get("flavor", ""))
    return f"{FLAVORS.get(flavor, flavor)} {server.get('version', '')}".strip()


FLAVORS = {"mariadb": "MariaDB", "mysql": "MySQL", "percona": "Percona Server"}
