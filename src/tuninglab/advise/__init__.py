"""`invoke advise`: the guide's evidence brought to a reader's own server, read-only.

server_facts.py reads the server (its version, variables and status, through one read-only
session, over client.py's careful connection: no LOCAL INFILE, no cleartext password over plain
TCP, a byte bound and a deadline; the --defaults-file read by option_files.py); host_facts.py
the host it runs on (kernel, CPUs, memory, swap, the datadir's filesystem, mount, device,
scheduler, read-ahead, write cache, RAID and ZFS); the site's
server_readings.py turns both into each topic's current value and whether it is what the
topic's advice says, and server_rows.py puts the guide's pooled evidence beside it (for the
server the guide measures closest to this one and the host class closest to this host) with the
command that measures it here; output.py prints the rows as a terminal table, JSON or Markdown
(a server's control characters shown as escapes by visible.py, Markdown and HTML escaped);
report.py is the command. Nothing here sets anything.
"""
