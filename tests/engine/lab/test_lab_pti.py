"""Page-table isolation in the lab VM: the kernel options a point boots with, and what the
guest records of it (its CPU flag), for the kernels:pti regime check."""

from tuninglab.engine.lab import guest
from tuninglab.engine.lab.vm import kernel_args

# Captured from a Debian 12 cloud kernel guest under TCG booted with pti=on (one CPU, trimmed
# flags): the kernel thinks this AMD-branded CPU safe from Meltdown, yet isolates its page
# tables, and sets "pti".
CPUINFO_PTI = """processor\t: 0
vendor_id\t: AuthenticAMD
model name\t: QEMU TCG CPU version 2.5+
flags\t\t: fpu vme de pse tsc msr pae mce cx8 apic sep pge cmov pat clflush mmx fxsr sse sse2 \
syscall nx lm rep_good nopl cpuid pni cx16 hypervisor lahf_lm pti
bugs\t\t: fxsave_leak sysret_ss_attrs spectre_v1 spectre_v2
"""


def test_the_kernel_options_of_a_point():
    base = {"mitigations": "auto", "pti": "auto"}
    assert kernel_args(base) == ""
    assert kernel_args({**base, "pti": "on"}) == "pti=on"
    assert kernel_args({**base, "mitigations": "off", "pti": "off"}) == "mitigations=off pti=off"
    assert kernel_args({"mitigations": "off"}) == "mitigations=off"   # a plan from before pti


def test_the_guest_reads_isolation_from_its_cpu_flags():
    assert guest.page_table_isolation(CPUINFO_PTI)
    assert not guest.page_table_isolation(CPUINFO_PTI.replace(" pti\n", "\n"))
    assert not guest.page_table_isolation("")
