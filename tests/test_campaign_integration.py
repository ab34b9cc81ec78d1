"""`invoke claims.rerun` for real on a tiny fixture recipe: a claim on it, a scratch recipes
directory, data directory and work directory; the campaign interrupted after its first finished
run, then run again, which resumes that run, writes the result and says the claim's verdict
before and after."""

import pytest

from helpers import fixture_recipe, result_paths, servers_under
from tuninglab import campaign
from tuninglab.errors import Interrupted
from tuninglab.evidence import result_files, superseded
from tuninglab.evidence.claims_map import Claim
from tuninglab.recipes import load
from tuninglab.results import verdicts as words

pytestmark = pytest.mark.integration

CLAIM = Claim(id="tiny-doublewrite-off", source="s", table="t.csv", row="r", column="",
              source_baseline="", source_ratio=1.30, recipe="tiny", variant="", point="OFF",
              invert=False, metric="", headline=False, why="", topic="tiny")


def test_the_campaign_runs_resumes_after_an_interruption_and_reports(recipes_dir, tmp_path,
                                                                    monkeypatch):
    fixture_recipe(recipes_dir, "tiny")
    data, wd = tmp_path / "data", tmp_path / "wd"
    data.mkdir()
    monkeypatch.setattr(result_files, "DATA_DIR", data)
    # The site reads the current recipe from the project's recipes/; this one is the scratch
    # directory's, so that the new result counts as current evidence.
    monkeypatch.setattr(superseded, "_current",
                        lambda name, variant: load.load(name, recipes_dir, variant))

    def interrupting(line: str) -> None:
        said.append(line)
        if line.startswith("[2/"):  # the first run is finished and saved: Ctrl-C now
            raise KeyboardInterrupt

    said = []
    with pytest.raises(Interrupted):
        campaign.rerun(budget="2m", workdir=wd, say=interrupting, claims=[CLAIM],
                       recipes_dir=recipes_dir)
    assert result_paths(data) == [] and (wd / "progress" / "tiny-full.json").is_file()
    assert said[-1] == "\nAnswered 0 claims."
    assert servers_under(wd) == []

    said = []
    answered = campaign.rerun(budget="2m", workdir=wd, say=said.append, claims=[CLAIM],
                              recipes_dir=recipes_dir)
    out = "\n".join(said)
    assert "  1. tiny: 1 claim, time unknown; budget 2m00s; resumes an interrupted run" in out
    assert "aims: tiny-doublewrite-off ±23.49%" in out
    assert "resuming: 1 finished runs kept" in out
    assert "stop rule: claims: tiny-doublewrite-off ±" in out
    paths = result_paths(data)
    assert len(paths) == 1 and paths[0].parent.name == "tiny"
    change = next(x for x in said if x.startswith("  tiny-doublewrite-off: "))
    before, after = change.split(": ", 1)[1].split(" (")[0].split(" -> ")
    assert before == words.NOT_MEASURED and after in words.VOCABULARY
    assert after != words.NOT_MEASURED
    assert [now.claim.id for _, now in answered] == (["tiny-doublewrite-off"]
                                                     if after in words.ANSWERS else [])
    assert not (wd / "progress" / "tiny-full.json").exists()
    assert servers_under(wd) == []
