"""A host class in a DBA's words (host_class.in_words), made from the parts its name is made
of: the machine, the lab VM around a run, a duet's half of it, a contributor's."""

import copy

from helpers import contributed, duet_doc, result
from tuninglab.evidence import result_files
from tuninglab.evidence.host_class import host_class, in_words


def test_a_machine_reads_as_its_cores_cpu_memory_and_disk():
    doc = result()
    doc["host"].update(cpu_model="Intel(R) Xeon(R) CPU E5-2680 v4 @ 2.40GHz", cores=2,
                       memory_bytes=24 * 2**30, virtualization="kvm")
    doc["storage"].update(device="vda", disk="vda")
    assert in_words(doc) == "a 2-core Intel Xeon VM with 24 GiB and a virtio disk"


def test_a_disk_that_flushes_from_a_cache_or_slowly_says_so():
    doc = result()
    doc["device_baseline"]["fsync_per_s"] = 120.0
    assert in_words(doc).endswith("whose flushes are slow (under 300 a second)")
    doc["device_baseline"]["fsync_per_s"] = 90_000.0
    assert in_words(doc).endswith("whose flushes return at once (a write cache)")


def test_a_duet_reads_as_half_the_machine_and_a_contribution_as_a_contributors():
    duet = duet_doc()
    assert host_class(duet).duet
    assert in_words(duet).startswith("half of a ")
    assert in_words(duet).endswith("(two servers side by side, "
                                   f"{duet['host']['cores'] // 2} core"
                                   f"{'s' * (duet['host']['cores'] // 2 != 1)} each)")
    assert in_words(contributed(result())).startswith("a contributor's ")


def test_a_run_in_the_lab_vm_names_the_emulated_vm_before_the_machine():
    lab = result_files.results_for("raid-level", "")[-1]
    words = in_words(lab)
    assert words.startswith("an emulated 2-vCPU VM (QEMU without KVM) inside a ")
    assert "lab" not in words and "class" not in words


def test_the_words_never_carry_the_labs_names():
    doc = copy.deepcopy(result())
    for words in (in_words(doc), in_words(duet_doc()), in_words(contributed(doc))):
        assert not any(w in words for w in ("duet", "sitting", "host class", "flushes 300"))
