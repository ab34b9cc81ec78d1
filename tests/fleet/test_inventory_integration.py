"""An inventory read by the real ansible-inventory, as the fleet commands read it: INI and YAML,
group and host variables, --limit, and a mistake in the file as one line."""

import re

import pytest

from helpers import REPO
from tuninglab.errors import UserError
from tuninglab.fleet import inventory
from tuninglab.fleet.inventory import Host

pytestmark = pytest.mark.integration

INI = """\
[nvme]
db1 ansible_host=10.0.0.11 tuninglab_devices="['/dev/nvme1n1']" tuninglab_destroy_data=True
db2 ansible_host=10.0.0.12 ansible_port=2222

[cloud]
c1 ansible_host=203.0.113.7 tuninglab_project=true

[all:vars]
ansible_user=bench
tuninglab_workdir=/var/tmp/tl
"""

YAML = """\
all:
  vars:
    ansible_user: bench
  children:
    nvme:
      vars:
        tuninglab_destroy_data: true
      hosts:
        db1:
          ansible_host: 10.0.0.11
          tuninglab_devices: [/dev/nvme1n1, /dev/nvme2n1]
"""


def test_an_ini_inventory_gives_its_hosts_with_group_and_host_variables(tmp_path):
    path = tmp_path / "hosts.ini"
    path.write_text(INI)
    c1, db1, db2 = inventory.load(str(path))
    assert db1 == Host("db1", "bench@10.0.0.11", "/var/tmp/tl", ("/dev/nvme1n1",), False)
    assert db2.target == "bench@10.0.0.12:2222" and not db2.devices
    assert c1.project is True   # a host variable `true`, which INI gives as a string
    assert [h.name for h in inventory.load(str(path), "cloud")] == ["c1"]


def test_a_yaml_inventory_and_its_mistakes(tmp_path):
    path = tmp_path / "hosts.yml"
    path.write_text(YAML)
    [db1] = inventory.load(str(path))
    assert db1.devices == ("/dev/nvme1n1", "/dev/nvme2n1") and db1.target == "bench@10.0.0.11"
    path.write_text(YAML.replace("tuninglab_destroy_data: true", "tuninglab_destroy_data: no"))
    with pytest.raises(UserError, match="hosts.yml: host db1: tuninglab_devices names "
                                        "/dev/nvme1n1, /dev/nvme2n1: every run erases them"):
        inventory.load(str(path))
    with pytest.raises(UserError, match="no hosts"):
        inventory.load(str(path), "nosuchhost")


def test_the_guides_ini_and_yaml_inventories_name_the_same_hosts(tmp_path):
    """docs/fleet.md shows one inventory in INI and in YAML: both read as the same hosts."""
    page = (REPO / "docs" / "fleet.md").read_text()
    read = {}
    for form in ("ini", "yaml"):
        path = tmp_path / f"hosts.{form}"
        path.write_text(re.search(rf"```{form}\n(.*?)```", page, re.S)[1])
        read[form] = inventory.load(str(path))
    assert read["ini"] == read["yaml"]
    assert [(h.name, h.devices, h.project) for h in read["ini"]] == [
        ("cloud1", (), False), ("nvme1", ("/dev/nvme1n1",), False), ("nvme2", (), True)]
    assert read["ini"][0] == Host("cloud1", "bench@203.0.113.7:2222", "/var/tmp/tuninglab")
