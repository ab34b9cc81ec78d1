"""Unit tests of `invoke recipe`'s arguments (cli.recipe_run): each bad one is one line naming
the option and what was expected, said before any recipe runs; the run gets the good ones."""

import pytest

from helpers import REPO
from tuninglab import cli
from tuninglab.errors import UserError
from tuninglab.recipes.model import MAX_REPEATS


@pytest.fixture
def started(monkeypatch):
    """The runs recipe_run would start: (name, Options, variant)."""
    runs = []
    monkeypatch.setattr(cli.runner, "run_all", lambda name, opts, variant, say:
                        runs.append((name, opts, variant)))
    return runs


def run(tmp_path, name="doublewrite", **given):
    args = {"quick": False, "profile": None, "repeats": None, "duration": None, "warmup": None,
            "mysqld": None, "workdir": str(tmp_path / "work"), "dry_run": True, "seed": None,
            **given}
    cli.recipe_run(name, **args)


def refused(tmp_path, started, **given) -> str:
    with pytest.raises(UserError) as info:
        run(tmp_path, **given)
    assert started == [] and "\n" not in str(info.value)
    return str(info.value)


@pytest.mark.parametrize("seed", ["abc", "1.5", "-1", "", "0x10", " 1"])
def test_a_seed_that_is_not_a_whole_number(tmp_path, started, seed):
    assert refused(tmp_path, started, seed=seed) == \
        f"--seed: expected a whole number, got {seed!r}"


def test_a_seed_too_large_for_the_result_file(tmp_path, started):
    assert refused(tmp_path, started, seed="9" * 5000).startswith(
        "--seed: expected a whole number below 2**63")


@pytest.mark.parametrize("seed, expected", [(None, 1), ("7", 7), (42, 42), ("0", 0)])
def test_the_seed_reaches_the_run(tmp_path, started, seed, expected):
    run(tmp_path, seed=seed)
    assert started[0][1].seed == expected


@pytest.mark.parametrize("repeats", ["many", "١٠", "²", "1e3", "-"])
def test_repeats_that_are_not_a_number(tmp_path, started, repeats):
    """Not even other scripts' digits, which Python's int() reads (issue 57: "decide")."""
    assert refused(tmp_path, started, repeats=repeats) == (
        f"--repeats: expected a whole number from 1 to {MAX_REPEATS} in the digits 0-9, "
        f"got {repeats!r}")


@pytest.mark.parametrize("value", ["١٠s", "١M", "١٠"])
def test_durations_sizes_and_counts_take_the_digits_0_to_9_only(value):
    from tuninglab import units
    with pytest.raises(ValueError):
        units.seconds(value)
    with pytest.raises(ValueError):
        units.size_bytes(value)
    assert units.whole_number(value) is None and units.whole_number(" 10 ") == 10


@pytest.mark.parametrize("name", ["../../x", "/etc/passwd", "doublewrite/../redo-size",
                                  "recipes/doublewrite/recipe.toml", "x.toml"])
def test_a_recipe_name_that_is_a_path(tmp_path, started, name):
    message = refused(tmp_path, started, name=name)
    assert message.startswith(f"recipe {name!r}: expected a plain name")
    assert "`invoke recipe.list`" in message


@pytest.mark.parametrize("variant", ["../x", "TPCC", "a b", "x" * 40])
def test_a_variant_name_that_is_not_plain(tmp_path, started, variant):
    assert refused(tmp_path, started, variant=variant) == (
        f"--variant {variant!r}: expected a variant name of lower-case letters, digits and "
        "dashes (variants of doublewrite: modes, tpcc)")


@pytest.mark.parametrize("variant", [None, "", "tpcc"])
def test_plain_variants_pass(tmp_path, started, variant):
    run(tmp_path, variant=variant)
    assert started[0][2] == variant


def test_a_workdir_that_is_a_file_is_said_in_a_dry_run(tmp_path, started):
    (tmp_path / "file").write_text("")
    assert refused(tmp_path, started, workdir=str(tmp_path / "file")) == (
        f"work directory {tmp_path / 'file'}: is a file, expected a directory; "
        "pass --workdir DIR")


def test_a_workdir_in_proc_is_said_in_a_dry_run(tmp_path, started):
    assert refused(tmp_path, started, workdir="/proc").startswith(
        "work directory /proc: a virtual filesystem (proc), expected a directory on a real "
        "filesystem you can write")


def test_each_flag_of_invoke_recipe_is_defined_once_in_recipe_run():
    """tasks.py builds `invoke recipe` from recipe_run's parameters and RECIPE_HELP: every
    parameter has its help, every help its parameter, and the task takes exactly those."""
    import importlib.util
    import inspect

    spec = importlib.util.spec_from_file_location("tasks", REPO / "tasks.py")
    tasks = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(tasks)
    params = list(inspect.signature(cli.recipe_run).parameters)
    assert sorted(params) == sorted(cli.RECIPE_HELP)
    assert list(inspect.signature(tasks.run.body).parameters) == ["c", *params]
    assert sorted(tasks.run.help) == sorted(params)


# --- an empty --workdir (issue 77, item 8): refused in one line, never read as ./work ----------

EMPTY_WORKDIR = ("--workdir: expected a directory, got an empty value; leave --workdir out for "
                 "./work (or $TUNINGLAB_WORKDIR)")


def test_an_empty_workdir_is_refused_for_a_dry_run(tmp_path, started):
    assert refused(tmp_path, started, workdir="") == EMPTY_WORKDIR


@pytest.mark.parametrize("command", [
    lambda: cli.lab_clean("", say=print),
    lambda: cli.lab_check("", say=print),
    lambda: cli.lab_servers(workdir="", say=print),
    lambda: cli.lab_servers(build="mariadb-11.8", workdir="", say=print),
    lambda: cli.lab_noise(workdir="", say=print),
    lambda: cli.claims_status(workdir="", say=print),
    lambda: cli.claims_rerun(dry_run=True, workdir="", say=print),
    lambda: cli.advise(calibrate=True, workdir="", say=print),
], ids=["lab.clean", "lab.check", "lab.servers", "lab.servers --build", "lab.noise",
        "claims.status", "claims.rerun --dry-run", "advise --calibrate"])
def test_every_command_taking_a_workdir_refuses_an_empty_one(command, capsys):
    with pytest.raises(UserError) as info:
        command()
    assert str(info.value) == EMPTY_WORKDIR
    assert capsys.readouterr().out == ""  # refused before anything was done or said


def test_an_empty_workdir_variable_is_refused_too(tmp_path, started, monkeypatch):
    monkeypatch.setenv("TUNINGLAB_WORKDIR", "")
    with pytest.raises(UserError, match=r"^\$TUNINGLAB_WORKDIR is set but empty"):
        run(tmp_path, workdir=None)
    with pytest.raises(UserError, match=r"^\$TUNINGLAB_WORKDIR is set but empty"):
        cli.lab_clean(None, say=print)
    assert started == []


def test_a_given_workdir_reaches_the_run(tmp_path, started):
    run(tmp_path)
    assert started[0][1].workdir == tmp_path / "work"
