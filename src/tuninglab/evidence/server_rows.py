"""One row per topic: the reader's current value, the guide's pooled evidence for the comparison
the topic's advice rests on (advice.py), on the server the guide measures closest to theirs and
the host class closest to their host, what follows, and the command that measures it here.

An advice *applies* when the evidence holds and the current value is not what the advice says.
Evidence that is too noisy, not testable, or missing is said to be so, and nothing is advised
from it."""

import os
from dataclasses import asdict, dataclass

from tuninglab.evidence import advice, answers, host_class, servers
from tuninglab.evidence.host_class import server_name
from tuninglab.evidence.server_readings import Reading, reading
from tuninglab.evidence.topic_pages import topic_pages
from tuninglab.recipes import plan as planner
from tuninglab.recipes.load import command as load_command, load
from tuninglab.results.metrics import ratio_decimals
from tuninglab.units import human_seconds

# Where a row's topic page is: the published site's address (SITE_URL, as the Pages workflow
# sets it), else where `invoke docs.serve` serves it (mkdocs.yml's site_url).
SITE = os.environ.get("SITE_URL") or "http://127.0.0.1:8000/"
NO_EVIDENCE = "no evidence"


@dataclass(frozen=True)
class Evidence:
    server: str          # the guide's server whose results these are, "mariadb 11.8"
    server_note: str     # "" when it is the reader's server's major version, else why this one
    kind: str            # advice.HOLDS, DOES_NOT_HOLD, CANNOT_TELL, or NO_EVIDENCE
    why: str
    comparison: str      # what is compared: "OFF vs ON"
    ratio: str           # the pooled ratio and its 95% interval, "" without one
    results: int
    hosts: int
    host_class: str      # the class the results are from
    closeness: str       # how close that class is to this host, in words
    class_key: str = ""  # the class's key (answers.Mark), "" without evidence
    interval: str = ""   # the pooled 95% interval as answers.Mark gives it, "" without one

    def counted(self) -> str:
        """"3 results from 2 machines": what the ratio pools, in every form of the report."""
        if self.host_class.startswith(host_class.CONTRIBUTED):  # their host ids prove nothing
            return (f"{self.results} contributed result{'s' * (self.results != 1)}, counted "
                    "as one sitting")
        return answers.counted(self.results, self.hosts)


@dataclass(frozen=True)
class Row:
    slug: str
    title: str
    url: str
    reading: Reading
    evidence: Evidence
    advice: str          # what follows for this server
    applies: bool        # the evidence holds and the current value is not what it says
    command: str         # the command that measures it on this host
    estimate: str        # how long that takes in the quick profile

    def as_dict(self) -> dict:
        return asdict(self)


def guide_server(flavor: str, version: tuple) -> tuple[str, str]:
    """The server of the guide whose evidence speaks for this one, and a note when it is not
    the same major version ("" when it is); ("", why) when the guide measures no such flavour."""
    family = "mysql" if flavor == "percona" else flavor
    name = server_name(family, ".".join(map(str, version)))
    if name in servers.SHOWN:
        return name, ""
    same = [x for x in servers.SHOWN if x.split(" ")[0] == family]
    if not same:
        return "", f"the guide measures no {flavor} server"

    def distance(x: str) -> tuple:
        major = tuple(int(n) for n in x.split(" ")[1].split("."))
        return abs(major[0] - version[0]), abs(major[1] - version[1])
    closest = min(same, key=distance)
    return closest, (f"the guide measures {servers.label(closest)}, the closest to "
                     f"{servers.label(name)}")


def evidence(rests_on, server: str, note: str, here: dict, machine=None) -> Evidence:
    if rests_on is None or not server:
        return Evidence(server, note, NO_EVIDENCE, note or "", "", "", 0, 0, "", "")
    found = answers.closest(rests_on, server, here, machine)
    if found is None:
        why = servers.cannot_measure(rests_on.recipe, rests_on.variant, server) or \
            f"no results on {servers.label(server)} yet"
        return Evidence(server, note, NO_EVIDENCE, why, rests_on.what, "", 0, 0, "", "")
    c, differ, own = found
    judged = advice.judge_comparison(rests_on, c)
    ratio = judged.ratio.text(ratio_decimals(judged.ratio.ratio, 2), mark="x",
                              with_verdict=False) if judged.ratio else ""
    closeness = "this host's own class" if own else \
        "the same kind of machine" if not differ else "; ".join(differ)
    if c.evidence.host_class.lab:
        closeness = "measured in the lab VM; " + closeness
    if c.evidence.host_class.duet:
        closeness = "a duet, each server on half the machine; " + closeness
    if c.evidence.host_class.contributed:  # said wherever it is used (issue 57)
        closeness = "contributed results, not the project's; " + closeness
    # What the ratio pools (the results that reached the regime), as every page counts it.
    k, sittings = (c.pooled.k, c.pooled.sittings) if c.pooled else \
        (len(c.evidence.results), c.evidence.sittings)
    return Evidence(server, note, judged.kind, judged.why, rests_on.what, ratio, k, sittings,
                    c.evidence.host_class.name, closeness, c.evidence.host_class.key,
                    answers.interval_of(c.pooled))


def what_follows(meta: dict, r: Reading, e: Evidence) -> tuple[str, bool]:
    """The advice for this server, and whether it applies (asks for a change)."""
    if r.follows is False and r.trap:   # the harm is the mechanism's: no measurement needed
        return f"check this: {r.note}", True
    yours = "yours follows the page's advice; " if r.follows else ""
    if e.kind == NO_EVIDENCE:
        return f"{yours}no evidence for a server like this yet ({e.why})", False
    if e.kind == advice.CANNOT_TELL:
        return (f"{yours}the evidence here cannot tell whether the advice holds: {e.why}"
                if yours else f"nothing to change on this evidence: {e.why}"), False
    if e.kind == advice.DOES_NOT_HOLD:
        return (f"{yours}the evidence here goes against the page's advice "
                f"({meta['advice']})"), False
    if r.follows is False:
        return f"change it: {meta['advice']}" + (f" ({r.note})" if r.note else ""), True
    if r.follows:
        return "yours already follows the advice, and the evidence holds", False
    return f"the evidence holds: {meta['advice']}", False


def measure_command(meta: dict, rests_on, server: str, note: str) -> tuple[str, str]:
    """The command that measures the topic on this host, and its quick profile's time ("" when
    it cannot be measured there: then the first is why). A server the guide does not build
    (note says which it stands for) is measured as the reader's own binary, --mysqld."""
    name, variant = (rests_on.recipe, rests_on.variant) if rests_on else (meta["recipe"], "")
    why = servers.cannot_measure(name, variant, server) if server else ""
    if why:
        return why, ""
    r = load(name, variant=variant)
    command = load_command(name, variant) + " --quick"
    if server and not note:
        command = servers.command(command, server)
    else:
        command += " --mysqld /path/to/your/mysqld"
    if r.storage and not r.in_lab_vm:
        command += " --device SPARE_DEVICE"   # a device it may overwrite, never the datadir's
    seconds = planner.build(r.experiment("quick")).estimate()
    return command, human_seconds(seconds)


def rows(s, h: dict, here: dict, machine=None) -> list[Row]:
    """Every topic page's row, in the pages' order; machine: this host's own class, when it
    has measured something (evidence.machine_of), else None."""
    server, note = guide_server(s.flavor, s.version)
    out = []
    for meta in topic_pages():
        slug = meta["slug"]
        rests_on = advice.rests_on(meta)
        r = reading(slug, s, h)
        if rests_on is None:   # advice to measure one's own load: said as it is
            e = Evidence(server, note, advice.CANNOT_TELL, meta["rests_on_why"].strip(), "",
                         "", 0, 0, "", "")
            follows, applies = f"the page's advice, on no single comparison: " \
                f"{meta['advice']}", False
        else:
            e = evidence(rests_on, server, note, here, machine)
            follows, applies = what_follows(meta, r, e)
        command, estimate = measure_command(meta, rests_on, server, note)
        url = f"{SITE.rstrip('/')}/topics/{slug}/"
        out.append(Row(slug, meta["title"], url, r, e, follows, applies, command, estimate))
    return out


def this_host(h: dict) -> dict:
    """A host's parts as host classes are made of (host_class.machine_parts), from its facts
    (advise/host_facts.read)."""
    doc = {"host": {k: h.get(k) for k in ("cpu_model", "cores", "memory_bytes",
                                          "virtualization")},
           "storage": h.get("datadir") or {}}
    return host_class.machine_parts(doc)


def header(s, h: dict, server: str, note: str) -> list[str]:
    """Who was read: the server, the host, and whose evidence speaks for them."""
    memory = f", {h['memory_bytes'] / 2**30:.0f} GiB" if h.get("memory_bytes") else ""
    host = f"{h['cpu_model']}, {h['cores']} CPUs{memory}, kernel {h['kernel']}"
    d = h.get("datadir")
    disk = f"; datadir on {d['filesystem']} ({d.get('disk') or d['source']})" if d else ""
    evidence = (f"evidence from the guide's {servers.label(server)} results"
                + (f" ({note})" if note else "")) if server else note
    return [f"server: {s.version_text} ({s.flavor})", f"host: {host}{disk}", evidence]
