"""What in a result names its contributor, or gives away a secret, on every string of the
document but the recipe text (hashed, so never changed). data.submit and the fleet's fetch
replace them; credential_problems names a credential left in a file, for data.check.

Paths:
- under a work directory -> "<workdir>/...": data.submit's ($TUNINGLAB_WORKDIR or ./work) and
  the run's own, read from the result (the directory holding its runs/ or sandboxes/); what lies
  below it the engine named (runs, sandboxes/storage.filesystem=ext4-r1.img, ...);
- under a home directory -> "~/...": $HOME; /root; a user's directory under any directory named
  home, homes or Users (/home/alice, /Users/alice, /export/home/alice, /usr/home/alice,
  /mnt/c/Users/alice); ~alice; each also as a file:// URL's path;
- anything else is kept: system paths (/usr/sbin/mariadbd, /dev/loop3, /proc, /sys) say what ran
  where. Other paths outside system directories are listed, for the contributor to look at.

Credentials lose their value in any case (the count of each kind is reported, never a value):
secret-looking variables (MYSQL_PWD=..., API_TOKEN=...), password options (--password=...,
--mysql-password ..., -p...) and the password of a URL (mysql://user:...@host).
"""

import re
from collections import Counter
from pathlib import Path

from tuninglab import files
from tuninglab.contrib.jsonpaths import at, walk

SYSTEM = ("/usr/", "/bin/", "/sbin/", "/lib/", "/lib32/", "/lib64/", "/etc/", "/dev/", "/proc/",
          "/sys/", "/run/", "/var/", "/opt/", "/boot/", "/tmp/")
# A path begins a string or follows a space, a quote, an option's '=' or ':' ("--datadir=/home/a",
# "root=/dev/vda") or a file URL's "file://"; a directory ends at '/' or where the path does.
START = r"(?:^|(?<=[\s'\"=:,;(])|(?<=file://))"
END = r"(?=[/\s'\",;:)]|$)"
_PART = r"[^/\s'\",;:]+"  # one directory's name
HOMES = re.compile(START + rf"(?:(?:/{_PART})*?/(?:home|homes|Users|users)/{_PART}|/root"
                   r"|~[A-Za-z_][\w.-]*)" + END)
PATH = re.compile(START + r"/[^\s'\",;:]+")
RUN_WORKDIR = re.compile(r"(/.+?)/(?:runs|sandboxes)(?:/|$)")  # the engine's own layout

# Each kind of credential: (what the report calls it, pattern whose group 1 is kept).
_SECRET_NAME = r"[A-Z0-9_]*(?:PASSWORD|PASSWD|_PWD|SECRET|TOKEN|API_KEY)[A-Z0-9_]*"
_VALUE = r"[^\s'\"]+"
CREDENTIALS = {
    "variable": ("secret-looking NAME=value variables (MYSQL_PWD, API_TOKEN...)",
                 re.compile(rf"((?<![\w-])(?:{_SECRET_NAME}|(?i:password|passwd))=){_VALUE}")),
    # --password=x, --mysql-password x (a value never begins with '-': that is the next option)
    "option": ("--...password option values",
               re.compile(rf"((?<![\w-])--[\w-]*pass(?:word|wd)?(?:=|\s+(?=[^\s'\"-]))){_VALUE}",
                          re.IGNORECASE)),
    # The MySQL clients' -pSECRET: the password joined to the option (-p alone prompts)
    "short": ("-p<password> arguments", re.compile(rf"((?<![\w-])-p){_VALUE}")),
    "url": ("passwords in URLs (scheme://user:password@host)",
            re.compile(r"((?<![\w+.-])[A-Za-z][\w+.-]*://[^\s/:@'\"]+:)[^\s/@'\"]+(?=@)")),
}
# A list's element that is a password option without its value: the next element is the value.
_BARE_OPTION = re.compile(r"--[\w-]*pass(?:word|wd)?", re.IGNORECASE)
REMOVED = "<removed>"


def strip_paths(doc: dict) -> Counter:
    """Replace work and home directories by placeholders; how many strings each changed."""
    rules = path_rules(doc)
    counts = Counter()

    def replace(text):
        for pattern, placeholder in rules:
            for found in set(pattern.findall(text)):
                counts[f"{found} -> {placeholder}"] += 1
            text = pattern.sub(placeholder, text)
        return text

    rewrite(doc, replace)
    return counts


def path_rules(doc: dict) -> list[tuple[re.Pattern, str]]:
    """(directory pattern, placeholder), work directories first: they may lie in a home."""
    default = files.default_workdir()
    workdirs = {str(default), str(default.resolve())}
    workdirs |= {m[1] for _, text in strings(doc)
                 if (m := RUN_WORKDIR.match(text)) and not text.startswith(SYSTEM)}
    rules = [(re.compile(START + re.escape(d) + END), "<workdir>")
             for d in sorted(workdirs, key=len, reverse=True)]
    home = str(Path.home())
    if home != "/":
        rules.append((re.compile(START + re.escape(home) + END), "~"))
    return rules + [(HOMES, "~")]


def kept_paths(doc: dict) -> list[str]:
    """Absolute paths left outside system directories: worth a look before they are public."""
    return sorted({p for _, text in strings(doc) for p in PATH.findall(text)
                   if not p.startswith(SYSTEM)})


def strip_secrets(doc: dict) -> Counter:
    """Every credential loses its value; how many of each kind (CREDENTIALS' labels)."""
    counts = Counter()

    def remove(text):
        for label, pattern in CREDENTIALS.values():
            text, n = pattern.subn(rf"\1{REMOVED}", text)
            counts[label] += n
        return text

    rewrite(doc, remove)
    for _, parent, i in bare_option_values(doc):
        parent[i] = REMOVED
        counts[CREDENTIALS["option"][0]] += 1
    return +counts  # the kinds found only


def bare_option_values(doc: dict) -> list[tuple[tuple, list, int]]:
    """(its path, the list, the index) of each value that follows a bare --password element in
    a list (a command line as an argument vector), but one removed or that is the next option."""
    return [((*path, i + 1), value, i + 1) for path, value in walk(doc)
            if isinstance(value, list) and path[:2] != ("recipe", "text")
            for i, item in enumerate(value[:-1])
            if isinstance(item, str) and _BARE_OPTION.fullmatch(item)
            and isinstance(value[i + 1], str) and value[i + 1] != REMOVED
            and not value[i + 1].startswith("-")]


def credential_problems(doc: dict) -> list[str]:
    """A line per string still holding a credential's value (data.check's form), naming its
    kind, never the value: what data.submit removes."""
    found = [(path, label) for path, text in strings(doc) for label in credential_kinds(text)]
    found += [(path, CREDENTIALS["option"][0]) for path, _, _ in bare_option_values(doc)]
    return [at(path, f"holds the value of a credential ({label.split(' (')[0]}); expected it "
                     "removed (invoke data.submit removes it)") for path, label in found]


def credential_kinds(text: str) -> list[str]:
    """The labels of the credentials whose values the text still holds (CREDENTIALS)."""
    return [label for label, pattern in CREDENTIALS.values()
            if any(text[m.end(1):m.end()] != REMOVED for m in pattern.finditer(text))]


def strings(doc: dict):
    """(path, text) of every string value, but the recipe text: its sha256 is recorded."""
    return [(path, value) for path, value in walk(doc)
            if isinstance(value, str) and path != ("recipe", "text")]


def rewrite(doc: dict, change) -> int:
    """Apply change to every string of strings(doc); how many it changed."""
    changed = 0
    for path, text in strings(doc):
        new = change(text)
        if new != text:
            parent = doc
            for key in path[:-1]:
                parent = parent[key]
            parent[path[-1]] = new
            changed += 1
    return changed
