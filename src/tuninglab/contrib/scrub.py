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

Credentials lose their value in any case, quoted or not (the count of each kind is reported,
never a value; CREDENTIALS):
- secret-looking variables: MYSQL_PWD=..., API_TOKEN=..., password = ..., and in any case a
  name ending as a secret's does (aws_secret_access_key=..., mysql_pwd=..., client_secret=...,
  DB_PASS=..., pw=...), SSHPASS=...;
- password options: --password=..., --mysql-password '...'; the MySQL clients' -p...: quoted
  (-p'...'), as a whole argument, or on a client's command line (mysql -uroot -p...), never a
  word of prose ("cpupower -performance"); sshpass -p ...;
- SQL: IDENTIFIED [WITH plugin] BY|AS '...', PASSWORD('...'), SET PASSWORD ... = '...';
- URLs: the password (mysql://user:...@host, https://:...@host), a secret query parameter
  (?api_key=..., &apikey=..., &access_token=..., ?secret=..., ?token=...);
- an Authorization header's credentials (Authorization: Bearer|Basic|token ...);
- a secret key's value in JSON text ("password": "...", 'api_key': '...', {"pwd": ...},
  {'pass': ...});
- tokens known by their form: AWS access key ids (AKIA..., ASIA...), GitHub tokens (ghp_...,
  gho_..., ghu_..., ghs_..., ghr_..., github_pat_...), Slack tokens (xoxb-...), Google API keys
  (AIza...), Stripe secret keys (sk_live_...), OpenAI keys (sk-proj-...), a PEM private key's
  body (BEGIN to END PRIVATE KEY, over lines);
- curl's -u user:password, a .pgpass line's password (host:port:database:user:password), a
  token as an http(s) URL's user (https://token@host).
A contribution's description is prose the contributor typed: there any word beginning with -p
reads as a password (DESCRIPTION_SHORT), as the README says.
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

# Each kind of credential: (what the report calls it, pattern whose group 1 is kept and whose
# rest, the value, becomes REMOVED).
# A value: to the closing quote when its prefix ends with one (group 1 keeps the opening quote,
# the closing one follows the value), else to the next blank or quote.
_QUOTED = r"""(?:(?<=')[^'\n]+|(?<=")[^"\n]+)"""
_VALUE = rf"""(?:{_QUOTED}|(?<!['"])[^\s'"]+)"""
_QUOTE = r"""['"]?"""
# A name that says secret: upper case as environment variables are named (MYSQL_PWD_FILE), or
# in any case when it ends so (aws_secret_access_key, mysql_pwd, client_secret); never a name
# that only holds the word (innodb_ft_min_token_size), nor the shell's PWD (a directory).
_WORD = r"(?:password|passwd|_pwd|secret|token|api_?key|access_?key)"
# Short names that say password only as a whole name or after '_' (DB_PASS, pw, db_pw; never
# bypass or compass); pwd alone is the shell's directory, so a JSON key only (_JSON_KEY).
_SHORT = r"(?:\w*_)?(?:pass|pw)"
_NAME = (rf"(?:[A-Z0-9_]*(?:PASSWORD|PASSWD|_PWD|SECRET|TOKEN|API_KEY)[A-Z0-9_]*|SSHPASS"
         rf"|(?i:\w*{_WORD}|{_SHORT}))")
_JSON_KEY = rf"(?:[\w-]*{_WORD}|(?:[\w-]*[_-])?(?:pass|pwd|pw))"
# A JSON value unquoted (a number, a word) to the next delimiter, but JSON's and Python's
# constants: none is a secret.
_BARE_JSON = r"(?<!['\"])(?!(?:null|true|false|None|True|False)\b)[^\s'\",{}\[\]]+"
# The MySQL and MariaDB clients, whose -pSECRET is the password (the servers take no -p).
_CLIENT = (r"(?<![\w-])(?:(?:mysql|mariadb)(?:[-_]?(?:admin|dump|check|import|show|slap|binlog"
           r"|pump|sh|backup|upgrade))?|mariabackup|xtrabackup)(?![\w-])")
CREDENTIALS = {
    # MYSQL_PWD=x, password = 'x', db.password=x; not a URL's query (its own kind: its value
    # ends at '&')
    "variable": ("secret-looking NAME=value variables (MYSQL_PWD, API_TOKEN...)",
                 re.compile(rf"((?<![\w?&-]){_NAME}[ \t]*=[ \t]*{_QUOTE}){_VALUE}")),
    # --password=x, --mysql-password 'x' (a value never begins with '-': that is the next option)
    "option": ("--...password option values",
               re.compile(r"((?<![\w-])--[\w-]*pass(?:word|wd)?(?:=|[ \t]+=[ \t]+|\s+(?=[^\s=-]))"
                          rf"{_QUOTE}){_VALUE}", re.IGNORECASE)),
    # The MySQL clients' -pSECRET, the password joined to the option (-p alone prompts): where
    # it is quoted, the whole string (an argument vector's element) or on a client's command
    # line. Elsewhere in a result a word that begins with -p is a word: "cpupower -performance"
    # (but in a description: DESCRIPTION_SHORT).
    "short": ("-p<password> arguments",
              re.compile(rf"""((?:(?<![\w-])-p(?=['"])|^-p(?=[^\s'"]+$)|(?:{_CLIENT})[^\n]*?"""
                         rf"\s-p){_QUOTE}){_VALUE}")),
    "sshpass": ("sshpass -p passwords",
                re.compile(rf"(\bsshpass(?:[ \t]+-[^p\s]\S*)*[ \t]+-p[ \t]*{_QUOTE}){_VALUE}")),
    # IDENTIFIED [WITH plugin] BY|AS 'x', PASSWORD('x'), SET PASSWORD [FOR user] = 'x'
    "sql": ("passwords in SQL (IDENTIFIED BY '...', PASSWORD('...'))",
            re.compile(r"""((?:\bIDENTIFIED\s+(?:WITH\s+\S+\s+)?(?:BY|AS)\s+(?:PASSWORD\s+)?"""
                       r"""|(?<![\w-])(?:OLD_)?PASSWORD\s*\(\s*|\bSET\s+PASSWORD\b[^=\n]*=\s*)"""
                       rf"""['"]){_VALUE}""", re.IGNORECASE)),
    # user:password@ (the user may be empty); the password runs to the host's '@'
    "url": ("passwords in URLs (scheme://user:password@host)",
            re.compile(r"((?<![\w+.-])[A-Za-z][\w+.-]*://[^\s/:@'\"]*:)[^\s/?#'\"]+(?=@)")),
    "query": ("secrets in URL queries (?api_key=..., &access_token=...)",
              re.compile(rf"([?&][\w.-]*{_WORD}=)[^\s&#'\"]+", re.IGNORECASE)),
    # Authorization: Bearer x, Basic x, token x (or a scheme of another name, or none)
    "header": ("Authorization header credentials (Bearer, Basic, token...)",
               re.compile(r"""(\bAuthorization['"]?[ \t]*[:=][ \t]*['"]?"""
                          rf"(?:[A-Za-z][\w-]*[ \t]+)?){_VALUE}", re.IGNORECASE)),
    # "password": "x" in JSON (or a Python dict's repr) held in a string
    "json": ("secret keys in JSON text (\"password\": \"...\")",
             re.compile(rf"""(['"]{_JSON_KEY}['"]\s*:\s*{_QUOTE})(?:{_QUOTED}|{_BARE_JSON})""",
                        re.IGNORECASE)),
    # curl -u user:password (--user, and the proxy's -U); a user alone makes curl prompt
    "curl": ("curl -u user:password credentials",
             re.compile(r"(\bcurl\b[^\n]*?\s(?:-[uU][ \t]*|--(?:proxy-)?user(?:=|[ \t]+))"
                        rf"""{_QUOTE}[^\s:'"]*:)[^\s'"]+""")),
    # host:port:database:user:password, as in ~/.pgpass: the host is '*' or holds a letter,
    # a dot or a dash, the port is '*' or a number not beginning with 0; so no time (23:38:47),
    # MAC address (52:54:00:12:34:56) or the zeros of an IPv6 address (fe80:0:0:0:...)
    "pgpass": (".pgpass lines (host:port:database:user:password)",
               re.compile(r"""((?<![\w.:/@-])(?:\*|(?=[\w.-]*[A-Za-z._-])[\w.-]+)"""
                          r""":(?:\*|[1-9][0-9]{0,4})(?::[^\s:'"]+){2}:)[^\s'"]+""")),
    # a token as an http(s) URL's user (https://ghp_...@github.com); an ssh user is a user
    "url token": ("tokens as URL users (https://token@host)",
                  re.compile(r"((?<![\w+.-])(?:[a-z]+\+)?(?:https?|ftps?)://)[^\s/?#@:'\"]+(?=@)",
                             re.IGNORECASE)),
    # Tokens recognisable by their form alone: the whole token is the value.
    "aws": ("AWS access key ids (AKIA...)",
            re.compile(r"()(?<![A-Za-z0-9])(?:AKIA|ASIA)[A-Z0-9]{16}(?![A-Za-z0-9])")),
    "github": ("GitHub tokens (ghp_..., github_pat_...)",
               re.compile(r"()(?<![\w-])(?:gh[pousr]_[A-Za-z0-9]{20,}|github_pat_\w{20,})")),
    "slack": ("Slack tokens (xoxb-...)",
              re.compile(r"()(?<![\w-])xox[abeoprs]-[A-Za-z0-9-]{10,}")),
    "google": ("Google API keys (AIza...)", re.compile(r"()(?<![\w-])AIza[\w-]{30,}")),
    "stripe": ("Stripe secret keys (sk_live_...)",
               re.compile(r"()(?<![\w-])[rs]k_(?:live|test)_[A-Za-z0-9]{10,}")),
    "openai": ("OpenAI keys (sk-proj-...)",
               re.compile(r"()(?<![\w-])sk-(?:(?:proj|svcacct|admin)-[\w-]{20,}"
                          r"|[A-Za-z0-9]{32,})")),
    # The key's body, to its END line (or to the end of a string cut short), over lines
    "private key": ("PEM private keys (-----BEGIN ... PRIVATE KEY-----)",
                    re.compile(r"(-----BEGIN[A-Z0-9 ]* PRIVATE KEY-----)[\s\S]+?"
                               r"(?=-----END[A-Z0-9 ]* PRIVATE KEY-----|\Z)")),
}
# A list's element that is a password option without its value: the next element is the value.
_BARE_OPTION = re.compile(r"--[\w-]*pass(?:word|wd)?", re.IGNORECASE)
REMOVED = "<removed>"
# A contribution's description is prose the contributor typed: there any word beginning with -p
# reads as a MySQL client's password, "-performance" too (the README says so): rewording costs
# less than a password let through. Result text keeps the narrower "short" kind: a server's log
# or a kernel's name is no one's prose to reword.
DESCRIPTION = ("contribution", "description")
DESCRIPTION_SHORT = re.compile(rf"(?<![\w-])-p(?!{re.escape(REMOVED)})\S")


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
            text, n = remove_values(pattern, text)
            counts[label] += n
        return text

    rewrite(doc, remove)
    for _, parent, i in bare_option_values(doc):
        parent[i] = REMOVED
        counts[CREDENTIALS["option"][0]] += 1
    return +counts  # the kinds found only


def remove_values(pattern: re.Pattern, text: str) -> tuple[str, int]:
    """The text with each value pattern finds replaced by REMOVED; how many were not REMOVED
    already (a value two kinds find, or a file scrubbed twice, is counted once)."""
    found = 0

    def replace(m):
        nonlocal found
        found += text[m.end(1):m.end()] != REMOVED
        return m[1] + REMOVED

    return pattern.sub(replace, text), found


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
    found = [(path, label) for path, text in strings(doc)
             for label in credential_kinds(text, description=path == DESCRIPTION)]
    found += [(path, CREDENTIALS["option"][0]) for path, _, _ in bare_option_values(doc)]
    return [at(path, f"holds the value of a credential ({label.split(' (')[0]}); expected it "
                     "removed (invoke data.submit removes it)") for path, label in found]


def credential_kinds(text: str, description: bool = False) -> list[str]:
    """The labels of the credentials whose values the text still holds (CREDENTIALS); a
    description's (DESCRIPTION_SHORT) when it is one."""
    kinds = [label for label, pattern in CREDENTIALS.values()
             if any(text[m.end(1):m.end()] != REMOVED for m in pattern.finditer(text))]
    short = CREDENTIALS["short"][0]
    if description and short not in kinds and DESCRIPTION_SHORT.search(text):
        kinds.append(short)
    return kinds


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
