#!/bin/busybox sh
# PID 1 of the lab VM's initramfs: load the virtio drivers, mount the root image, hand over.
/bin/busybox --install -s /bin
mount -t proc proc /proc
mount -t sysfs sys /sys
mount -t devtmpfs dev /dev
for m in $(cat /mods/order); do insmod "/mods/$m" || echo "lab-initrd: cannot load $m"; done
for i in $(seq 100); do [ -b /dev/vda ] && break; sleep 0.05; done
if ! mount -t ext4 /dev/vda /newroot; then
  echo "lab-initrd: cannot mount the root image"
  echo o > /proc/sysrq-trigger; sleep 60
fi
umount /proc /sys
mount --move /dev /newroot/dev
exec switch_root /newroot /usr/local/sbin/lab-init
