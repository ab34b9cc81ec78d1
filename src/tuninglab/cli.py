"""What the invoke tasks do, kept out of tasks.py so it can be tested and imported."""

import dataclasses
import inspect
import re
import shutil
import sys

from tuninglab import files, units
from tuninglab.contrib import check
from tuninglab.engine.host import workdir as workdir_mod
from tuninglab.engine.run import leftovers, runner
from tuninglab.errors import UserError
from tuninglab.recipes import plan as planner
from tuninglab.recipes.load import check_name, list_names, load_all
from tuninglab.recipes.model import MAX_REPEATS, PLAIN_NAME
from tuninglab.results.report import table
from tuninglab.units import human_seconds


def say(message: str = "") -> None:
    """Progress goes out at once, also when the output is a file or a pipe."""
    print(message, flush=True)


def guard(func, *args, **kwargs):
    """Run a command; a user error becomes one line on stderr and an exit code, no traceback."""
    try:
        return func(*args, **kwargs)
    except UserError as exc:
        print(f"error: {exc}", file=sys.stderr)
        raise SystemExit(exc.exit_code) from None
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        raise SystemExit(130) from None


def _count_option(name, value):
    if value is None:
        return None
    number = units.whole_number(value)
    if number is None:
        raise UserError(f"--{name}: expected a whole number from 1 to {MAX_REPEATS} in the "
                        f"digits 0-9, got {value!r}")
    return number


def _seed(value) -> int:
    """--seed: a whole number (the result records it; JSON readers hold 64-bit integers)."""
    text = "1" if value is None else str(value)
    if not re.fullmatch(r"[0-9]+", text):
        raise UserError(f"--seed: expected a whole number, got {value!r}")
    if len(text) > 19 or int(text) >= 2**63:  # the length first: int() refuses 4300 digits
        raise UserError(f"--seed: expected a whole number below 2**63, got {value!r}")
    return int(text)


def profile_name(quick: bool, profile: str | None) -> str:
    """--quick or --profile NAME (default: full), which must not disagree."""
    if quick and profile and profile != "quick":
        raise UserError("--quick and --profile disagree; give one of them")
    return "quick" if quick else (profile or "full")


def _check_names(name, variant) -> None:
    """A recipe is a plain name, never a path out of recipes/; a variant a plain name too."""
    check_name(name)
    if variant and not PLAIN_NAME.fullmatch(variant):
        known = ", ".join(r.variant for r in load_all(name)[1:]) or "none"
        raise UserError(f"--variant {variant!r}: expected a variant name of lower-case "
                        f"letters, digits and dashes (variants of {name}: {known})")


# `invoke recipe NAME`'s flags are recipe_run's keyword parameters, with these helps: tasks.py
# builds its task from both (task_signature), so each flag is defined once, here.
RECIPE_HELP = {
    "name": "the recipe to run (see `invoke recipe.list`)",
    "quick": "the quick profile: a smaller run of the same experiment",
    "profile": "a profile by name (default: full)",
    "repeats": "repeats per point, overriding the profile",
    "duration": "measured seconds per run, e.g. 30s or 2m",
    "warmup": "discarded warm-up per run, e.g. 10s",
    "precision": "add rounds until every ratio's 95% CI is within this, e.g. 3%",
    "budget": "the time those rounds may take, from the start, e.g. 10m (default: 3x the plan)",
    "server": "the server to test: mariadb-10.11 (the host's, default), mariadb-11.8 or "
              "mysql-9.7 (each built into a Debian root on first use; `invoke lab.servers`)",
    "mysqld": "or the path to a server binary of your own (MariaDB, MySQL, Percona Server)",
    "workdir": "work directory for templates and runs (default: ./work)",
    "dry_run": "print the plan and the time estimate, run nothing",
    "seed": "seed of the interleaved run order, a whole number (default 1)",
    "variant": "run only this variant of the recipe ('' for its main experiment)",
    "device": "a real block device to test instead of a loop-device sandbox (erased!)",
    "destroy_data": "confirm that --device may be erased by every run",
    "design": "measure as restart, switchback or duet (both points at once on twin servers, "
              "each on half the CPUs) instead of the recipe's design",
}


def recipe_run(name, *, quick=False, profile=None, repeats=None, duration=None, warmup=None,
               mysqld=None, workdir=None, dry_run=False, seed=None, variant=None, device=None,
               destroy_data=False, precision=None, budget=None, server=None, design=None):
    """`invoke recipe`: the command line's options (RECIPE_HELP) checked and made into the
    run's Options, once; then the recipe's experiments run (runner.run_all)."""
    profile = profile_name(quick, profile)
    if design is not None and design not in ("restart", "switchback", "duet"):
        raise UserError(f"--design: expected restart, switchback or duet, got {design!r}")
    _check_names(name, variant)
    # Also in a dry run, which holds no work directory: a file or /proc is said at once.
    workdir = workdir_mod.chosen(workdir)
    workdir_mod.check_place(workdir)
    opts = runner.Options(
        profile=profile,
        repeats=_count_option("repeats", repeats),
        duration=duration, warmup=warmup,
        mysqld=mysqld, server=_server(server), workdir=workdir,
        dry_run=dry_run,
        seed=_seed(seed), devices=tuple(device or ()), destroy_data=destroy_data,
        precision=precision, budget=budget, design=design)
    runner.run_all(name, dataclasses.replace(opts, aims=_claim_aims(name, opts)), variant, say)
    if not dry_run:  # what the new result changes: the claims' pooled verdicts, as the site's
        from tuninglab.evidence import claims_text
        say("\n" + claims_text.report(name))


def task_signature(func) -> inspect.Signature:
    """The signature of an invoke task that takes a context, then func's parameters, each a
    flag (keyword-only ones too) with func's default: how tasks.py defines a task once."""
    params = [p.replace(kind=inspect.Parameter.POSITIONAL_OR_KEYWORD)
              for p in inspect.signature(func).parameters.values()]
    context = inspect.Parameter("c", inspect.Parameter.POSITIONAL_OR_KEYWORD)
    return inspect.Signature([context, *params])


def _claim_aims(name: str, opts) -> tuple:
    """With --budget and no --precision, the stop rule aims at the claims the recipe answers
    (each its own half-width, campaign.aims); else at --precision or the smallest effect."""
    if opts.precision is not None or opts.budget is None:
        return ()
    from tuninglab import campaign
    return campaign.recipe_aims(name, campaign.here(opts.workdir, opts.profile,
                                                    mysqld_path=opts.mysqld,
                                                    server=opts.server), opts.design)


def recipe_list(recipes_dir=files.RECIPES_DIR, say=print):
    rows = [["recipe", "question", "needs", "estimated time per profile"]]
    for name in list_names(recipes_dir):
        try:
            variants = load_all(name, recipes_dir)
        except UserError as exc:
            rows.append([name, f"INVALID: {exc}", "", ""])
            continue
        r = variants[0]
        times = ", ".join(f"{p} {human_seconds(s)}"
                          for p, s in planner.profile_estimates(variants).items())
        also = f" (variants: {', '.join(v.variant for v in variants[1:])})" if variants[1:] else ""
        rows.append([name + also, r.question, ", ".join(r.needs) or "-", times])
    say(table(rows))
    say("\nestimates exclude the one-off template build; `invoke recipe NAME --dry-run` shows "
        "the full plan")


def data_check(paths, say=print, contributions=False):
    """Check result files (datacheck): one line per problem naming the file and the JSON path.
    contributions: as files a pull request adds (contributed results, none posing as a host
    of the project's results in data/)."""
    found = check.result_files(paths)
    problems = check.check_paths(found, contributions)
    checked = plural(len(found), "result file")
    if not paths:  # all of data/: its claims map and historical sources too, read strictly
        from tuninglab.evidence import check_sources
        lines, sources, maps = check_sources.problems(check.DATA_DIR / "historical",
                                                      check.DATA_DIR / "claims")
        problems += [check.one_line(line) for line in lines]
        # a linked directory: the walk of the result files never enters one, so it is said here
        problems += [check.one_line(str(r)) for r in files.directories(check.DATA_DIR)[1]]
        checked += f", {plural(sources, 'historical source')}, {plural(maps, 'claims file')}"
    for line in problems:
        say(line)
    say(f"{checked} checked, {plural(len(problems), 'problem')}")
    if problems:
        raise SystemExit(1)


def data_claims(recipe=None, say=print):
    """`invoke data.claims`: the source claims' pooled verdicts, as the claims page gives them."""
    from tuninglab.evidence import claims_text, result_files
    for line in result_files.unread():  # a link, a FIFO in data/: not counted
        say(f"warning: {line}")
    say(claims_text.report(recipe))


def claims_status(topic=None, quick=False, profile=None, workdir=None, server=None, say=print):
    """`invoke claims.status`: every claim's pooled verdict, the precision it needs and has,
    and what answering it would take here (evidence/claim_status.py)."""
    from tuninglab import campaign
    from tuninglab.evidence import claims_text, result_files
    profile = profile_name(quick, profile)
    for line in result_files.unread():  # a link, a FIFO in data/: not counted
        say(f"warning: {line}")
    here = campaign.here(workdir_mod.chosen(workdir), profile, server=_server(server))
    say(claims_text.status_report(topic, here))


def claims_rerun(topic=None, budget="3h", quick=False, profile=None, dry_run=False,
                 workdir=None, server=None, say=say):
    """`invoke claims.rerun`: the open claims' recipes in order of expected answers per hour,
    within the budget (campaign.py); rerun to resume."""
    from tuninglab import campaign
    profile = profile_name(quick, profile)
    wd = workdir_mod.chosen(workdir)
    workdir_mod.check_place(wd)
    campaign.rerun(topic, budget, profile, dry_run, wd, say, server=_server(server))


def _server(name):
    """--server's name checked at once (roots.spec), before any work."""
    if name:
        from tuninglab.engine.server import roots
        if name != roots.HOST_SERVER:
            roots.spec(name)
    return name


def data_submit(path, description=None, keep_paths=False, data_dir=None, say=print):
    """Prepare a result file for a pull request (submit.py): check it, replace the paths that
    name the user, mark it contributed, write it into data/<recipe>/, print the git commands."""
    from tuninglab.contrib import submit
    submit.submit(path, description, keep_paths, files.DATA_DIR if data_dir is None else data_dir,
                  say)


def plural(n: int, noun: str) -> str:
    return f"{n} {noun}{'' if n == 1 else 's'}"


def docs_build(site_dir=None, say=print):
    from tuninglab.site import builder
    from tuninglab.site import site_dir as site_dirs
    out = builder.build(site_dirs.chosen(site_dir, builder.SITE_DIR))
    say(f"site built: open {out.resolve() / 'index.html'} "
        "(or `invoke docs.serve` for http://127.0.0.1:8000)")


def docs_serve(address):
    from tuninglab.site import builder
    builder.serve(address)


def lab_check(workdir=None, say=print):
    from tuninglab.engine.lab import check
    say(check.report(workdir_mod.chosen(workdir)))


def lab_noise(workdir=None, quick=False, designs="switchback,restart,duet", server=None,
              say=print):
    """Measure this host's noise with an A/A experiment per design (calibrate.py), on the
    host's server or --server's."""
    from tuninglab import calibrate
    calibrate.calibrate(workdir_mod.chosen(workdir), quick, say, designs=designs,
                        server=_server(server))


def lab_servers(build=None, workdir=None, say=print):
    """`invoke lab.servers`: the servers a run can test, built (--build NAME, or all), each
    root checked as a run would check it before reuse."""
    from tuninglab.engine.server import server_roots
    wd = workdir_mod.chosen(workdir)
    if build:
        workdir_mod.check_place(wd)
    say(server_roots.report(wd, build, say))


def lab_clean(workdir=None, say=print):
    """Remove what a killed run left: its servers, then its mounts, loop devices and files."""
    wd = workdir_mod.chosen(workdir).resolve()
    if not wd.exists():
        say(f"nothing to clean: {wd} does not exist")
        return
    with workdir_mod.held(wd):
        for pid in leftovers.reap_stale_servers(wd):
            say(f"stopped server pid {pid}")
        done = leftovers.undo_recorded(wd)
        done += leftovers.remove_stale_files(wd)  # after the unmounts: never into a mount
        jobs = wd / "vm" / "jobs"
        if jobs.is_dir() and any(jobs.iterdir()):
            shutil.rmtree(jobs)
            done.append(f"removed the lab VM's job files in {jobs}")
    for line in done:
        say(line)
    say(f"clean: {len(done)} resources removed from {wd}" if done else f"clean: nothing left in {wd}")


def fleet_check(inventory, limit=None, setup=False, forks=None, say=print):
    from tuninglab.fleet import inventory as inv
    from tuninglab.fleet import survey
    found = survey.survey(inv.load(inventory, limit), inventory, say, setup=setup,
                          forks=_forks(forks))
    if any("error" in facts for facts in found.values()):
        raise SystemExit(1)


def fleet_run(name, *, inventory=None, limit=None, quick=False, profile=None, variant=None,
              forks=None, dry_run=False, repeats=None, duration=None, warmup=None, say=print):
    from tuninglab.fleet import inventory as inv
    from tuninglab.fleet import run
    profile = profile_name(quick, profile)
    _check_names(name, variant)
    extra = [(f"--{k}", str(v)) for k, v in (("repeats", _count_option("repeats", repeats)),
                                             ("duration", duration), ("warmup", warmup))
             if v is not None]
    job = run.Job(name, profile, variant, _forks(forks),
                  tuple(word for pair in extra for word in pair))
    state = run.run(inv.load(inventory, limit), job, inventory, say, dry_run=dry_run)
    if not dry_run and any(entry["status"] != "done" for entry in state.values()):
        raise SystemExit(1)


def fleet_clean(inventory, limit=None, say=print):
    from tuninglab.fleet import inventory as inv
    from tuninglab.fleet import run
    if run.clean(inv.load(inventory, limit), inventory, say):
        raise SystemExit(1)


def _forks(value) -> int:
    """--forks: how many hosts at once, as Ansible's (default 5)."""
    number = 5 if value is None else units.whole_number(value)
    if number is None or not 1 <= number <= 64:
        raise UserError(f"--forks: expected a whole number of hosts from 1 to 64, got {value!r}")
    return number


def bench(only=None, say=print):
    """Speed targets as ratios (bench/suite.py)."""
    from tuninglab.bench import suite
    suite.run(only, say)


def advise(socket=None, host=None, port=None, user=None, defaults_file=None, json=False,
           markdown=False, examples=False, on=None, inventory=None, calibrate=False,
           server=None, workdir=None, say=say) -> int:
    """`invoke advise`: the evidence for a running server, read-only (advise/report.py); on
    another machine of the fleet's inventory (fleet/advise_on.py); with examples, the "Check
    your server" page's captures (advise/examples.py)."""
    from tuninglab.advise import report, server_facts
    if calibrate:
        from tuninglab.advise import placement
        if socket or host or on:
            raise UserError("--calibrate measures this host with the lab's own throwaway "
                            "server: it takes no --socket, --host or --on")
        wd = workdir_mod.chosen(workdir)
        workdir_mod.check_place(wd)
        placement.calibrate(_server(server), wd, say)
        return 0
    if examples:
        from tuninglab.advise import examples as examples_mod
        if socket or host:
            raise UserError("--examples starts the guide's own servers: it takes no --socket "
                            "or --host")
        examples_mod.write_all(say=say)
        return 0
    if bool(socket) == bool(host):
        raise UserError("name the server with --socket PATH or with --host NAME (and --port)")
    if json and markdown:
        raise UserError("--json and --markdown are two forms of one report: choose one")
    # Taken as text (invoke's own int() would end in a traceback) and checked here; without
    # it, the --defaults-file's port or 3306.
    port = None if port is None else server_facts.port_number(port)
    form = "json" if json else "markdown" if markdown else "table"
    if on:
        from tuninglab.fleet import advise_on
        args = advise_on.remote_args(socket, host, port or 3306, user, defaults_file, form)
        return advise_on.advise_on(on, inventory, args, say,
                                   progress=lambda line: print(line, file=sys.stderr))
    target = server_facts.Target(socket or "", host or "", port, user or "",
                                 defaults_file or "")
    return report.advise(target, form, say)
