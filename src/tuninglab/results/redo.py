"""A run's redo log as a running server has it: which settings make the server create its log
anew, and whether a result's runs had that log written over before they measured
(engine/server/datadir.write_over; evidence/superseded.py supersedes a result whose runs did not).
Standard library only: the lab VM's guest imports the engine, which imports this.
"""

# Settings at which the server makes its redo log anew when it starts on a copy of the template
# (whose log has the server's default size). The new file is allocated without being written
# (ext4 and XFS mark its extents unwritten), and until the log has wrapped once each write there
# also converts its extent, a journal commit at each fsync: measured on this project's machine,
# 4K sequential writes each followed by fdatasync ran at half the rate into a fallocated file as
# into a written one, and a fresh 1G log took about 200 s of redo-size's load to wrap, its
# throughput low until it did. A server that has run a while has written its whole log; so
# does a run before its measured seconds (engine/server/datadir.write_over), and a result whose
# runs did not is superseded (evidence/superseded.py).
REDO_SIZE_SETTINGS = ("innodb_log_file_size", "innodb_redo_log_capacity")


def sets_size(settings: dict) -> bool:
    """Whether a run's settings size the redo log (REDO_SIZE_SETTINGS)."""
    return any(settings.get(name) is not None for name in REDO_SIZE_SETTINGS)


def sizes_log(doc: dict) -> bool:
    """Whether a result's points set the redo log's size."""
    return any(sets_size(p.get("settings", {})) for p in doc["points"])


def written_over(doc: dict) -> bool:
    """Whether a result's runs had their redo log written over before they measured."""
    return any(run.get("redo_written_over_bytes") for p in doc["points"] for run in p["runs"])
