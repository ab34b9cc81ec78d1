"""`invoke advise`: read the server and its host, then report every topic's row. Read-only:
the one connection is a read-only session, the host is read from /proc and /sys.

Exit status, for scripts: 0 when no advice applies, 1 when some does, 2 on an error."""

from tuninglab.advise import host_facts, output, placement, server_facts
from tuninglab.errors import UserError
from tuninglab.evidence import server_rows as rows

APPLIES = 1


def advise(target: server_facts.Target, form: str = "table", say=print) -> int:
    """Print the report in one of output.FORMS; the exit status (0, or APPLIES)."""
    if form not in output.FORMS:
        raise UserError(f"unknown form {form!r}: expected one of {', '.join(output.FORMS)}")
    s = server_facts.read(target)
    h = host_facts.read(s.variables, target.local)
    server, note = rows.guide_server(s.flavor, s.version)
    # This host's own class is only known here, for a local server, once it measured something.
    machine = placement.machine() if target.local else None
    found = rows.rows(s, h, rows.this_host(h), machine)
    say(output.FORMS[form](s, h, found, server, note))
    return APPLIES if any(r.applies for r in found) else 0
