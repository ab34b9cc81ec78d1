#!/bin/sh
# What fleet-check.yml asks of a host: its system and hardware, as KEY=VALUE lines.
echo "kernel=$(uname -r)"
. /etc/os-release 2>/dev/null; echo "os=${PRETTY_NAME:-unknown}"
echo "cores=$(nproc)"
echo "memory_kib=$(awk '/^MemTotal:/ {print $2}' /proc/meminfo)"
echo "cpu=$(awk -F': ' '/^model name/ {print $2; exit}' /proc/cpuinfo)"
echo "virtualization=$(systemd-detect-virt 2>/dev/null || echo unknown)"
echo "disks=$(lsblk -dno NAME,SIZE,ROTA 2>/dev/null | awk '$1 !~ /^(loop|ram|zram)/ \
  {printf "%s%s %s %s", s, $1, $2, ($3 == 1 ? "rotational" : "flash"); s=", "}')"
