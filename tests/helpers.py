"""Helpers the tests share (import them with `from helpers import ...`): the project's places, the
fixture recipes and the committed result files, skips that name what is missing, and what storage
tests leave behind (loop devices, mounts, ledger) with a loop device of their own."""

import atexit
import copy
import datetime as dt
import functools
import json
import math
import os
import random
import shutil
import struct
import subprocess
import tempfile
import textwrap
import time
from contextlib import contextmanager
from pathlib import Path

import pytest

from tuninglab.engine.host.ledger import Ledger
from tuninglab.errors import UserError
from tuninglab.recipes import plan as planner
from tuninglab.recipes.load import load
from tuninglab.results import document, stats

REPO = Path(__file__).resolve().parents[1]
FIXTURES = REPO / "tests" / "fixtures"
RECIPE_FIXTURES = FIXTURES / "recipes"   # <name>/recipe.toml, as a recipes_dir holds them
# The checkout's data/: a user's own runs add result files there, so no test reads it (the
# layout test holds every test module to DATA, the copy below).
CHECKOUT_DATA = REPO / "data"
SHARED = REPO.parent / "shared"


def write_recipe(recipes_dir: Path, name: str, text: str) -> Path:
    path = Path(recipes_dir) / name / "recipe.toml"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(textwrap.dedent(text))
    return path


def fixture_recipe_text(fixture: str, replace: dict[str, str] | None = None) -> str:
    """The text of tests/fixtures/recipes/<fixture>/recipe.toml with each `old: new` of replace
    made; an old text that is not there fails (the edit would silently test the fixture)."""
    text = (RECIPE_FIXTURES / fixture / "recipe.toml").read_text()
    for old, new in (replace or {}).items():
        assert old in text, f"{old!r} is not in the fixture recipe {fixture}"
        text = text.replace(old, new)
    return text


def fixture_recipe(recipes_dir: Path, fixture: str, name: str | None = None,
                   replace: dict[str, str] | None = None) -> Path:
    """Copy a fixture recipe into recipes_dir as <name>/recipe.toml (default: the fixture's
    name), with replace's string edits; the path written."""
    return write_recipe(recipes_dir, name or fixture, fixture_recipe_text(fixture, replace))


# --- the committed result files ----------------------------------------------------------

@functools.cache
def committed_data_files() -> tuple[str, ...]:
    """The files of data/ that git tracks, relative to data/: the project's results without the
    ones a user's own runs added there. Without git or a checkout, every file under data/."""
    try:
        out = subprocess.run(["git", "ls-files", "-z", "--", "data"], cwd=REPO,
                             capture_output=True, check=True).stdout
    except (OSError, subprocess.CalledProcessError):
        out = b""
    names = [os.fsdecode(n).removeprefix("data/") for n in out.split(b"\0") if n]
    return tuple(names or (p.relative_to(CHECKOUT_DATA).as_posix()
                           for p in sorted(CHECKOUT_DATA.rglob("*")) if p.is_file()))


def committed_results() -> list[str]:
    """The committed result files, as <recipe>/<file>.json (historical/ holds sources,
    calibrations/ the A/A calibration records)."""
    return [n for n in committed_data_files() if n.endswith(".json")
            and not {"historical", "calibrations"} & set(n.split("/"))]


def result_paths(data_dir: Path) -> list[Path]:
    """The result files of a data/ directory (not the A/A calibration records)."""
    return [p for p in sorted(Path(data_dir).glob("*/*.json")) if p.parent.name != "calibrations"]


def copy_committed_data(target: Path) -> Path:
    """The committed files of data/ copied under target (a data/ of their own); target."""
    for name in committed_data_files():
        if (CHECKOUT_DATA / name).is_file():  # a tracked file deleted in the tree is left out
            (target / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(CHECKOUT_DATA / name, target / name)
    return target


def _committed_copy() -> Path:
    """The committed files of data/, copied once per test process into a temporary directory
    removed at exit: what DATA names, so that a glob over it never meets a result a user's own
    run added to the checkout (the README's first command writes two)."""
    root = Path(tempfile.mkdtemp(prefix="tuninglab-committed-"))
    atexit.register(shutil.rmtree, root, ignore_errors=True)
    return copy_committed_data(root / "data")


DATA = _committed_copy()


def needs_real_server():
    """Skip with a reason that names what is missing."""
    for tool, hint in (("mariadbd", "mariadb-server"), ("sysbench", "sysbench"), ("fio", "fio")):
        if not (shutil.which(tool) or os.path.exists(f"/usr/sbin/{tool}")):
            pytest.skip(f"needs {tool} (apt-get install {hint})")


def leftovers(wd: Path) -> dict:
    """Loop devices over files in wd, mounts under wd, and the ledger."""
    loops = json.loads(subprocess.run(["losetup", "-J", "-l"], capture_output=True,
                                      text=True).stdout or '{"loopdevices": []}')["loopdevices"]
    with open("/proc/self/mounts") as f:
        mounts = [line.split()[1] for line in f if line.split()[1].startswith(str(wd))]
    return {"loops": [l["name"] for l in loops if str(wd) in (l.get("back-file") or "")],
            "mounts": mounts, "ledger": Ledger(wd).entries()}


NOTHING = {"loops": [], "mounts": [], "ledger": []}


@contextmanager
def attached_loop(backing: Path, size: int = 512 * 2**20, partitioned: bool = False):
    """A loop device the test attaches itself, standing in for a user's disk; detached after.
    partitioned: an MBR with one Linux partition from 1 MiB to the end (the kernel shows it
    as <device>p1)."""
    with open(backing, "wb") as f:
        f.truncate(size)
        if partitioned:
            f.seek(446)
            f.write(struct.pack("<B3sB3sII", 0, b"\0" * 3, 0x83, b"\0" * 3, 2048,
                                size // 512 - 2048))
            f.seek(510)
            f.write(b"\x55\xaa")
    cmd = ["losetup", "--find", "--show"] + (["--partscan"] if partitioned else []) + [str(backing)]
    device = subprocess.run(cmd, capture_output=True, text=True, check=True).stdout.strip()
    try:
        if partitioned and not Path(f"{device}p1").exists():
            # A kernel without the MBR parser (CONFIG_MSDOS_PARTITION) needs partx to add it.
            subprocess.run(["partx", "--add", device], capture_output=True)
        for _ in range(50):  # devtmpfs adds the partition's node a moment later
            if not partitioned or Path(f"{device}p1").exists():
                break
            time.sleep(0.1)
        yield device
    finally:
        subprocess.run(["losetup", "-d", device], capture_output=True)


@contextmanager
def mounted(device: str, where: Path, fs: str = "ext4"):
    """A fresh filesystem on device, mounted at where (made here) until the block ends."""
    subprocess.run([f"mkfs.{fs}", "-q", "-f" if fs in ("xfs", "btrfs") else "-F", device],
                   check=True)
    where.mkdir()
    subprocess.run(["mount", device, str(where)], check=True)
    try:
        yield where
    finally:
        subprocess.run(["umount", str(where)], check=True)


class FakeConnection:
    """A pymysql connection for the sampler: records every statement, and answers each with
    rows(sql) (default: no rows)."""

    def __init__(self, rows=lambda sql: ()):
        self.statements, self.rows = [], rows

    def cursor(self):
        return self

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False

    def execute(self, sql):
        self.statements.append(sql)

    def fetchall(self):
        return self.rows(self.statements[-1])

    def close(self):
        pass


@contextmanager
def tmpfs(mountpoint: Path, size: str):
    """A tmpfs of size mounted at mountpoint (created) for the block: a filesystem a test can
    fill. Root only: skips otherwise."""
    if os.geteuid() != 0:
        pytest.skip("needs root to mount a tmpfs")
    mountpoint.mkdir()
    subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(mountpoint)],
                   check=True)
    try:
        yield mountpoint
    finally:
        subprocess.run(["umount", "-l", str(mountpoint)], check=True)


def servers_under(path: Path) -> list[str]:
    """Server processes whose command line points into path."""
    out = subprocess.run(["pgrep", "-af", "mariadbd|mysqld"], capture_output=True, text=True)
    return [line for line in out.stdout.splitlines() if str(path) in line]

# --- recipes: one valid recipe, table by table -------------------------------------------

def recipe_tables(text: str) -> dict[str, str]:
    """A recipe's text cut into its tables, in order: "top" (the keys before any table), then
    one part per table name ([server.settings] is "server", [profiles.quick] "profiles"), each
    without the blank lines around it."""
    tables, name = {}, "top"
    for line in text.splitlines(keepends=True):
        if line.startswith("["):
            name = line.strip("[]\n").split(".")[0]
        tables[name] = tables.get(name, "") + line
    return {name: body.strip("\n") + "\n" for name, body in tables.items()}


# One valid recipe (tests/fixtures/recipes/valid), table by table; tests replace or drop single
# tables.
TABLES = recipe_tables(fixture_recipe_text("valid"))

def recipe_text(**tables) -> str:
    """The valid recipe with some tables replaced (a string) or removed (None)."""
    merged = {**TABLES, **tables}
    return "\n".join(body for body in merged.values() if body is not None)

def load_error(tmp_path, text) -> str:
    """Load a broken recipe; return the UserError's message, checking it names the file."""
    path = write_recipe(tmp_path, "demo", text)
    with pytest.raises(UserError) as info:
        load("demo", recipes_dir=tmp_path)
    message = str(info.value)
    assert str(path) in message
    return message

# --- results: a hand-made result document ------------------------------------------------

SHA = "ab" * 32

HOST_ID = "0123456789abcdef"

def summary_io(write_bytes_per_trx=2048.0):
    return {"reads_per_trx": 0.5, "writes_per_trx": 3.25, "read_bytes_per_trx": 8192.0,
            "write_bytes_per_trx": write_bytes_per_trx}

def make_run(repeat, order, tps, write_bytes_per_trx=2048.0):
    return {
        "repeat": repeat, "order": order,
        "started": "2026-11-21T23:24:43+00:00", "finished": "2026-11-21T23:25:43+00:00",
        "effective": {"innodb_doublewrite": "ON"},
        "summary": {"transactions": int(tps * 60), "tps": tps, "latency_p95_ms": 1.12,
                    "io": summary_io(write_bytes_per_trx)},
        "series": {"t": [1, 2, 3], "tps": [tps, tps, None], "latency_p95_ms": [1.1, 1.2, None],
                   "cpu_busy_pct": [50.0, 51.5, None]},
    }

def make_doc(on_tps=(1000.0, 1010.0, 990.0), off_tps=(1500.0, 1510.0, 1490.0)) -> dict:
    """A small document shaped like record.new_document() plus runs, before finish()."""
    points = []
    order = 0
    for value, tpss in (("ON", on_tps), ("OFF", off_tps)):
        runs = []
        for repeat, tps in enumerate(tpss, 1):
            runs.append(make_run(repeat, order, tps))
            order += 1
        points.append({"id": f"innodb_doublewrite={value}", "value": value,
                       "settings": {"innodb_doublewrite": value, "innodb_buffer_pool_size": "64M",
                                    "skip_log_bin": None},
                       "runs": runs})
    return {
        "schema_version": 1,
        "recipe": {"name": "doublewrite", "sha256": SHA, "title": "Doublewrite: ON vs OFF",
                   "question": "What does it cost?", "topic": "doublewrite",
                   "text": 'title = "Doublewrite: ON vs OFF"\n'},
        "profile": "quick",
        "plan": {"seed": 1, "repeats": 3, "warmup_s": 5.0, "duration_s": 20.0,
                 "order": ["innodb_doublewrite=ON#1", "innodb_doublewrite=OFF#1"]},
        "dataset": {"shape": "disk-bound", "tables": 8, "table_size": 200000,
                    "buffer_pool_size": "64M"},
        "workload": {"tool": "sysbench", "script": "oltp_write_only", "threads": 4},
        "server": {"flavor": "mariadb", "version": "10.11.19",
                   "version_text": "mariadbd  Ver 10.11.19-MariaDB-0+deb12u1",
                   "path": "/usr/sbin/mariadbd"},
        "software": {"sysbench": "1.0.20", "fio": "fio-3.33", "python": "3.11.2",
                     "kernel": "6.1.0-28-amd64",
                     "project": {"revision": "0" * 40, "dirty": False}},
        "host": {"id": HOST_ID, "cpu_model": "AMD EPYC", "cores": 4,
                 "memory_bytes": 8 * 2**30, "virtualization": "kvm"},
        "storage": {"path": "/work/main/work", "filesystem": "ext4", "device": "vda1",
                    "scheduler": "mq-deadline", "mount_options": "rw,relatime"},
        "device_baseline": {"tool": "fio", "fsync_per_s": 1234.5, "randwrite_16k_iops": 5678.0,
                            "direct": True, "seconds": 8.0},
        "started": "2026-11-21T23:24:43+00:00",
        "finished": None,
        "sweep": {"setting": "innodb_doublewrite", "baseline": "innodb_doublewrite=ON"},
        "points": points,
        "methods": {"summary": stats.SUMMARY_METHOD, "ratio": stats.RATIO_METHOD},
    }

# --- site: results of other hosts, and hostile text ---------------------------------------

# A committed file by name: never one a user's own run added to data/.
REAL = json.loads((DATA / "doublewrite" / "20261122T003613Z-209a4cf4-full.json").read_text())

HOST_A, HOST_B = "aaaaaaaaaaaaaaaa", "bbbbbbbbbbbbbbbb"

def result(host_id=HOST_A, started="2026-11-22T00:36:13+00:00", tps=None, **changes) -> dict:
    """A copy of a real doublewrite result, on another host, at another time."""
    doc = copy.deepcopy(REAL)
    doc["host"]["id"] = host_id
    doc["started"] = started
    if tps is not None:
        for point, value in zip(doc["points"], tps):
            point["stats"]["tps"]["median"] = value
    doc.update(changes)
    return doc

# What a transaction costs in runs of with_costs: each summary["cost"] key, in its stored unit.
COSTS = {"server_cpu_us_per_trx": 850.0, "host_cpu_us_per_trx": 1200.0,
         "server_read_bytes_per_trx": 9000.0, "server_write_bytes_per_trx": 24000.0,
         "fsyncs_per_trx": 0.05, "log_fsyncs_per_trx": 1.0, "redo_bytes_per_trx": 2400.0,
         "device_read_bytes_per_trx": 12000.0, "device_write_bytes_per_trx": 30000.0}
# A spread of about ±1% over the repeats: the 90% interval of a ratio of two such points is
# within ±1.5%, so equal costs read "equivalent within ±3%" and 20% less reads "less".
COST_SPREAD = (1.0, 1.01, 0.99, 1.005, 0.995)


def with_costs(doc: dict, factors: dict | None = None) -> dict:
    """A copy of doc whose every run's summary carries a "cost", as runs measure it since issue
    17: COSTS times the point's factor for that key (factors: {point id: {key: factor}}; 0 for
    a cost of none) times COST_SPREAD by repeat. Its stored statistics are left as they were."""
    doc = copy.deepcopy(doc)
    for p in doc["points"]:
        factor = (factors or {}).get(p["id"], {})
        for run in p["runs"]:
            spread = COST_SPREAD[(run["repeat"] - 1) % len(COST_SPREAD)]
            run["summary"]["cost"] = {key: value * factor.get(key, 1.0) * spread
                                      for key, value in COSTS.items()}
    return doc

def spec(**kw):
    return "\n".join(f"{k} = {json.dumps(v)}" for k, v in kw.items())

def write_result(data_dir: Path, recipe: str, doc: dict) -> None:
    path = data_dir / recipe / f"{doc['started'][:19].replace(':', '')}-{doc['host']['id'][:8]}.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(doc))

SCRIPT = "<script>alert(1)</script>"

IMG = "<img src=x onerror=alert(1)>"

QUOTES = "\"' onmouseover=\"alert(1)\" '"

LONG = "<b>" + "W" * 5000 + "</b>"

def hostile() -> dict:
    doc = result(HOST_B, "2026-11-22T12:00:00+00:00", profile=SCRIPT, variant="")
    doc["host"].update(cpu_model=SCRIPT + QUOTES + LONG, virtualization=IMG)
    doc["server"].update(flavor=QUOTES, version=IMG, version_text=SCRIPT)
    doc["software"].update(sysbench=SCRIPT, kernel=IMG + QUOTES)
    doc["sweep"]["setting"] = SCRIPT
    doc["points"][0]["value"] = IMG
    doc["points"][1]["value"] = SCRIPT + QUOTES
    doc["points"][1]["stats"]["ratio"]["verdict"] = IMG
    doc["contribution"] = {"description": IMG + QUOTES + LONG, "submitted": SCRIPT,
                           "tool": "data.submit"}
    return doc

TOPICS = sorted(p.stem for p in (REPO / "docs" / "topics").glob("*.md"))


# --- engine: running a recipe for real ----------------------------------------------------------

def run_options(recipes_dir, wd, data_dir, **kw):
    """The runner's options for a test: the full profile of a recipe in recipes_dir, a 1 s fio
    baseline, results written under data_dir."""
    from tuninglab.engine.run import runner
    return runner.Options(profile="full", workdir=wd, data_dir=data_dir,
                          recipes_dir=recipes_dir, baseline_seconds=1, **kw)


def run_recipe(name, recipes_dir, wd, data_dir, say=None, **kw) -> tuple[Path, dict]:
    """Run a recipe for real; the result file and its document, checked against the schema."""
    from tuninglab.engine.run import runner
    from tuninglab.results import document
    path = runner.run(name, run_options(recipes_dir, wd, data_dir, **kw),
                      say=say or (lambda *_: None))
    doc = json.loads(path.read_text())
    assert document.validate(doc) == []
    return path, doc



class FakeLabImage:
    """A built lab VM image's paths and manifest, for qemu command lines (no boot)."""
    dir = Path("/img")
    root, kernel, initrd = Path("/img/root.img"), Path("/img/vmlinuz"), Path("/img/initrd.img")


def write_claims_map(tmp_path, text, slug="zaitsev-2004-os-hardware") -> Path:
    """A claims map of one file (tmp_path/claims/<slug>.toml) holding text; its directory."""
    d = tmp_path / "claims"
    d.mkdir(exist_ok=True)
    (d / f"{slug}.toml").write_text(text)
    return d


def place_result(root: Path, doc: dict, where=None) -> Path:
    """Write a result document where document.final_path puts it under root/data (or at
    root/where)."""
    from tuninglab.results import document
    path = root / (where or document.final_path(doc, Path("data")))
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(doc))
    return path


def result_problems(root: Path, doc: dict, where=None) -> tuple[Path, list[str]]:
    """data.check's lines for doc, placed by place_result."""
    from tuninglab.contrib import check
    path = place_result(root, doc, where)
    return path, check.check_file(path)


# --- the stop rule's tests (tests/engine/run/test_stop_rule_*.py) ----------------------------

STOP_RULE_START = dt.datetime(2026, 11, 21, 23, 24, 43, tzinfo=dt.timezone.utc)


def tiny_plan(tmp_path, **cli):
    """The tiny fixture's restart plan, with the command line's options (precision=, ...)."""
    fixture_recipe(tmp_path, "tiny")
    e = load("tiny", recipes_dir=tmp_path).experiment(**cli)
    return planner.build(e, design="restart")


def doc_with(on, off):
    """make_doc's result of those throughputs, started at STOP_RULE_START."""
    doc = make_doc(on_tps=on, off_tps=off)
    doc["started"] = STOP_RULE_START.isoformat()
    return doc


# A topic page's evidence is folded (site/folds.py). Tests of its charts' drawing, hovers and
# layout open every section as soon as the HTML is in, before the charts are drawn, as a reader
# who opened them all would see the page.
UNFOLD = """document.addEventListener("DOMContentLoaded", () =>
  document.querySelectorAll("details.tl-evidence").forEach(d => { d.open = true; }));"""


def unfold_evidence(page_or_context):
    """page_or_context, opening the folded evidence of every page it loads from now on."""
    page_or_context.add_init_script(UNFOLD)
    return page_or_context


def duet_doc(effect=1.2, placement=1.1, halves=2, seconds=40, seed=1) -> dict:
    """A finished duet's document: per half, two runs at once, the tested point (OFF) faster
    by effect, whoever has the first place (the earlier order) by placement."""
    rng = random.Random(seed)
    doc = make_doc(on_tps=(1000.0,) * halves, off_tps=(1000.0,) * halves)
    doc["schema_version"] = 2
    doc["plan"].update({"design": "duet", "repeats": halves // 2, "duration_s": seconds})
    on, off = doc["points"]
    for half in range(1, halves + 1):
        off_first = half % 2 == 1
        common = [math.exp(rng.gauss(0, 0.2)) for _ in range(seconds)]
        for p, first, gain in ((off, off_first, effect), (on, not off_first, 1.0)):
            run = p["runs"][half - 1]
            run["order"] = 2 * (half - 1) + (0 if first else 1)
            tps = [1000 * gain * (placement if first else 1) * c *
                   math.exp(rng.gauss(0, 0.01)) for c in common]
            run["series"] = {"t": list(range(1, seconds + 1)), "tps": tps}
            run["summary"]["tps"] = sum(tps) / seconds
    return doc


def contributed(doc: dict, host="c0ffee00c0ffee00") -> dict:
    """A copy of a result as a contributor's: another host's id and data.submit's block."""
    doc = copy.deepcopy(doc)
    doc["host"]["id"] = host
    doc["contribution"] = {"submitted": document.now(), "tool": "data.submit"}
    return doc


def evaluated(browser, url: str, viewport: dict, script: str):
    """What a script returns on the page at url, in a fresh browser context of that size
    (the site's browser tests each read one page this way)."""
    context = browser.new_context(viewport=viewport)
    try:
        page = context.new_page()
        page.goto(url)
        return page.evaluate(script)
    finally:
        context.close()
