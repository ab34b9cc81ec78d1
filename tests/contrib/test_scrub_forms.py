"""The secret scrubber on every form of credential a hardening review found kept (issues 57
and 77, item 7): in each string field a result carries from the host (the server's version
text, the storage path and mount options, the kernel's version, a run's server log) the
scrubber removes the value alone and counts its kind, data.check's credential_problems names
the place and the kind, never the value, and data.check --contributions refuses the file;
ordinary text comes through as it was."""

import copy
import json
import re
from collections import Counter

import pytest

from helpers import DATA, place_result as place
from tuninglab import cli
from tuninglab.contrib import check, scrub
from tuninglab.contrib.jsonpaths import fmt
from tuninglab.results import document

BASE = DATA / "doublewrite" / "20261121T233847Z-209a4cf4-quick.json"
SECRET = "hunter2x"   # the value of every form but those known by their form alone
AWS_KEY = "AKIAIOSFODNN7EXAMPLE"
GITHUB = {"ghp": "ghp_" + "a1B2" * 9, "gho": "gho_" + "c3D4" * 9, "ghs": "ghs_" + "e5F6" * 9,
          "github_pat": "github_pat_11ABCDEFG0" + "xY_9" * 20}
PEM_BODY = "MIIEvQIBADANBgkqhkiG9w0BAQEFAASC\nBKcwggSjAgEAAoIBAQC7"
# Made-up tokens in each service's form (issue 77): never one that was issued.
SLACK = "xoxb-1111111111-2222222222222-" + "aBcD" * 6
GOOGLE = "AIzaSyD" + "x1Y2" * 8
STRIPE = "sk_live_51H" + "aB3d" * 6
OPENAI = {"sk-proj": "sk-proj-" + "Ab3_" * 10 + "-T3BlbkFJ", "sk-legacy": "sk-" + "a1B2" * 12}
REMOVED = scrub.REMOVED

# The string fields, as a path in the document: where a contributor's host text lands.
FIELDS = {
    "server.version_text": ("server", "version_text"),
    "storage.path": ("storage", "path"),
    "host.kernel.version": ("host", "kernel", "version"),
    "storage.mount_options": ("storage", "mount_options"),
    "server_log": ("points", 0, "runs", 0, "server_log", "note"),
}


def form(text, expected, kind, secret=SECRET, id=None, tail=" ; done"):
    return pytest.param(text, expected, kind, secret, tail, id=id or text[:40])


# (the text, what the scrubber leaves, the kind data.check names, the secret it must not keep,
# the text after it in the field: kept as it is)
FORMS = [
    form("password = hunter2x", f"password = {REMOVED}", "secret-looking NAME=value variables"),
    form("password='hunter2x'", f"password='{REMOVED}'", "secret-looking NAME=value variables"),
    form("aws_secret_access_key=hunter2x", f"aws_secret_access_key={REMOVED}",
         "secret-looking NAME=value variables"),
    form("mysql_pwd=hunter2x", f"mysql_pwd={REMOVED}", "secret-looking NAME=value variables"),
    form("spring.datasource.password=hunter2x", f"spring.datasource.password={REMOVED}",
         "secret-looking NAME=value variables"),
    form("IDENTIFIED BY PASSWORD '*hunter2x'", f"IDENTIFIED BY PASSWORD '{REMOVED}'",
         "passwords in SQL"),
    form("CREATE USER sb IDENTIFIED BY 'hunter2x'", f"CREATE USER sb IDENTIFIED BY '{REMOVED}'",
         "passwords in SQL"),
    form('ALTER USER sb IDENTIFIED WITH caching_sha2_password BY "hunter2x"',
         f'ALTER USER sb IDENTIFIED WITH caching_sha2_password BY "{REMOVED}"',
         "passwords in SQL"),
    form("SELECT PASSWORD('hunter2x')", f"SELECT PASSWORD('{REMOVED}')", "passwords in SQL"),
    form("mysql -u root -p'hunter2x' sbtest", f"mysql -u root -p'{REMOVED}' sbtest",
         "-p<password> arguments"),
    form('-p"hunter2x"', f'-p"{REMOVED}"', "-p<password> arguments"),
    form("mysqladmin -uroot -phunter2x status", f"mysqladmin -uroot -p{REMOVED} status",
         "-p<password> arguments"),
    form("--mysql-password='hunter2x'", f"--mysql-password='{REMOVED}'",
         "--...password option values"),
    form('--password="hunter2x"', f'--password="{REMOVED}"', "--...password option values"),
    form("https://metrics.example/push?api_key=hunter2x&job=lab",
         f"https://metrics.example/push?api_key={REMOVED}&job=lab", "secrets in URL queries"),
    form("https://h.example/?apikey=hunter2x", f"https://h.example/?apikey={REMOVED}",
         "secrets in URL queries"),
    form("https://h.example/x?a=1&access_token=hunter2x#top",
         f"https://h.example/x?a=1&access_token={REMOVED}#top", "secrets in URL queries"),
    form("https://h.example/x?secret=hunter2x", f"https://h.example/x?secret={REMOVED}",
         "secrets in URL queries"),
    form("sshpass -p hunter2x ssh lab1", f"sshpass -p {REMOVED} ssh lab1",
         "sshpass -p passwords"),
    form("Authorization: Bearer hunter2x", f"Authorization: Bearer {REMOVED}",
         "Authorization header credentials"),
    form("curl -H 'Authorization: Basic aHVudGVyMng6eA=='",
         f"curl -H 'Authorization: Basic {REMOVED}'", "Authorization header credentials",
         secret="aHVudGVyMng6eA=="),
    form("Authorization: token hunter2x", f"Authorization: token {REMOVED}",
         "Authorization header credentials"),
    form(f"key {AWS_KEY} in use", f"key {REMOVED} in use", "AWS access key ids", AWS_KEY,
         id="aws key id"),
    *[form(f"token {token} set", f"token {REMOVED} set", "GitHub tokens", token, id=name)
      for name, token in GITHUB.items()],
    form(f"-----BEGIN RSA PRIVATE KEY-----\n{PEM_BODY}\n-----END RSA PRIVATE KEY-----",
         f"-----BEGIN RSA PRIVATE KEY-----{REMOVED}-----END RSA PRIVATE KEY-----",
         "PEM private keys", PEM_BODY[:20], id="pem block"),
    form(f"-----BEGIN PRIVATE KEY-----{PEM_BODY[:30]}", f"-----BEGIN PRIVATE KEY-----{REMOVED}",
         "PEM private keys", PEM_BODY[:20], id="pem block cut short",
         tail=""),  # a key cut short runs to the end of the string
    form('{"user": "sb", "password": "hunter2x"}', f'{{"user": "sb", "password": "{REMOVED}"}}',
         "secret keys in JSON text"),
    form("https://:hunter2x@db1.example/sbtest", f"https://:{REMOVED}@db1.example/sbtest",
         "passwords in URLs"),
    # issue 77, item 7: the forms the third hardening round found kept
    form("DB_PASS=hunter2x", f"DB_PASS={REMOVED}", "secret-looking NAME=value variables"),
    form("export MYSQL_PASS=hunter2x", f"export MYSQL_PASS={REMOVED}",
         "secret-looking NAME=value variables"),
    form("pw=hunter2x", f"pw={REMOVED}", "secret-looking NAME=value variables"),
    form("db_pw='hunter2x'", f"db_pw='{REMOVED}'", "secret-looking NAME=value variables"),
    form("SSHPASS=hunter2x sshpass -e ssh lab1", f"SSHPASS={REMOVED} sshpass -e ssh lab1",
         "secret-looking NAME=value variables"),
    form('{"pwd": "hunter2x"}', f'{{"pwd": "{REMOVED}"}}', "secret keys in JSON text"),
    form("{'pass': 'hunter2x'}", f"{{'pass': '{REMOVED}'}}", "secret keys in JSON text"),
    form('{"db_pass": 20242025}', f'{{"db_pass": {REMOVED}}}', "secret keys in JSON text",
         secret="20242025"),   # unquoted: to the brace, which is kept
    form("curl -u admin:hunter2x https://h.example/api",
         f"curl -u admin:{REMOVED} https://h.example/api", "curl -u user:password credentials"),
    form("curl -sS --user 'admin:hunter2x' https://h.example/api",
         f"curl -sS --user 'admin:{REMOVED}' https://h.example/api",
         "curl -u user:password credentials"),
    form(f"SLACK_HOOK {SLACK} set", f"SLACK_HOOK {REMOVED} set", "Slack tokens", SLACK,
         id="slack xoxb"),
    form(f"maps key {GOOGLE} set", f"maps key {REMOVED} set", "Google API keys", GOOGLE,
         id="google AIza"),
    form(f"billing {STRIPE} set", f"billing {REMOVED} set", "Stripe secret keys", STRIPE,
         id="stripe sk_live"),
    *[form(f"llm {key} set", f"llm {REMOVED} set", "OpenAI keys", key, id=name)
      for name, key in OPENAI.items()],
    form("db1.example:5432:sbtest:sb:hunter2x", f"db1.example:5432:sbtest:sb:{REMOVED}",
         ".pgpass lines"),
    form("db1:5432:sbtest:sb:hunter2x", f"db1:5432:sbtest:sb:{REMOVED}", ".pgpass lines"),
    form("*:*:*:postgres:hunter2x", f"*:*:*:postgres:{REMOVED}", ".pgpass lines"),
    form("https://hunter2x@git.example/lab.git", f"https://{REMOVED}@git.example/lab.git",
         "tokens as URL users"),
    form("git+https://hunter2x@git.example/lab.git",
         f"git+https://{REMOVED}@git.example/lab.git", "tokens as URL users"),
]

# What results hold that looks a little like a credential but is none: kept as it is.
ORDINARY = [
    "noatime,logbufs=8",
    "rw,relatime,discard,resv_strict,resuid=65534,resgid=65534",
    "#1 SMP PREEMPT_DYNAMIC Debian 6.1.0-18 (2024-02-01)",
    "mariadbd --innodb-flush-method=O_DIRECT",
    "/usr/sbin/mariadbd  Ver 10.11.19-MariaDB-0+deb12u1 for debian-linux-gnu on x86_64",
    "governor set with cpupower -performance",
    "-performance governor",
    "mysql -p sbtest",                          # -p alone: the client prompts
    "mysql -h db1 -P 3306 --protocol=tcp",      # -P is the port
    "--mysql-password=",                        # sysbench's option, empty
    "innodb_ft_min_token_size=3",               # holds 'token', ends otherwise
    "default_authentication_plugin=caching_sha2_password",
    "PWD=/srv/lab",                             # the shell's directory, no secret
    '{"token_count": "5"}',
    "https://example.com:8443/a@b",
    "ssh://git@github.com:22/lab.git",
    "the bearer of the password policy",
    "AKIA is the prefix of AWS key ids",
    # near misses of issue 77's forms
    "bypass=1 compass=north BYPASS_CACHE=1 PASSTHROUGH=on",
    '{"password": null, "secret": false, "token": None}',   # constants: no secret
    "curl -u admin https://h.example/api",                   # a user alone: curl prompts
    "2026-11-21T23:38:47.123456Z 0 [Note] InnoDB: started at 23:38:47",
    "52:54:00:12:34:56",                                     # a MAC address
    "fe80:0:0:0:5054:ff:fe12:3456",                          # an IPv6 address, unshortened
    "db1.example:5432",                                      # a host and port
    "alice@example.com wrote https://git.example/lab.git",
    "scikit-learn sk-learn xoxo",
]


def put(doc: dict, path: tuple, text: str) -> dict:
    """Set the string at path, making the objects on the way (a run's server_log)."""
    parent = doc
    for key in path[:-1]:
        parent = parent.setdefault(key, {}) if isinstance(parent, dict) else parent[key]
    parent[path[-1]] = text
    return doc


def get(doc: dict, path: tuple):
    for key in path:
        doc = doc[key]
    return doc


def line(path, kind) -> str:
    return (f"{fmt(path)}: holds the value of a credential ({kind}); expected it removed "
            "(invoke data.submit removes it)")


def base_doc() -> dict:
    return json.loads(BASE.read_text())


@pytest.mark.parametrize("field", FIELDS)
@pytest.mark.parametrize("text, expected, kind, secret, tail", FORMS)
def test_each_form_is_found_then_removed_alone_and_counted(field, text, expected, kind, secret,
                                                           tail):
    path = FIELDS[field]
    doc = put(base_doc(), path, f"seen: {text}{tail}")
    assert scrub.credential_problems(doc) == [line(path, kind)]
    counts = scrub.strip_secrets(doc)
    assert get(doc, path) == f"seen: {expected}{tail}"   # what lies around it is kept
    assert secret not in json.dumps(doc)
    assert [(label.split(" (")[0], n) for label, n in counts.items()] == [(kind, 1)]
    assert scrub.credential_problems(doc) == []
    assert scrub.strip_secrets(doc) == Counter()   # scrubbing twice finds nothing more


@pytest.mark.parametrize("text", ORDINARY)
def test_ordinary_text_comes_through_unchanged(text):
    doc = base_doc()
    for path in FIELDS.values():
        put(doc, path, text)
    before = copy.deepcopy(doc)
    assert scrub.credential_problems(doc) == []
    assert scrub.strip_secrets(doc) == Counter()
    assert doc == before
    assert scrub.credential_kinds(text) == []
    if not re.search(r"(?<![\w-])-p\S", text):   # a description's -p word: refused (below)
        assert scrub.credential_kinds(text, description=True) == []   # nor as a description


def test_every_kind_has_a_name_of_its_own():
    names = [label.split(" (")[0] for label, _ in scrub.CREDENTIALS.values()]
    assert len(set(names)) == len(names)


def contributed(doc: dict) -> dict:
    """doc as data.submit prepares it, from a host of its own (not a project's)."""
    doc["host"]["id"] = "c0ffee00c0ffee00"
    doc["contribution"] = {"submitted": document.now(), "tool": "data.submit"}
    return doc


def test_data_check_contributions_refuses_a_file_holding_a_new_form(tmp_path):
    """The command CI runs (invoke data.check --contributions, through cli.data_check) refuses
    the file with a line naming it, the JSON path and the kind; once scrubbed, it passes."""
    doc = contributed(base_doc())
    doc["server"]["version_text"] += " (sshpass -p hunter2x ssh db1)"
    path = place(tmp_path, doc)
    lines = []
    with pytest.raises(SystemExit) as info:
        cli.data_check([str(path)], lines.append, contributions=True)
    assert info.value.code == 1
    assert lines == [f"{path}: {line(('server', 'version_text'), 'sshpass -p passwords')}",
                     "1 result file checked, 1 problem"]
    assert SECRET not in " ".join(lines)
    scrub.strip_secrets(doc)
    path.write_text(json.dumps(doc))
    assert check.check_paths([path], contributions=True) == []


@pytest.mark.parametrize("description", ["-pS3cret box", "a box, -pS3cret",
                                         "cpupower -performance"])
def test_a_description_word_beginning_with_p_is_refused_by_data_check(tmp_path, description):
    """The README's rule for a description (prose the contributor typed): a word beginning with
    -p reads as a MySQL client's password; the same text elsewhere in a result is a word."""
    doc = contributed(base_doc())
    doc["contribution"]["description"] = description
    path = place(tmp_path, doc)
    kind = "-p<password> arguments"
    assert check.check_paths([path], contributions=True) == [
        f"{path}: {line(scrub.DESCRIPTION, kind)}"]
    assert scrub.credential_kinds(description, description=True) == [kind]
    doc["contribution"]["description"] = "a box"
    put(doc, FIELDS["server_log"], description)   # in a run's server log: a word
    path.write_text(json.dumps(doc))
    assert check.check_paths([path], contributions=True) == []

