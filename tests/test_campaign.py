"""`invoke claims.rerun` and `invoke claims.status` without starting a server (campaign.py): the
dry run's order, aims and budgets against the committed results, an interrupted run first, the
claims' aims, this host's noise figures, and the command line's errors."""

import dataclasses
import math
import types

import pytest

from helpers import fixture_recipe, result_paths
from tuninglab import campaign, cli
from tuninglab.engine.measure import noise
from tuninglab.errors import UserError
from tuninglab.evidence import claim_jobs as cj
from tuninglab.evidence import claim_status as cs
from tuninglab.evidence import claim_verdicts, result_files
from tuninglab.evidence.claims_map import Claim
from tuninglab.recipes import plan as planner
from tuninglab.recipes.load import load
from tuninglab.results import precision_need, stats
from tuninglab.results import verdicts as words


@pytest.fixture
def committed(committed_data, monkeypatch):
    monkeypatch.setattr(result_files, "DATA_DIR", committed_data)
    return committed_data


def dry_run(wd, **kw) -> list[str]:
    said = []
    campaign.rerun(budget=kw.pop("budget", "3h"), dry_run=True, workdir=wd, say=said.append,
                   **kw)
    return "\n".join(said).splitlines()


def test_the_dry_run_lists_the_runs_by_answers_per_hour_and_starts_nothing(committed,
                                                                           tmp_path):
    files_before = result_paths(committed)
    lines = dry_run(tmp_path / "work")
    assert lines[0].startswith("Campaign (profile full, budget 3h00m, host ")
    assert lines[-1] == "dry run: nothing was started"
    assert any(x.startswith("Answered already: ") for x in lines)
    assert f"Estimates assume: {cs.ASSUMPTIONS}." in lines
    runs = [x for x in lines if x[:5].strip().rstrip(".").isdigit()]
    found = cs.statuses(here=campaign.here(tmp_path / "work"))
    jobs = cj.jobs(found)
    chosen, _ = campaign.schedule(jobs, 3 * 3600,
                                  campaign.image_builds(jobs, tmp_path / "work", "full"))
    assert [x.split(":")[0].split(". ", 1)[1] for x in runs] == \
        [j.label.split(":")[0] for j, _ in chosen]
    rates = [j.per_hour for j, _ in chosen if j.seconds]
    assert rates == sorted(rates, reverse=True)
    for x, (job, share) in zip(runs, chosen):
        assert f"budget {campaign.human_seconds(share)}" in x
    assert result_paths(committed) == files_before
    assert not (tmp_path / "work" / "progress").exists()


def test_an_interrupted_run_goes_first(committed, tmp_path):
    wd = tmp_path / "work"
    jobs = cj.jobs(cs.statuses(here=campaign.here(wd)))
    if len(jobs) < 2:
        pytest.skip("the committed results leave fewer than two runs to order")
    last = jobs[-1]
    progress = campaign._progress(wd, last, "full")
    progress.parent.mkdir(parents=True)
    progress.write_text("{}")
    lines = dry_run(wd, budget="168h")
    first = next(x for x in lines if x.startswith("  1. "))
    assert first.startswith(f"  1. {last.label}: ") and "resumes an interrupted run" in first


def test_a_run_that_does_not_fit_the_budget_is_left_out(committed, tmp_path):
    jobs = [j for j in cj.jobs(cs.statuses(here=campaign.here(tmp_path))) if j.seconds]
    if not jobs:
        pytest.skip("no run with a known time")
    shortest = min(j.seconds for j in jobs)
    chosen, out = campaign.schedule(jobs, shortest * 0.9)
    assert chosen == [] and out == jobs


def test_a_run_left_out_says_its_time_or_that_it_is_unknown_never_0s():
    unknown = cj.Job("redo-size", "", (types.SimpleNamespace(reach=None),))
    assert "time unknown" in campaign._left_out_why(unknown)
    assert "0s" not in campaign._left_out_why(unknown)
    assert campaign.schedule([unknown], 30)[1] == [unknown]


def test_a_lab_vm_image_not_built_yet_is_counted_once_before_the_first_run_that_boots_it(
        tmp_path):
    jobs = [cj.Job(name, "", ()) for name in ("zfs-recordsize", "doublewrite", "raid-level",
                                              "raid10")]
    builds = campaign.image_builds(jobs, tmp_path, "full")
    # doublewrite runs on the host; raid10 boots the image raid-level's build made
    assert builds == {"zfs-recordsize": (["cloud-amd64-zfs"], 330.0),
                      "raid-level": (["cloud-amd64"], 90.0)}
    with_time = [_Timed(j, 600.0) for j in jobs]
    chosen, out = campaign.schedule(with_time, 600.0 + 330.0 + 60.0, builds)
    assert [j.label for j, _ in chosen] == ["zfs-recordsize"] and len(out) == 3
    line = campaign.job_line(1, with_time[0], 900.0, tmp_path, "full", builds)
    assert "and about 5m30s first to build the lab VM image cloud-amd64-zfs;" in line


@dataclasses.dataclass(frozen=True)
class _Timed:
    """A job with a known time (claim_status.Job's comes from its claims' reach)."""
    job: cj.Job
    seconds: float
    statuses: tuple = ()
    per_hour: float = 1.0

    @property
    def label(self) -> str:
        return self.job.label

    @property
    def recipe(self) -> str:
        return self.job.recipe

    @property
    def variant(self) -> str:
        return self.job.variant


@pytest.mark.parametrize("budget,expected", [
    ("soon", "--budget: expected a duration like 3h, 90m or 2h30m, got 'soon'"),
    ("10s", "--budget: expected between 1m and 7 days, got '10s'"),
    ("999h", "--budget: expected between 1m and 7 days"),
])
def test_a_bad_budget_is_named(budget, expected):
    with pytest.raises(UserError, match=expected):
        campaign.parse_budget(budget)
    assert campaign.parse_budget("3h") == 10800 and campaign.parse_budget("90m") == 5400


def test_the_commands_refuse_a_bad_topic_or_budget_before_anything(committed, tmp_path):
    with pytest.raises(UserError, match="--topic 'nope': no claim has that topic"):
        cli.claims_rerun("nope", "1h", dry_run=True, workdir=str(tmp_path), say=print)
    with pytest.raises(UserError, match="--budget: expected a duration"):
        cli.claims_rerun(None, "soon", dry_run=True, workdir=str(tmp_path), say=print)
    with pytest.raises(UserError, match="--quick and --profile disagree"):
        cli.claims_status(quick=True, profile="full", say=print)


def test_the_status_command_prints_the_report(committed, tmp_path):
    said = []
    cli.claims_status("redo-size", workdir=str(tmp_path), say=said.append)
    assert said[0].startswith("Claims of topic redo-size: ")
    assert "  dimitri2010-redo-1024m-over-128m (redo-size): " in said[0]


def test_this_host_knows_its_server_and_the_class_its_records_give(committed, tmp_path,
                                                                    monkeypatch):
    """Its results join the set of its server and its machine's class: the claims it weighs."""
    import json
    from tuninglab.engine.server import mysqld
    from tuninglab.evidence.host_class import host_class
    record = json.loads(sorted((committed / "calibrations").glob("*.json"))[-1].read_text())
    monkeypatch.setattr(campaign, "host_id", lambda: record["host"]["id"])
    monkeypatch.setattr(mysqld, "find", lambda path=None: mysqld.ServerBinary(
        path or "/usr/sbin/mariadbd", "mariadb", (11, 8, 3), "mariadbd Ver 11.8.3"))
    me = campaign.here(tmp_path / "work")
    assert me.server == "mariadb 11.8" and me.machine == host_class(record)
    assert dry_run(tmp_path / "work")[0].startswith(
        f"Campaign (profile full, budget 3h00m, host {record['host']['id'][:8]}, adding to "
        f"mariadb 11.8, {me.machine.name}")   # and "; its duets to ..." where one is a duet

    def missing(path=None):
        raise UserError("no MySQL or MariaDB server found")
    monkeypatch.setattr(mysqld, "find", missing)
    monkeypatch.setattr(campaign, "host_id", lambda: "0123456789abcdef")
    me = campaign.here(tmp_path / "work")
    assert me.server is None and me.machine is None
    assert me.where == "the claim's first evidence set"


# --- the claims' aims --------------------------------------------------------------------------

def claim(cid, **changes) -> Claim:
    fields = dict(id=cid, source="s", table="t.csv", row="r", column="", source_baseline="",
                  source_ratio=1.30, recipe="redo-size", variant="", point="1G", invert=False,
                  metric="", headline=False, why="", topic="redo-size")
    return Claim(**(fields | changes))


def status(cid, reach=None, block="", need=23.49, **changes) -> cs.Status:
    v = claim_verdicts.Verdict(words.TOO_NOISY, words.TOO_NOISY, None, None)
    return cs.Status(claim(cid, **changes), v, precision_need.Need(need, ""), None,
                     reach is not None or block == cs.UNKNOWN, reach, block=block)


def test_each_claim_aims_at_its_reach_else_its_need_never_at_what_no_run_answers():
    found = [status("a", cs.Reach(5, 600, 18.9, 20.1)),
             status("b", block=cs.UNKNOWN, variant="serie-i", need=3.52),
             status("c", block=cs.OUT_OF_REACH, need=7.1),
             status("d", block=cs.TOO_FINE, need=0.48),
             status("e", block=cs.LAB_THROUGHPUT),
             status("f", block=cs.NOT_HERE)]
    aims = dict(campaign.aims(found))
    assert {label: [(a.claim, a.pct) for a in got] for label, got in aims.items()} == {
        "redo-size": [("a", 18.9), ("c", 7.1)], "redo-size:serie-i": [("b", 3.52)]}
    assert aims["redo-size"][0].point == "1G" and aims["redo-size"][0].metric == ""


def test_the_noise_figures_give_the_per_round_sd_the_dry_run_expects(tmp_path):
    fixture_recipe(tmp_path, "tiny")
    figures = {"restart": {"run_to_run_sd_pct": 4.0},
               "switchback": {"round_log_ratio_sd_pct": 3.0, "block_s": 10}}
    sd = campaign._noise_sd(figures)
    for design in ("restart", "switchback"):
        e = load("tiny", recipes_dir=tmp_path).experiment(repeats=6)
        plan = planner.build(e, design=design)
        se = sd(plan) / math.sqrt(6)
        df = 5 if design == "switchback" else 10
        expected = noise.expected_half_width_pct(figures, plan)
        assert round((math.exp(stats.t_quantile(0.95, df) * se) - 1) * 100, 1) == expected
    assert campaign._noise_sd(None) is None
    assert campaign._noise_sd({"restart": {}})(plan) is None
