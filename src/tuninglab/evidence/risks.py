"""What a setting gives up for its speed: durability (committed transactions or pages lost in a
crash), integrity after a power loss, redundancy, or a kernel's protection. A page that shows
such a setting's gain says its risk beside it, in words, so that no durability-losing setting
reads as a plain gain (issue 60). Keyed by a recipe's sweep setting and the point's value;
the words say the mechanism, as the servers' and kernels' manuals describe it."""

NOT_DURABLE, NOT_CRASH_SAFE, NO_REDUNDANCY, LESS_SECURE = (
    "not durable", "not crash-safe", "no redundancy", "less secure")
# (setting, value) -> what it risks, a phrase that follows "risks ".
RISKS = {
    ("innodb_flush_log_at_trx_commit", "0"):
        "about a second of committed transactions lost when the server crashes",
    ("innodb_flush_log_at_trx_commit", "2"):
        "about a second of committed transactions lost when the OS crashes or power fails",
    ("innodb_doublewrite", "OFF"):
        "a page torn by a crash mid-write, which InnoDB cannot repair",
    ("innodb_doublewrite", "DETECT_ONLY"):
        "a page torn by a crash mid-write is found but not repaired",
    ("storage.mount_options", "nobarrier"):
        "a corrupt journal and data after a power loss (writes reordered past the disk cache)",
    ("storage.mount_options", "data=writeback,noatime"):
        "files holding stale data after a crash (data no longer written before its metadata)",
    ("lab.disk_cache", "unsafe"):
        "writes the disk acknowledged lost on a power loss (flushes ignored)",
    ("raid.level", "0"):
        "every table lost when any one disk fails (no redundancy)",
    ("lab.mitigations", "off"):
        "the kernel open to the CPU side-channel attacks its mitigations stop",
    ("lab.pti", "off"):
        "kernel memory readable from user space on CPUs open to Meltdown",
}


# What each risk gives up, in two words: said beside the setting's gain wherever it is shown.
KINDS = {("innodb_flush_log_at_trx_commit", "0"): NOT_DURABLE,
         ("innodb_flush_log_at_trx_commit", "2"): NOT_DURABLE,
         ("innodb_doublewrite", "OFF"): NOT_CRASH_SAFE,
         ("innodb_doublewrite", "DETECT_ONLY"): NOT_CRASH_SAFE,
         ("storage.mount_options", "nobarrier"): NOT_CRASH_SAFE,
         ("storage.mount_options", "data=writeback,noatime"): NOT_CRASH_SAFE,
         ("lab.disk_cache", "unsafe"): NOT_DURABLE,
         ("raid.level", "0"): NO_REDUNDANCY,
         ("lab.mitigations", "off"): LESS_SECURE,
         ("lab.pti", "off"): LESS_SECURE}


def risk(setting: str, value: str) -> str:
    """What the setting at this value risks ("" for none)."""
    return RISKS.get((setting, str(value)), "")


def risked(setting: str, value: str) -> tuple[str, str]:
    """(its kind in two words, what it risks), both "" for a setting that risks nothing."""
    key = (setting, str(value))
    return KINDS.get(key, ""), RISKS.get(key, "")
