"""A recipe's swept setting in the words a summary names it by: a server option by its own
name, a lab knob by what it is (a RAID's member disks, not "1 against 4", which reads as RAID
levels; the server's CPUs, not hyper-threading; the client's threads)."""

WORDS = {
    "server.allocator": "memory allocator",
    "server.cpus": "CPUs the server may use",
    "server.defaults": "server defaults of",
    "workload.commit": "commit every",
    "workload.threads": "client threads",
    "storage.filesystem": "filesystem",
    "storage.scheduler": "IO scheduler",
    "storage.logs": "redo and binary logs on",
    "storage.mount_options": "mount options",
    "storage.read_ahead_kb": "read-ahead KiB",
    "raid.chunk": "RAID chunk",
    "raid.state": "RAID array",
    "raid.disks": "RAID member disks",
    "raid.level": "RAID level",
    "raid.layout": "RAID 10 layout",
    "lab.kernel": "kernel flavour",
    "lab.kernel_from": "kernel from",
    "lab.mitigations": "mitigations=",
    "lab.pti": "pti=",
    "lab.swap": "swap",
    "lab.swappiness": "vm.swappiness",
    "lab.topology": "vCPUs as",
    "lab.disk_cache": "disk cache mode",
    "zfs.recordsize": "ZFS recordsize",
}


def name(setting: str) -> str:
    """The words for a sweep setting; a server option is its own name."""
    if setting in WORDS:
        return WORDS[setting]
    return setting.partition(".")[2].replace("_", " ") if "." in setting else setting


def comparison(setting: str, point: str, baseline: str) -> str:
    """"innodb_doublewrite OFF against ON", "RAID member disks 1 against 4"."""
    words = name(setting)
    glue = "" if words.endswith("=") else " "
    return f"{words}{glue}{point} against {baseline}"
