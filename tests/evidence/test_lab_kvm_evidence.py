"""A lab VM under KVM, on one disk per point, measures the hardware's throughput (engine/lab/vm.py:
shared_physical_device only for two or more members): its evidence set leads a claim's cell
over a larger one from an emulated CPU, which can only say "not testable here"."""

import copy
import json
import shutil

import pytest

from helpers import DATA
from tuninglab.evidence import sets as evidence
from tuninglab.evidence import result_files
from tuninglab.evidence import functional

KERNELS = sorted((DATA / "kernels").glob("*.json"))


def under_kvm(doc: dict, n: int) -> dict:
    """The result as another machine's lab VM under KVM would have written it."""
    doc = copy.deepcopy(doc)
    doc["host"]["id"] = f"{n:016x}"
    for point in doc["points"]:
        for run in point["runs"]:
            run["lab"].update(accelerator="kvm", shared_physical_device=False)
    return doc


@pytest.fixture
def data_dir(tmp_path, monkeypatch):
    (tmp_path / "kernels").mkdir()
    for path in KERNELS:
        shutil.copy(path, tmp_path / "kernels" / path.name)
    tcg = [json.loads(p.read_text()) for p in KERNELS]
    latest = [d for d in tcg if not d.get("variant")][-1]
    (tmp_path / "kernels" / "kvm.json").write_text(json.dumps(under_kvm(latest, 7)))
    monkeypatch.setattr(result_files, "DATA_DIR", tmp_path)
    return tmp_path


def test_a_kvm_set_on_one_disk_leads_a_larger_tcg_set(data_dir):
    sets = evidence.evidence_sets("kernels")
    assert len(sets) == 2 and "lab VM (KVM)" in sets[0].host_class.name
    assert len(sets[1].results) >= len(sets[0].results)
    assert functional.functional_only(sets[0].latest) is None
    assert "emulated CPU" in functional.functional_only(sets[1].latest)
