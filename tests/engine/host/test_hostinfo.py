import os
import re
import subprocess

import pytest

from tuninglab.engine.host import hostinfo

CPUINFO = """processor\t: 0
vendor_id\t: AuthenticAMD
model name\t: AMD EPYC 7B13
flags\t\t: fpu vme de pse hypervisor lahf_lm

processor\t: 1
model name\t: AMD EPYC 7B13
flags\t\t: fpu vme de pse hypervisor lahf_lm
"""


def test_parse_cpuinfo_x86():
    assert hostinfo.parse_cpuinfo(CPUINFO) == ("AMD EPYC 7B13", True)


def test_parse_cpuinfo_bare_metal_and_empty():
    text = CPUINFO.replace(" hypervisor", "")
    assert hostinfo.parse_cpuinfo(text) == ("AMD EPYC 7B13", False)
    assert hostinfo.parse_cpuinfo("") == (None, False)


def test_parse_meminfo():
    text = "MemTotal:       24684092 kB\nMemFree:        24334200 kB\n"
    assert hostinfo.parse_meminfo(text) == 24684092 * 1024
    assert hostinfo.parse_meminfo("") is None


def test_virtualization_prefers_systemd_detect_virt():
    assert hostinfo.virtualization("docker\n", True) == "docker"
    assert hostinfo.virtualization("none\n", True) == "none"
    assert hostinfo.virtualization(None, True) == "vm"
    assert hostinfo.virtualization(None, False) == "none"


def test_parse_versions():
    assert hostinfo.parse_sysbench_version("sysbench 1.0.20\n") == "1.0.20"
    assert hostinfo.parse_fio_version("fio-3.33\n") == "3.33"
    assert hostinfo.parse_sysbench_version(None) is None
    assert hostinfo.parse_fio_version("garbage") is None


def test_host_id_is_salted_and_hides_hostname():
    a = hostinfo.host_id("salt-a", "db1.example.com")
    assert re.fullmatch(r"[0-9a-f]{16}", a)
    assert a != hostinfo.host_id("salt-b", "db1.example.com")
    assert a == hostinfo.host_id("salt-a", "db1.example.com")
    with pytest.raises(ValueError):
        hostinfo.host_id("", "db1")


@pytest.mark.integration  # runs systemd-detect-virt
def test_host_info_on_this_machine():
    info = hostinfo.host_info("test-salt")
    assert set(info) == {"id", "cpu_model", "cores", "memory_bytes", "virtualization",
                         "hypervisor_flag", "kernel"}
    assert os.uname().nodename not in info["id"]
    assert info["cores"] == os.cpu_count()
    assert info["memory_bytes"] > 0
    assert isinstance(info["hypervisor_flag"], bool)
    assert info["virtualization"]
    assert info["kernel"]["release"] == os.uname().release


def test_tool_versions_missing_tool_is_none(monkeypatch):
    monkeypatch.setenv("PATH", "/nonexistent")
    versions = hostinfo.tool_versions()
    assert versions["sysbench"] is None and versions["fio"] is None
    assert versions["python"]


@pytest.mark.integration  # runs sysbench and fio
def test_tool_versions_installed():
    versions = hostinfo.tool_versions()
    assert re.fullmatch(r"\d+\.\d+\.\d+", versions["sysbench"])
    assert re.fullmatch(r"\d+\.\d+", versions["fio"])


def _git(repo, *args):
    subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True)


@pytest.mark.integration  # runs git
def test_git_revision(tmp_path):
    assert hostinfo.git_revision(tmp_path) == {"revision": None, "dirty": None}
    _git(tmp_path, "init", "-q")
    assert hostinfo.git_revision(tmp_path) == {"revision": None, "dirty": None}
    (tmp_path / "a.txt").write_text("1")
    _git(tmp_path, "add", "a.txt")
    _git(tmp_path, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "init")
    result = hostinfo.git_revision(tmp_path)
    assert re.fullmatch(r"[0-9a-f]{40}", result["revision"])
    assert result["dirty"] is False
    (tmp_path / "untracked.log").write_text("x")
    assert hostinfo.git_revision(tmp_path)["dirty"] is False
    (tmp_path / "a.txt").write_text("2")
    assert hostinfo.git_revision(tmp_path)["dirty"] is True


def test_parse_meminfo_reads_any_field():
    text = "MemTotal:       24684092 kB\nMemAvailable:   1000 kB\nSwapTotal:             0 kB\n"
    assert hostinfo.parse_meminfo(text, "MemAvailable") == 1000 * 1024
    assert hostinfo.parse_meminfo(text, "SwapTotal") == 0
