"""Unit tests for engine.preflight.check_schedulers: a storage.scheduler this kernel does not
offer (bfq is a module some kernels lack) is refused before anything runs, naming the recipe
file and what the kernel offers."""

import pytest

from helpers import fixture_recipe
from tuninglab.engine.run import preflight
from tuninglab.engine.storage import sandbox
from tuninglab.errors import UserError
from tuninglab.recipes import plan as planner
from tuninglab.recipes.load import load


def points(tmp_path):
    fixture_recipe(tmp_path, "scheduler-sweep", "demo")   # sweeps none and bfq
    recipe = load("demo", tmp_path)
    return recipe, planner.build(recipe.experiment("full")).points


def test_a_scheduler_the_kernel_lacks_is_refused_with_what_it_offers(tmp_path):
    recipe, pts = points(tmp_path)
    with pytest.raises(UserError, match=r"demo/recipe.toml: storage.scheduler 'bfq' is not "
                                        r"offered by this kernel \(its devices offer none, "
                                        r"mq-deadline, kyber\).*`modprobe bfq`"):
        preflight.check_schedulers(recipe, pts, ["none", "mq-deadline", "kyber"])


def test_offered_schedulers_or_an_unreadable_queue_pass(tmp_path):
    recipe, pts = points(tmp_path)
    preflight.check_schedulers(recipe, pts, ["none", "mq-deadline", "kyber", "bfq"])
    preflight.check_schedulers(recipe, pts, None)   # no queue to read: the sandbox says


def test_offered_schedulers_are_read_from_a_loop_queue_or_the_named_disk(tmp_path, monkeypatch):
    for name, text in (("loop3", "none [mq-deadline] kyber\n"), ("sdb", "[none] bfq\n")):
        (tmp_path / name / "queue").mkdir(parents=True)
        (tmp_path / name / "queue" / "scheduler").write_text(text)
    monkeypatch.setattr(sandbox, "SYS_BLOCK", tmp_path)
    monkeypatch.setattr(sandbox.guard, "parent_disk", lambda name: None)
    assert sandbox.offered_schedulers() == ["none", "mq-deadline", "kyber"]
    assert sandbox.offered_schedulers("/dev/sdb") == ["none", "bfq"]
    assert sandbox.offered_schedulers("/dev/sdc") is None
