"""How many distinct source results today's verdicts answer, per server and host class, and from
how many sittings: the claims page's summary and the end of `invoke data.claims` (issue 59).

A source result is a cell of a source's table (claims_map: its source, table, row and column).
Two claims may answer one result (one per workload: direct-io's TPC-C-like and OLTP shapes);
it counts once, answered where either claim is. A verdict answers for its own evidence set
alone (one server, one host class, claim_verdicts): a lab VM result for its guest's server on
the machine it ran on, never for another server. The sittings are the machines whose results
the answering verdicts pool (a result that missed the regime is left out of both).
"""

from dataclasses import dataclass

from tuninglab.evidence import claim_verdicts, servers
from tuninglab.results import verdicts as words


@dataclass(frozen=True)
class Answered:
    """One evidence set's kind of answers: a server on a host class."""
    server: str
    host_class: str
    answered: int       # distinct source results with an answer here
    measured: int       # distinct source results with a current result here
    sittings: int       # machines whose results those answers pool
    results: int        # the results they pool


def source_result(c) -> tuple:
    """The source result a claim answers (several claims may share one)."""
    return c.source, c.table, c.row, c.column


def tally(claims) -> list[Answered]:
    """Per (server, host class) with a current result of any claim, how many distinct source
    results it answers and measures, and the sittings and results its answers pool; the
    guide's servers first, then by host class name."""
    answered: dict[tuple, set] = {}
    measured: dict[tuple, set] = {}
    pooled: dict[tuple, dict] = {}
    for c in claims:
        for v in claim_verdicts.verdicts(c):
            s = v.evidence
            if s is None or s.latest is None:
                continue
            key = (s.server, s.host_class.name)
            measured.setdefault(key, set()).add(source_result(c))
            if v.kind in words.ANSWERS:
                answered.setdefault(key, set()).add(source_result(c))
                used = claim_verdicts.pooled_results(s, c.point, c.metric)
                pooled.setdefault(key, {}).update({id(r): r.sitting for r in used})
    order = {server: i for i, server in enumerate(servers.ordered(
        [*servers.SHOWN, *(server for server, _ in measured)]))}
    return [Answered(server, cls, len(answered.get((server, cls), ())),
                     len(found), len(set(pooled.get((server, cls), {}).values())),
                     len(pooled.get((server, cls), {})))
            for (server, cls), found in sorted(measured.items(),
                                               key=lambda kv: (order[kv[0][0]], kv[0][1]))]


def distinct(claims) -> int:
    """How many distinct source results the claims answer between them (the denominator)."""
    return len({source_result(c) for c in claims})


def line(a: Answered, total: int) -> str:
    """"MariaDB 10.11 on <class>: 5 of 31 source results answered (12 measured), from 6
    results from 3 machines"."""
    rest = f", from {claim_verdicts.counted(a.results, a.sittings)}" if a.answered else ""
    return (f"{servers.label(a.server)} on {a.host_class}: {a.answered} of {total} source "
            f"results answered ({a.measured} measured){rest}")
