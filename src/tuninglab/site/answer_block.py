"""A topic page's answer, first under its title (```answer```, issue 78): the reader's question
answered in plain words, then a row per server with its own default for the topic's setting
(read from the server, server_defaults.py) or the read-only command that shows the host's,
what to set or the command that finds it, the evidence in one line from the answer index
(answers.py decides it; this renders it) and what the compared setting risks; then when the
advice does not apply, and where the page says how it was measured.

The words come from the page's front matter, each a one-line value (topic_pages.py's subset):

    answer: "..."            the answer in one or two sentences, no measured number retyped
    setting: innodb_flush_method      the server variable(s), "a, b" for several
    check: "cat /sys/block/<dev>/queue/scheduler"   a read-only command showing the host's
    set: "`O_DIRECT`"         a value, or how to find it
    find: "fio ..."           optional: the command that measures the value to set
    trap: "..."               optional: a default that defeats the setting, and how
    not_when: "..."           optional: when the advice does not apply
    check_first: "default"    optional: a server's own default is wrong for a small server

`setting`, `check` and `set` are one text for every server, or one per flavour (two spaces in,
`mariadb:` and `mysql:`). A page gives `setting`, `check` or both. A page that is not an
answer's fails the strict build with the file and key, as every fence does (failure.py)."""

import html
import re
from dataclasses import dataclass

from tuninglab.errors import UserError
from tuninglab.evidence import answers, functional, server_defaults, servers, setting_words
from tuninglab.evidence.advice import CANNOT_TELL
from tuninglab.evidence.claim_verdicts import NOT_MEASURED, ONLY_OLDER, REGIME_NOT_REACHED
from tuninglab.evidence.claim_verdicts import TOO_NOISY
from tuninglab.evidence.host_class import in_words
from tuninglab.evidence.topic_pages import topic_pages
from tuninglab.recipes.load import load
from tuninglab.results.metrics import COST, METRICS, ratio_decimals
from tuninglab.site.failure import fence_failure
from tuninglab.units import human_size, same_value

e = html.escape
FLAVOURS = tuple(servers.FLAVORS)          # "mariadb", "mysql": a per-flavour value's keys
METHOD = "../../method/"                   # the Method page, from a topic page
TODAY = "#tl-today-server-{}"              # the today table's tab of the n-th server
VERDICT_WORDS = {"holds": "Advice holds", "does not hold": "Advice does not hold",
                 CANNOT_TELL: "Cannot tell here"}
# Why a comparison gives no answer, in a DBA's words (its kind's own words are the lab's).
WHY = {NOT_MEASURED: "not measured on this server yet",
       ONLY_OLDER: "its results ran under an earlier version of the test and are not counted",
       REGIME_NOT_REACHED: "the runs did not reach the conditions the question needs",
       TOO_NOISY: "the results are too noisy to tell"}
SIZES = re.compile(r".*_(size|capacity)$")   # a variable in bytes: shown as my.cnf writes it


@dataclass(frozen=True)
class Asked:
    """A page's answer as its front matter gives it; settings, check and set per flavour."""
    answer: str
    settings: dict      # flavour -> tuple of variable names (may be empty)
    check: dict         # flavour -> command ("" for none)
    set: dict           # flavour -> text
    find: str = ""
    trap: str = ""
    not_when: str = ""
    check_first: bool = False


# --- the fence --------------------------------------------------------------------------------

def answer_fence(source, language, css_class, options, md, **kwargs) -> str:
    """```answer``` with `topic = "<slug>"`: the topic's answer block."""
    try:
        return block(_page(_topic(source)))
    except (ValueError, KeyError, UserError) as exc:
        return fence_failure(f"answer fence: {exc}", source)


def _topic(source: str) -> str:
    key, _, value = source.strip().partition("=")
    if key.strip() != "topic" or not value.strip().strip('"'):
        raise ValueError(f'expected topic = "<slug>", got {source.strip()!r}')
    return value.strip().strip('"')


def _page(slug: str) -> dict:
    found = [m for m in topic_pages() if m["slug"] == slug]
    if not found:
        raise ValueError(f"no topic page docs/topics/{slug}.md")
    return found[0]


# --- the front matter -------------------------------------------------------------------------

def asked(meta: dict) -> Asked:
    """The page's answer keys, checked: ValueError naming the page and the key."""
    where = f"docs/topics/{meta.get('slug', '?')}.md"
    settings = {f: tuple(n.strip() for n in text.split(",") if n.strip())
                for f, text in _per_flavour(meta, "setting", where).items()}
    check = _per_flavour(meta, "check", where)
    if not any(settings.values()) and not check:
        raise ValueError(f"{where}: expected `setting:` (the server variable) or `check:` "
                         f"(a read-only command that shows the host's default)")
    for names in settings.values():
        bad = [n for n in names if not re.fullmatch(r"[a-z0-9_]+", n)]
        if bad:
            raise ValueError(f"{where}: setting: {bad[0]!r} is no server variable name")
    first = meta.get("check_first")
    if first not in (None, "default"):
        raise ValueError(f'{where}: check_first: {first!r}, expected "default" or no key')
    return Asked(_text(meta, "answer", where, required=True), settings,
                 {f: check.get(f, "") for f in FLAVOURS},
                 _per_flavour(meta, "set", where, required=True),
                 _text(meta, "find", where), _text(meta, "trap", where),
                 _text(meta, "not_when", where), bool(first))


def _text(meta: dict, key: str, where: str, required: bool = False) -> str:
    value = meta.get(key)
    if value is None and not required:
        return ""
    if not isinstance(value, (str, int, float)) or not str(value).strip():
        raise ValueError(f"{where}: {key}: expected one line of text, got {value!r}")
    return str(value).strip()


def _per_flavour(meta: dict, key: str, where: str, required: bool = False) -> dict:
    """{flavour: text} from one text for all, or one per flavour; {} when absent."""
    value = meta.get(key)
    if not isinstance(value, dict):
        text = _text(meta, key, where, required)
        return {f: text for f in FLAVOURS} if text else {}
    if set(value) != set(FLAVOURS):
        raise ValueError(f"{where}: {key}: expected one text, or one per flavour "
                         f"({', '.join(FLAVOURS)}), got {', '.join(sorted(value))}")
    return {f: _text(value, f, f"{where}: {key}") for f in FLAVOURS}


# --- the block --------------------------------------------------------------------------------

def block(meta: dict) -> str:
    """The answer block of one topic page."""
    a = asked(meta)
    _known(meta, a)
    found = [answers.answer(meta, server) for server in servers.SHOWN]
    head = (f'<thead><tr><th>Server</th><th>Default{" (check it first)" * a.check_first}'
            f'</th><th>Set</th><th>Evidence</th></tr></thead>')
    rows = "".join(_row(a, x, i) for i, x in enumerate(found))
    # How to find the value to set comes before the servers' rows, which refer to it.
    find = f'<p class="tl-answer-find"><strong>Find it:</strong> {inline(a.find)}</p>' \
        if a.find else ""
    parts = [f'<p class="tl-answer-text">{inline(a.answer)}</p>', find,
             f"<table>{head}<tbody>{rows}</tbody></table>"]
    if a.trap:
        parts.append(f'<p class="tl-answer-trap"><strong>The trap:</strong> '
                     f"{inline(a.trap)}</p>")
    parts.append(_hardware(found))
    if a.not_when:
        parts.append(f'<p class="tl-answer-not"><strong>Does not apply when:</strong> '
                     f"{inline(a.not_when)}</p>")
    parts.append(f'<p class="tl-answer-how">{_sources(a)}<a href="{TODAY.format(0)}">How this '
                 f'was measured</a> · <a href="{METHOD}">the method</a></p>')
    return f'<div class="tl-answer" data-topic="{e(meta["slug"])}">{"".join(parts)}</div>'


def _known(meta: dict, a: Asked) -> None:
    """Every named variable is one the captured servers report (a misspelt name would read as
    "none on this server" on every row), and none is one the capture set itself."""
    for name in {n for names in a.settings.values() for n in names}:
        held = [s for s in servers.SHOWN if name in server_defaults.of(s).given]
        if held:
            raise ValueError(f"docs/topics/{meta['slug']}.md: setting: {name} is set by the "
                             f"capture itself on {held[0]}: not a default the page can show")
        if all(server_defaults.value(s, name) is None for s in servers.SHOWN):
            raise ValueError(f"docs/topics/{meta['slug']}.md: setting: {name} is a variable "
                             f"none of {', '.join(servers.SHOWN)} reports")


def _row(a: Asked, x: answers.Answer, index: int) -> str:
    flavour = x.server.split(" ")[0]
    source = server_defaults.source(x.server).text
    label = servers.label(x.server)
    # The evidence cell names its server too: on a phone it moves below the three servers'
    # defaults (lab.css), so that they stand together in the first screen.
    return (f'<tr data-server="{e(x.server)}"><th data-label="Server">'
            f'<a href="{TODAY.format(index)}">{e(label)}</a></th>'
            f'<td data-label="Default" title="{e(source)}">{_default(a, flavour, x.server)}</td>'
            f'<td data-label="Set">{_set(a, flavour, x.server)}</td>'
            f'<td class="tl-answer-evidence" data-label="Evidence, {e(label)}"'
            f'{answers.advice_mark(x)}>{evidence(x, a.settings.get(flavour, ()))}</td></tr>')


def _default(a: Asked, flavour: str, server: str) -> str:
    shown = []
    for name in a.settings.get(flavour, ()):
        value = server_defaults.value(server, name)
        shown.append(f"<code>{e(name)} = {e(shown_value(name, value))}</code>"
                     if value is not None else f"<code>{e(name)}</code>: none on this server")
    if a.check.get(flavour):
        shown.append(f"shown by {inline(a.check[flavour])}")
    return "<br>".join(shown)


def shown_value(name: str, value: str) -> str:
    """A default as one would write it in my.cnf: 100663296 -> 96M, 10.000000 -> 10."""
    if SIZES.match(name) and re.fullmatch(r"\d{4,}", value):
        return human_size(int(value))
    return re.sub(r"^(\d+)\.0+$", r"\1", value)


def _set(a: Asked, flavour: str, server: str) -> str:
    """What to set; a bare value (one code span) for one variable says whether it is the
    server's default."""
    text, names = a.set[flavour], a.settings.get(flavour, ())
    value = re.fullmatch(r"`([^`]+)`", text)
    if value and len(names) == 1:
        default = server_defaults.value(server, names[0])
        if default is not None:
            same = same_value(value.group(1), default)
            return f"{inline(text)} ({'the default' if same else 'not the default: change it'})"
    return inline(text)


def evidence(x: answers.Answer, shown: tuple = ()) -> str:
    """The answer's evidence in one line: the advice's verdict, the comparison in its own
    words with its interval, what it pools and on what hardware, and what it risks. A variable
    the row's Default cell names (shown) is not named again before the compared values."""
    c, r = x.comparison, x.rests_on
    if r is None:
        return "No single comparison decides this: the results below show what was measured."
    said = f'<strong class="tl-v tl-v-{x.kind.replace(" ", "-")}">{VERDICT_WORDS[x.kind]}</strong>'
    if c is None:
        return f"{said}: {WHY[NOT_MEASURED]}.{_risk(x)}"
    if c.evidence.host_class.lab and x.metric not in COST:
        return (f"{said}: measured only in an emulated VM, whose speed is not the "
                f"hardware's.{_risk(x)}")
    if x.setting is None or c.pooled is None:
        return f"{said}: {WHY.get(c.kind, 'not enough evidence yet')}.{_risk(x)}"
    words = compared(r)
    name = words.split(" ", 1)[0]
    words = words.split(" ", 1)[1] if name in shown else words
    digits = ratio_decimals(x.setting.ratio, 2)
    metric = f", {METRICS[x.metric].label}" if r.metric else ""
    need = f" (the advice needs {e(r.range_text)})" if x.kind == CANNOT_TELL else ""
    return (f"{said}: {e(words)}{e(metric)} {e(x.setting.text(digits, mark='x', sep=' '))}"
            f'{need}<br><span class="tl-why">{e(x.counted)}: '
            f"{e(in_words(c.evidence.latest))}</span>{_risk(x)}")


def compared(r) -> str:
    """The compared setting in its own words: "innodb_io_capacity 5000 against 200 with
    innodb_max_dirty_pages_pct_lwm = 0" (a recipe's variant named by the settings it
    changes, else by its title)."""
    recipe = load(r.recipe, variant=r.variant)
    words = setting_words.comparison(recipe.sweep.setting, r.point, r.baseline)
    if not r.variant:
        return words
    main = dict(load(r.recipe).server_settings)
    changed = [f"{k} = {v}" for k, v in recipe.server_settings if main.get(k) != v]
    return f"{words} with {', '.join(changed)}" if changed else f"{words} ({recipe.title})"


def _risk(x: answers.Answer) -> str:
    """What the compared setting risks, in the same row as its gain: "not durable:
    innodb_flush_log_at_trx_commit 2 risks about a second of ..."."""
    r = x.rests_on
    if not x.risk_kind or r is None:
        return ""
    named = setting_words.comparison(x.swept, r.point, "").rsplit(" against ", 1)[0]
    return f'<br><span class="tl-risk">{e(x.risk_kind)}: {e(named)} risks {e(x.risk)}</span>'


def _hardware(found: list) -> str:
    """Where the lab VM's throughput answers nothing: the run that answers it on real
    hardware (functional.hardware_rerun), once."""
    for x in found:
        c = x.comparison
        if c is not None and c.evidence.host_class.lab and x.metric not in COST \
                and c.evidence.latest is not None:
            needs, _, command = functional.hardware_rerun(c.evidence.latest).partition(", by: ")
            if command:
                return (f'<p class="tl-answer-find"><strong>Measure it on real hardware</strong> '
                        f"({e(needs.removeprefix('on '))}): <code>{e(command)}</code></p>")
    return ""


def _sources(a: Asked) -> str:
    """Where the defaults were read, when the page shows a server's."""
    if not any(a.settings.values()):
        return ""
    read = [server_defaults.source(s) for s in servers.SHOWN]
    dates = sorted({s.date for s in read})
    versions = ", ".join(f"{servers.label(s.server).split(' ')[0]} {s.version}" for s in read)
    return (f"Defaults as each server reports them ({e(versions)}), read on "
            f"{e(' and '.join(dates))}. ")


def inline(text: str) -> str:
    """Front matter text as HTML: escaped, `code` spans as code."""
    return re.sub(r"`([^`]+)`", r"<code>\1</code>", e(text))
