"""invoke fleet.run: one recipe on many hosts at once. For each host, in up to --parallel
threads: connect, ship this checkout's revision and set it up (once per revision), run the
recipe there detached from the session, stream its progress as lines tagged with the host,
fetch the result files it wrote into data/<recipe>/, then print every host's verdicts.

A host that fails (SSH refused, setup, the recipe, a dropped connection) is reported with its
reason; the others go on. The fleet run's id comes from the revision and the command, so the
same command again resumes it: hosts done are skipped, a host whose recipe still runs is
followed again, and a host's own resume file (in its work directory) keeps the runs it
finished. The state lives in work/fleet/<id>.json and each host's whole output in
work/fleet/<id>/<host>.log.
"""

import hashlib
import json
import threading
from dataclasses import dataclass, field
from pathlib import Path

from tuninglab import files
from tuninglab.errors import Interrupted, UserError
from tuninglab.fleet import fetch, ship
from tuninglab.fleet.inventory import Host
from tuninglab.fleet.remote import HostError, Remote, connect, opened
from tuninglab.visible import visible
from tuninglab.recipes import plan as planner
from tuninglab.recipes.load import load_all
from tuninglab.units import human_seconds

# The lines of a host's output worth a line on the fleet's console; the rest goes to its log.
PROGRESS = ("[", "wrote ", "error", "interrupted", "refusing", "shipping", "running setup",
            "setup: installing", "setup: done", "following", "measuring the device")


@dataclass(frozen=True)
class Job:
    recipe: str
    profile: str = "full"
    variant: str | None = None
    destroy_data: bool = False
    parallel: int = 4
    extra: tuple = ()           # more `invoke recipe` options, as given

    def args(self, host: Host) -> list[str]:
        out = [self.recipe, "--profile", self.profile, *self.extra]
        if self.variant is not None:
            out += ["--variant", self.variant]
        for device in host.devices:
            out += ["--device", device]
        return out + (["--destroy-data"] if host.devices else [])


@dataclass
class Fleet:
    job: Job
    rev: str
    state_path: Path
    data_dir: Path
    say: object
    connect: object = connect
    lock: threading.Lock = field(default_factory=threading.Lock)
    state: dict = field(default_factory=dict)
    variants: frozenset = frozenset()   # the recipe's variants the job runs ("": the main one)

    @property
    def id(self) -> str:
        return self.state_path.stem

    def host_say(self, host: Host, width: int):
        log = self.state_path.with_suffix("") / f"{host.name}.log"
        log.parent.mkdir(parents=True, exist_ok=True)

        def say(line: str) -> None:
            with self.lock:
                with open(log, "a") as f:
                    f.write(line + "\n")
                if line.strip().startswith(PROGRESS):
                    self.say(f"{host.name:<{width}}  {line.strip()}")
        return say

    def wanted(self, host: Host, host_id: str) -> fetch.Wanted:
        """What the host's result files must be (fetch.py): this run, from that host."""
        return fetch.Wanted(self.job.recipe, self.job.profile, self.variants, host.name,
                            host_id, host.project)

    def record(self, host: Host, **entry) -> None:
        with self.lock:
            self.state[host.name] = entry
            files.atomic_write_json(self.state_path, {"revision": self.rev,
                                                      "recipe": self.job.recipe,
                                                      "hosts": self.state})


def fleet_id(rev: str, job: Job) -> str:
    """The same revision and command give the same id: a rerun resumes."""
    spec = json.dumps([rev, job.recipe, job.profile, job.variant, list(job.extra)])
    return hashlib.sha256(spec.encode()).hexdigest()[:12]


def run(hosts: list[Host], job: Job, say=print, repo: Path = files.PROJECT_DIR,
        workdir: Path | None = None, data_dir: Path = files.DATA_DIR, dry_run: bool = False,
        connector=connect) -> dict:
    """Run the job on every host; {host name: its state entry}. Raises UserError only before
    any host is contacted (bad input, a dirty checkout)."""
    _check(hosts, job)
    variants = _variants(job)
    took = _estimate(variants, job.profile)   # also: the profile exists
    rev = ship.head(repo) if dry_run else ship.revision(repo)
    base = (workdir or files.default_workdir()) / "fleet"
    fleet = Fleet(job, rev, base / f"{fleet_id(rev, job)}.json", data_dir, say, connector,
                  variants=frozenset(v.variant or "" for v in variants))
    fleet.state = _load_state(fleet.state_path)
    if dry_run:
        _plan(fleet, hosts, took)
        try:
            ship.revision(repo)
        except UserError as exc:
            say(f"note: a real run would stop here: {exc}")
        return {}
    base.mkdir(parents=True, exist_ok=True)
    archive = ship.archive_in(repo, rev, base)
    say(f"fleet run {fleet.id}: {job.recipe} ({job.profile}) at {rev[:12]} on "
        f"{len(hosts)} host{'s' * (len(hosts) > 1)}, {min(job.parallel, len(hosts))} at a time, "
        f"about {took} each")
    width = max(len(h.name) for h in hosts)
    in_threads(hosts, job.parallel, lambda h: _one_host(fleet, h, archive, width))
    say("")
    say(fetch.verdict_table(hosts, fleet.state, data_dir))
    failed = [h.name for h in hosts if fleet.state[h.name]["status"] != "done"]
    if failed:
        say(f"{len(failed)} host{'s' * (len(failed) > 1)} did not finish ({', '.join(failed)}): "
            "rerun the same command to resume them")
    return {h.name: fleet.state[h.name] for h in hosts}


def in_threads(hosts: list[Host], parallel: int, work) -> None:
    """work(host) for every host, at most parallel at once. The threads are daemons: Ctrl-C
    ends this command at once, and the recipes go on on their hosts (a rerun follows them)."""
    slots = threading.Semaphore(parallel)

    def one(host):
        with slots:
            work(host)

    threads = [threading.Thread(target=one, args=(h,), daemon=True) for h in hosts]
    for t in threads:
        t.start()
    try:
        for t in threads:
            while t.is_alive():
                t.join(0.5)
    except KeyboardInterrupt:
        raise Interrupted("stopped here; a recipe fleet.run started goes on on its host: "
                          "the same fleet.run again follows it, `invoke fleet.clean` stops "
                          "it") from None


def _one_host(fleet: Fleet, host: Host, archive: Path, width: int) -> None:
    """Every step on one host; a failure is recorded as its reason, never raised."""
    if fleet.state.get(host.name, {}).get("status") == "done":
        fleet.say(f"{host.name:<{width}}  done in an earlier attempt of this fleet run")
        return
    say = fleet.host_say(host, width)
    try:
        with opened(host, fleet.rev, fleet.connect) as remote:
            remote.ship(archive, say)
            host_id = remote.host_id()   # its results must carry it (fetch.not_wanted)
            code = _recipe(fleet, remote, say)
            if code:
                raise HostError(f"the recipe stopped (exit {code}): "
                                f"{remote.last_error(fleet.id)}")
            kept = fetch.results(remote, fleet.id, fleet.data_dir, fleet.wanted(host, host_id))
    except Exception as exc:  # noqa: BLE001 - one host's failure, whatever it is, is reported
        why = reason(exc)
        say(f"error: {why}")
        fleet.record(host, status="failed", reason=why)
        return
    fleet.record(host, status="done", files=[str(p) for p in kept])


def _recipe(fleet: Fleet, remote: Remote, say) -> int:
    """Start the recipe there (or follow it, if an earlier attempt's still runs); its exit."""
    status, value = remote.state(fleet.id)
    if status == "done" and value == 0:
        return 0
    if status == "running":
        say(f"following the recipe already running there (pid {value})")
        remote.follow(fleet.id, value, say, from_start=False)
    else:
        remote.follow(fleet.id, remote.start(fleet.id, fleet.job.args(remote.host)), say,
                      from_start=True)
    lost = HostError("the connection ended while the recipe ran; it goes on there: rerun "
                     "the same command to follow it")
    try:
        status, value = remote.state(fleet.id)
    except Exception:  # noqa: BLE001 - whatever ended the session, the recipe is detached
        raise lost from None
    if status != "done":
        raise lost
    return value


def reason(exc: Exception) -> str:
    """One line saying why a host failed, made visible: it may quote what the host sent."""
    return visible(_reason(exc))


def _reason(exc: Exception) -> str:
    if isinstance(exc, (HostError, UserError)):
        return str(exc)
    text = str(exc).strip().splitlines()
    kind = type(exc).__name__
    if "NoValidConnections" in kind or isinstance(exc, (ConnectionError, TimeoutError)):
        return f"SSH connection failed: {text[0] if text else kind}"
    if "Authentication" in kind:
        return f"SSH authentication failed: {text[0] if text else kind}"
    return f"{kind}: {text[0][:200] if text else 'no message'}"


def _check(hosts: list[Host], job: Job) -> None:
    if not hosts:
        raise UserError("no hosts to run on")
    if not 1 <= job.parallel <= 64:
        raise UserError(f"--parallel: expected a whole number from 1 to 64, got {job.parallel}")
    named = [h.name for h in hosts if h.devices]
    if named and not job.destroy_data:
        raise UserError(f"--device names devices on {', '.join(named)}: every run erases them; "
                        "add --destroy-data to confirm")


def _load_state(path: Path) -> dict:
    try:
        return json.loads(path.read_text()).get("hosts", {})
    except FileNotFoundError:
        return {}
    except (OSError, ValueError) as exc:
        raise UserError(f"{path}: unreadable fleet state ({exc}); delete it to start over")


def _variants(job: Job) -> list:
    """The recipe's experiments the job runs (all without --variant); UserError for a recipe
    or variant this checkout does not have."""
    variants = load_all(job.recipe)
    if job.variant is not None:
        variants = [v for v in variants if (v.variant or "") == job.variant]
        if not variants:
            raise UserError(f"--variant: {job.recipe} has no variant {job.variant!r}")
    return variants


def _estimate(variants: list, profile: str) -> str:
    """Their estimated time as this checkout plans it (templates built included); UserError
    for a profile they do not have."""
    return human_seconds(sum(planner.build(v.experiment(profile)).estimate()
                             for v in variants))


def _plan(fleet: Fleet, hosts: list[Host], took: str) -> None:
    """What the run would do on each host, contacting none; took: the recipe's estimate."""
    fleet.say(f"fleet run {fleet.id} (dry run): {fleet.job.recipe} at revision "
              f"{fleet.rev[:12]}, {min(fleet.job.parallel, len(hosts))} host(s) at a time")
    for host in hosts:
        done = fleet.state.get(host.name, {}).get("status") == "done"
        fleet.say(f"{host.name}: {host.target}, work directory {host.workdir}")
        if done:
            fleet.say("  done in an earlier attempt: skipped")
            continue
        fleet.say(f"  ship revision {fleet.rev[:12]} and run setup.sh (once per revision)")
        fleet.say(f"  invoke recipe {' '.join(fleet.job.args(host))}")
        if host.devices:
            fleet.say(f"  erases {', '.join(host.devices)} on {host.name}")
        fleet.say(f"  fetch the result files into data/{fleet.job.recipe}/")
    fleet.say(f"estimated time per host: {took} for the recipe, plus a few minutes for "
              "setup.sh where the revision is new")
    fleet.say("dry run: no host was contacted")


def clean(hosts: list[Host], say=print, repo: Path = files.PROJECT_DIR, connector=connect) -> list:
    """On each host: SIGTERM to fleet runs still going, then lab.clean of its work directory.
    The hosts that could not be cleaned, with their reason."""
    rev = ship.head(repo)
    failed = []
    for host in hosts:
        def tagged(line, name=host.name):
            say(f"{name}  {line}")
        try:
            with opened(host, rev, connector) as remote:
                for pid in remote.stop_runs():
                    tagged(f"stopped the fleet run with pid {pid}")
                remote.lab_clean(tagged)
        except Exception as exc:  # noqa: BLE001 - the next host is still cleaned
            failed.append((host.name, reason(exc)))
            tagged(f"error: {reason(exc)}")
    return failed
