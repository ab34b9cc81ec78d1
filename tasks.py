"""invoke tasks: the command line of InnoDB Tuning Lab. Logic lives in src/tuninglab."""

import sys

from invoke import Collection, Exit, task

from tuninglab import cli

ns = Collection()


def run(c, name, **flags):
    """Run a recipe (its main experiment, then each variant): build, measure, write
    data/<recipe>/<file>.json, print the table."""
    cli.guard(cli.recipe_run, name, **flags)


# The flags are cli.recipe_run's, with its helps: defined once, there.
run.__signature__ = cli.task_signature(cli.recipe_run)
run = task(default=True, help=cli.RECIPE_HELP, iterable=["device"])(run)


@task(name="list")
def list_(c):
    """Every recipe with its question, needs and estimated duration per profile."""
    cli.guard(cli.recipe_list)


@task(iterable=["path"], help={"path": "a result file or directory, repeatable "
                                        "(default: every data/<recipe>/*.json, and the "
                                        "claims map and historical sources read strictly)",
                                "contributions": "check them as files a pull request adds: "
                                                 "contributed results only, none from a host "
                                                 "of the project's own results"})
def check(c, path=None, contributions=False):
    """Check result files: size, JSON, schema, recipe and its version, sane values, text, the
    statistics their runs give, place; one line per problem, exit 1 if any."""
    cli.guard(cli.data_check, path or [], print, contributions)


@task(name="claims", help={"recipe": "only the claims this recipe answers (default: all)"})
def claims(c, recipe=None):
    """The source claims' verdicts, pooled over every comparable result (one server, one host
    class) and sized against what the source claimed: the claims page, in the terminal."""
    cli.guard(cli.data_claims, recipe)


CAMPAIGN_HELP = {"topic": "only the claims of this topic (a topic page's name, e.g. redo-size)",
                 "quick": "the quick profile (default: full)",
                 "profile": "a profile by name (default: full)",
                 "workdir": "work directory for templates and runs (default: ./work)",
                 "server": "the server whose evidence to weigh and run: mariadb-10.11 (the "
                           "host's, default), mariadb-11.8 or mysql-9.7"}


@task(name="status", help=CAMPAIGN_HELP)
def claims_status(c, topic=None, quick=False, profile=None, workdir=None, server=None):
    """Every source claim: its pooled verdict, the 95% half-width it needs to be answered and
    has, and the rounds and time answering it would take here (or why nothing here can)."""
    cli.guard(cli.claims_status, topic, quick, profile, workdir, server)


@task(name="rerun", help={**CAMPAIGN_HELP,
                          "budget": "the campaign's time, e.g. 3h or 90m (default 3h)",
                          "dry_run": "print the runs in order, their aims and times; run nothing"})
def claims_rerun(c, topic=None, budget="3h", quick=False, profile=None, dry_run=False,
                 workdir=None, server=None):
    """Run the recipes of the open claims this host can answer, in order of expected answers
    per hour, each until its claims' intervals are narrow enough or its budget is spent; each
    result is written as it finishes. Run it again to resume."""
    cli.guard(cli.claims_rerun, topic, budget, quick, profile, dry_run, workdir, server)


@task(name="submit", help={
    "path": "the result file to prepare (a run's own new file in data/ is prepared in place)",
    "description": "your hardware in a few words (at most 500 characters)",
    "keep_paths": "keep paths under your home and work directory as they are",
    "data_dir": "write under this directory instead of the repository's data/ (for tests)",
})
def submit(c, path, description=None, keep_paths=False, data_dir=None):
    """Prepare a result for a pull request: check it, replace paths that name you, mark it
    contributed, write it into data/<recipe>/, print the git commands (runs none)."""
    cli.guard(cli.data_submit, path, description, keep_paths, data_dir)


@task(default=True, help={"k": "only tests matching this pytest -k expression",
                          "unit": "skip the integration tests (no servers started)"})
def test(c, k=None, unit=False):
    """Run the test suite (unit and integration tests on the real server)."""
    # The slowest tests printed at the end: where CI's time goes, for keeping it inside its limit.
    args = [sys.executable, "-m", "pytest", "-q", "--durations=25"]
    if k:
        args += ["-k", k]
    if unit:
        args += ["-m", "not integration"]
    result = c.run(" ".join(f"'{a}'" for a in args), pty=False, warn=True)
    if result.exited:
        raise Exit(code=result.exited)


@task(name="build", help={"site_dir": "where to write the site (default: site/)"})
def docs_build(c, site_dir=None):
    """Build the guide strictly into site/ (broken links, bad fences, missing data fail it)."""
    cli.guard(cli.docs_build, site_dir)


@task(name="serve", help={"address": "host:port to serve on (default 127.0.0.1:8000)"})
def docs_serve(c, address="127.0.0.1:8000"):
    """Serve the guide locally with live reload."""
    cli.guard(cli.docs_serve, address)


@task(name="check", help={"workdir": "the work directory to check (default: ./work)"})
def lab_check(c, workdir=None):
    """What this host can do for the OS lab (root, loop devices, filesystems, schedulers...)."""
    cli.guard(cli.lab_check, workdir)


@task(name="clean", help={"workdir": "the work directory to clean (default: ./work)"})
def lab_clean(c, workdir=None):
    """Remove servers, mounts, loop devices and files a killed run left (from its state file)."""
    cli.guard(cli.lab_clean, workdir)


@task(name="servers", help={
    "build": "build (or check and rebuild) this server's root: mariadb-11.8, mysql-9.7 or all",
    "workdir": "the work directory holding the roots (default: ./work)"})
def lab_servers(c, build=None, workdir=None):
    """The servers a recipe can run (--server): the host's own and those built from Debian's
    archive into roots of their own, with their versions, state and size."""
    cli.guard(cli.lab_servers, build, workdir)


@task(name="noise", help={"workdir": "the work directory whose results carry the figures "
                                      "(default: ./work)",
                          "quick": "fewer rounds, repeats and halves (about 9 minutes)",
                          "designs": "the designs to calibrate, comma-separated (default: "
                                     "switchback,restart,duet)",
                          "server": "the server whose A/As to measure: mariadb-10.11 (the "
                                    "default), mariadb-11.8 or mysql-9.7"})
def lab_noise(c, workdir=None, quick=False, designs="switchback,restart,duet", server=None):
    """Measure this host's noise: an A/A experiment per design (switchback, restart, duet), about
    17 minutes; later results carry its figures, dry runs say what precision to expect, and its
    record in data/calibrations/ gives its host classes' pooled intervals (the whole machine's,
    and the duet's) their between-sitting spread."""
    cli.guard(cli.lab_noise, workdir, quick, designs, server)


@task(name="advise", help={
    "socket": "the server's socket (a local server: its host is read too)",
    "host": "or the server's host name or address (with --port)",
    "port": "the server's TCP port, 1-65535 (default: the --defaults-file's, or 3306)",
    "user": "the account to log in as: it needs only USAGE (and PROCESS on MySQL for the "
            "history list); the password comes from MYSQL_PWD or --defaults-file, never here",
    "defaults_file": "an option file whose [client] group (and MariaDB's [client-server] and "
                     "[client-mariadb]) gives user, password, port and ssl-ca, ssl-cert, ...",
    "json": "print JSON for a program",
    "markdown": "print Markdown a DBA can paste into a ticket",
    "examples": "write the 'Check your server' page's examples: start each of the guide's "
                "servers with dated settings and capture what advise reads (needs root)",
    "on": "run it on this host of an Ansible inventory, over SSH (its --socket or --host "
          "are that machine's); this revision is shipped and set up there first if needed",
    "inventory": "the Ansible inventory whose host --on names (default: Ansible's own)",
    "calibrate": "place this host among the guide's host classes: a quick run of "
                 "flush-log-at-trx-commit (a few minutes, its device baseline included) on the "
                 "lab's own throwaway server, written into data/ like any result",
    "server": "with --calibrate: the server it runs (default mariadb-10.11)",
    "workdir": "with --calibrate: the work directory (default: ./work)"})
def advise(c, socket=None, host=None, port=None, user=None, defaults_file=None, json=False,
           markdown=False, examples=False, on=None, inventory=None, calibrate=False,
           server=None, workdir=None):
    """What the guide's evidence says for a running server and its host: per topic, the current
    value, the pooled evidence for the closest server and host class, the advice that follows,
    and the command that measures it here. Reads only; exit 1 when some advice applies."""
    status = cli.guard(cli.advise, socket, host, port, user, defaults_file, json, markdown,
                       examples, on, inventory, calibrate, server, workdir)
    if status:
        raise Exit(code=status)


@task(help={"only": "site, scale, engine, sandbox, vm, tpcc, precision, duet, noise or "
                    "pooling (default: all)"})
def bench(c, only=None):
    """Benchmarks printed as ratios to their targets: the site (build, JavaScript, first chart),
    the site with 1,000 generated contributions (build time, chart data per page) and the engine
    (harness overhead and precision of `doublewrite --quick`, about 5 min), and precision
    (switchback A/B and A/A, restart A/B, and the duets: half-widths, wall times, false
    verdicts; about 75 min), duet runs alone (A/B, CPU- and disk-bound A/As with the false
    verdicts of the first's trials, and a restart-only setting, both points at once on twin
    servers; about 40 min), noise control (whether pinning CPUs or dropping the page cache
    helps here; about 20 min), and pooling (the coverage of a pooled interval: A/As over k
    results, and effects that differ between machines with the committed calibrations held
    fixed; about 8 min of CPU, no server)."""
    cli.guard(cli.bench, only)


FLEET_HELP = {"inventory": "an Ansible inventory (INI or YAML file, directory, or db1,db2,); "
                           "default: Ansible's own (ansible.cfg, ANSIBLE_INVENTORY)",
              "limit": "only these hosts or groups, as ansible-playbook's --limit"}


@task(name="check", help={**FLEET_HELP, "setup": "ship this revision and run setup.sh where "
                                                  "it is not set up yet, so lab.check can "
                                                  "answer",
                          "forks": "how many hosts at once (default 5)"})
def fleet_check(c, inventory=None, limit=None, setup=False, forks=None):
    """For each host (ansible/fleet-check.yml): its hardware and system, whether it has this
    revision, and what it can run (lab.check's answers). Exit 1 if any host is unreachable."""
    cli.guard(cli.fleet_check, inventory, limit, setup, forks)


@task(name="run", help={
    **FLEET_HELP,
    "name": "the recipe to run on every host",
    "quick": "the quick profile", "profile": "a profile by name (default: full)",
    "variant": "run only this variant ('' for the main experiment)",
    "forks": "how many hosts run at once (default 5)",
    "dry_run": "print each host's plan and the time estimate, contact no host",
    "repeats": "repeats per point, overriding the profile",
    "duration": "measured seconds per run, e.g. 30s or 2m",
    "warmup": "discarded warm-up per run, e.g. 10s",
})
def fleet_run(c, name, inventory=None, limit=None, quick=False, profile=None, variant=None,
              forks=None, dry_run=False, repeats=None, duration=None, warmup=None):
    """Run a recipe on every host (ansible/fleet-run.yml): ship this revision, set it up, run,
    fetch the results into data/<recipe>/, checked, and print each host's verdicts. A host's
    tuninglab_devices (with tuninglab_destroy_data: true) are erased. Rerun to resume."""
    cli.guard(cli.fleet_run, name, inventory=inventory, limit=limit, quick=quick,
              profile=profile, variant=variant, forks=forks, dry_run=dry_run, repeats=repeats,
              duration=duration, warmup=warmup)


@task(name="clean", help=FLEET_HELP)
def fleet_clean(c, inventory=None, limit=None):
    """On each host (ansible/fleet-clean.yml): stop fleet runs still going, then lab.clean its
    work directory."""
    cli.guard(cli.fleet_clean, inventory, limit)


ns.add_task(advise)
ns.add_collection(Collection("recipe", run, list_))
ns.add_collection(Collection("data", check, claims, submit))
ns.add_collection(Collection("claims", claims_status, claims_rerun))
ns.add_collection(Collection("test", test))
ns.add_collection(Collection("docs", docs_build, docs_serve))
ns.add_collection(Collection("lab", lab_check, lab_clean, lab_noise, lab_servers))
ns.add_collection(Collection("fleet", fleet_check, fleet_run, fleet_clean))
ns.add_task(bench)
