#!/bin/sh
# PID 1 of the lab VM: run the job on the disk with serial lab-job (if any), then power off.
# The host reads "lab-init:" lines from the serial console.
mount -t proc proc /proc
mount -t sysfs sys /sys
mount -t tmpfs tmp /tmp
mount -t tmpfs run /run
echo "lab-init: up $(cut -d' ' -f1 /proc/uptime)s kernel $(uname -r)"
job=""
for d in /sys/block/vd*; do
  [ "$(cat "$d/serial" 2>/dev/null)" = lab-job ] && job="/dev/${d##*/}"
done
if [ -n "$job" ]; then
  mkdir -p /job
  if mount "$job" /job; then
    PYTHONPATH=/job/src python3 -m tuninglab.engine.lab.guest /job
    echo "lab-init: job exit $?"
    sync
    umount /job
  else
    echo "lab-init: cannot mount the job disk $job"
  fi
fi
echo "lab-init: down $(cut -d' ' -f1 /proc/uptime)s"
echo o > /proc/sysrq-trigger
sleep 60
