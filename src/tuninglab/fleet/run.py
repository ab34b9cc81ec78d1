"""invoke fleet.run: one recipe on every host of an Ansible inventory, through
ansible/fleet-run.yml (ship and set up this revision once, run the recipe detached and poll
it, fetch its result files, lab.clean on failure), then the fetched files checked and kept in
data/<recipe>/ (fetch.py) and every host's verdicts.

The fleet run's id comes from the revision and the command, so the same command again
resumes it: hosts done are skipped (work/fleet/<id>.json), a host whose recipe still runs is
followed again, and a host's own resume file (in its work directory) keeps the runs it
finished. Each host's fetched files and recipe log are in work/fleet/<id>/<host>/.
"""

import hashlib
import json
import shutil
from dataclasses import dataclass, replace
from pathlib import Path

from tuninglab import files
from tuninglab.contrib import check
from tuninglab.errors import UserError
from tuninglab.fleet import fetch, playbook, ship
from tuninglab.recipes import plan as planner
from tuninglab.recipes.load import load_all
from tuninglab.units import human_seconds
from tuninglab.visible import visible

POLL_SECONDS = 10
# The playbook's tasks whose failure message says it all (the rest get the task's name).
SAYS_IT_ALL = ("check the recipe's exit", "report the failure")
STOPPED = ("stopped here; a recipe fleet.run started goes on on its host: the same fleet.run "
           "again follows it, `invoke fleet.clean` stops it")


@dataclass(frozen=True)
class Job:
    recipe: str
    profile: str = "full"
    variant: str | None = None
    forks: int = 5
    extra: tuple = ()           # more `invoke recipe` options, as given

    def args(self) -> list[str]:
        out = [self.recipe, "--profile", self.profile, *self.extra]
        return out + (["--variant", self.variant] if self.variant is not None else [])


def fleet_id(rev: str, job: Job) -> str:
    """The same revision and command give the same id: a rerun resumes."""
    spec = json.dumps([rev, job.recipe, job.profile, job.variant, list(job.extra)])
    return hashlib.sha256(spec.encode()).hexdigest()[:12]


def run(hosts: list, job: Job, inventory: str | None, say=print,
        repo: Path = files.PROJECT_DIR, workdir: Path | None = None,
        data_dir: Path = files.DATA_DIR, dry_run: bool = False) -> dict:
    """Run the job on every host; {host name: its state entry}. Raises UserError only before
    any host is contacted (bad input, a dirty checkout)."""
    if not 1 <= job.forks <= 64:
        raise UserError(f"--forks: expected a whole number from 1 to 64, got {job.forks}")
    variants = _variants(job)
    seconds = sum(planner.build(v.experiment(job.profile)).estimate() for v in variants)
    rev = ship.head(repo) if dry_run else ship.revision(repo)
    state_path = (workdir or files.default_workdir()) / "fleet" / f"{fleet_id(rev, job)}.json"
    state = _load_state(state_path)
    todo = [h for h in hosts if state.get(h.name, {}).get("status") != "done"]
    if dry_run:
        _plan(job, rev, hosts, todo, human_seconds(seconds), say)
        try:
            ship.revision(repo)
        except UserError as exc:
            say(f"note: a real run would stop here: {exc}")
        return {}
    for host in hosts:
        if host not in todo:
            say(f"{host.name}  done in an earlier attempt of this fleet run: skipped")
    if todo:
        say(f"fleet run {state_path.stem}: {job.recipe} ({job.profile}) at {rev[:12]} on "
            f"{len(todo)} host{'s' * (len(todo) > 1)}, {min(job.forks, len(todo))} at a time, "
            f"about {human_seconds(seconds)} each")
        fetched = state_path.with_suffix("")
        for host in todo:   # what an earlier attempt fetched is not this one's answer
            shutil.rmtree(fetched / host.name, ignore_errors=True)
            (fetched / host.name).mkdir(parents=True)
        variant_names = frozenset(v.variant or "" for v in variants)
        wanted = fetch.Wanted(job.recipe, job.profile, variant_names, "", rev,
                              ship.recipe_sha256(repo, rev, job.recipe))
        extra = {"rev": rev, "archive": str(ship.archive_in(repo, rev, state_path.parent)),
                 "run_id": state_path.stem, "recipe": job.recipe, "recipe_args": job.args(),
                 "fetch_dir": str(fetched), "max_bytes": check.MAX_BYTES,
                 "max_seconds": int(3 * seconds + 7200), "poll_delay": POLL_SECONDS}
        failed = playbook.run("fleet-run.yml", inventory, todo, extra, say, job.forks, STOPPED)
        shared = shared_ids(hosts, todo, state, fetched)
        for host in todo:
            state[host.name] = {"status": "failed", "reason": shared[host.name]} \
                if host.name in shared else \
                _outcome(failed.get(host.name), fetched / host.name,
                         replace(wanted, host=host.name, project=host.project),
                         state_path.stem, data_dir)
        files.atomic_write_json(state_path, {"revision": rev, "recipe": job.recipe,
                                             "hosts": state})
    say("")
    say(fetch.verdict_table(hosts, state, data_dir))
    lost = [h.name for h in hosts if state[h.name]["status"] != "done"]
    if lost:
        say(f"{len(lost)} host{'s' * (len(lost) > 1)} did not finish ({', '.join(lost)}): "
            "rerun the same command to resume them")
    return {h.name: state[h.name] for h in hosts}


def _outcome(failure, fetched: Path, wanted, run_id: str, data_dir: Path) -> dict:
    """A host's state entry after the playbook: done with its kept files and the host id it
    reported, or why not."""
    if failure:
        return {"status": "failed", "reason": reason(failure)}
    if not (fetched / "manifest.json").is_file():
        return {"status": "failed", "reason": "the playbook ended before this host finished"}
    try:
        kept = fetch.results(fetched, run_id, data_dir, wanted)
    except fetch.HostError as exc:
        return {"status": "failed", "reason": str(exc)}
    return {"status": "done", "files": [str(p) for p in kept],
            "host_id": fetch.reported_id(fetched)}


def shared_ids(hosts: list, todo: list, state: dict, fetched: Path) -> dict:
    """{host name: why its results are refused} for each host of this attempt that reported
    the host id another host reported (in this attempt, or done in an earlier one): one host
    id is one machine, so two names for it would count its results twice (and two names run
    at once measure each other)."""
    ids = {h.name: state.get(h.name, {}).get("host_id", "") for h in hosts if h not in todo}
    ids.update({h.name: fetch.reported_id(fetched / h.name) for h in todo})
    named = {}
    for name, host_id in ids.items():
        if host_id:
            named.setdefault(host_id, []).append(name)
    this_attempt = {h.name for h in todo}
    return {name: (f"{' and '.join(names)} reported one host id ({visible(host_id)}): one host "
                   "id is one machine; name each machine once in the inventory (clones of a "
                   "machine share its hostname and ~/.config/tuninglab/salt: give each a "
                   "hostname of its own)")
            for host_id, names in named.items() if len(names) > 1
            for name in names if name in this_attempt}


def reason(failure: dict) -> str:
    """One line saying why a host failed, from the callback's record (the host's text in it
    made visible: it reaches the terminal)."""
    task, msg = failure.get("task", ""), visible(failure.get("msg") or "no message")
    if failure.get("kind") == "unreachable":
        if task == "follow the recipe":
            return ("the connection ended while the recipe ran; it goes on there: rerun the "
                    "same command to follow it")
        return f"unreachable: {msg}"
    return msg if task in SAYS_IT_ALL else f"{task}: {msg}"


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


def _plan(job: Job, rev: str, hosts: list, todo: list, took: str, say) -> None:
    """What the run would do on each host, contacting none; took: the recipe's estimate."""
    say(f"fleet run {fleet_id(rev, job)} (dry run): {job.recipe} at revision {rev[:12]}, "
        f"{min(job.forks, len(hosts))} host(s) at a time (ansible/fleet-run.yml)")
    for host in hosts:
        say(f"{host.name}: {host.target}, work directory {host.workdir}")
        if host not in todo:
            say("  done in an earlier attempt: skipped")
            continue
        say(f"  ship revision {rev[:12]} and run setup.sh (once per revision)")
        say(f"  invoke recipe {' '.join(job.args())}"
            + "".join(f" --device={d}" for d in host.devices)
            + (" --destroy-data" if host.devices else ""))
        if host.devices:
            say(f"  erases {', '.join(host.devices)} on {host.name}")
        say(f"  fetch the result files into data/{job.recipe}/"
            + ("" if host.project else " (as contributions)"))
    say(f"estimated time per host: {took} for the recipe, plus a few minutes for setup.sh "
        "where the revision is new")
    say("dry run: no host was contacted")


def clean(hosts: list, inventory: str | None, say=print) -> dict:
    """fleet-clean.yml on the hosts; {host name: why it could not be cleaned}."""
    failed = playbook.run("fleet-clean.yml", inventory, hosts, {}, say)
    return {name: reason(f) for name, f in failed.items()}
