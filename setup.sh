#!/usr/bin/env bash
# Installs everything InnoDB Tuning Lab needs on Debian: the server, the workload tools and a
# virtualenv (.venv) with the project installed editable. Safe to run again.
set -euo pipefail
cd "$(dirname "$0")"

# chromium: the browser tests drive Debian's build through Playwright (no browser download).
# qemu-system-x86, debootstrap, cpio: the lab VM, for RAID where the kernel has no md.
# libjemalloc2, libtcmalloc-minimal4: the allocators the server can be given (LD_PRELOAD).
# openssh-server: the fleet's integration test runs throwaway sshd's on loopback (none as a service).
# percona-toolkit, mysqltuner: the advisers a test runs beside `invoke advise` on the same servers.
PACKAGES=(mariadb-server mariadb-client sysbench fio python3 python3-venv git chromium
          e2fsprogs xfsprogs btrfs-progs util-linux qemu-system-x86 debootstrap cpio
          libjemalloc2 libtcmalloc-minimal4 openssh-server percona-toolkit mysqltuner)

missing=()
for p in "${PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "setup: installing Debian packages: ${missing[*]}"
  SUDO=""
  if [ "$(id -u)" -ne 0 ]; then
    command -v sudo >/dev/null || { echo "setup: need root (or sudo) to install ${missing[*]}" >&2; exit 1; }
    SUDO="sudo"
  fi
  $SUDO apt-get update -q
  # The package must not start a system server: the lab runs its own throwaway ones.
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q --no-install-recommends "${missing[@]}"
fi

if [ ! -x .venv/bin/python ]; then
  echo "setup: creating the virtualenv .venv"
  /usr/bin/python3 -m venv .venv
fi
.venv/bin/python -m pip install -q --upgrade pip
.venv/bin/python -m pip install -q -e '.[test]'
echo "setup: done; activate with: . .venv/bin/activate"
