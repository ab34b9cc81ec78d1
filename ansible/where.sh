#!/bin/sh
# Where the fleet's files live on this host, for tasks/where.yml (run as `sh -s`, so it needs
# nothing on the host). WORKDIR is the host's work directory as the controller checked it in
# the inventory's text (fleet/places.py): absolute, or under the SSH user's home (DIR or
# ~/DIR). Here it is resolved, its symlinks followed, and checked again: the controller could
# see neither the home a relative directory lands in nor where a symlink leads. It is refused
# if it is the home itself, is or lies below a refused TREE, is a refused DIR, or is in a
# database server's data directory (it or a directory above it holds ibdata1, mysql.ibd or
# aria_log_control: a server's datadir wherever it is, and the home of an SSH user `mysql`).
# Prints the resolved directory; else one line on stderr and exit 1.
#
#   where.sh WORKDIR TREE... = DIR...
#
# Ansible reads this file into a task's arguments: it must never hold Jinja's brace pairs.
set -u
workdir=$1
shift
home=$(cd && pwd -P) || { echo "no home directory to find $workdir in" >&2; exit 1; }
case $workdir in
/*) path=$workdir ;;
*) path=$home/${workdir#"~/"} ;;
esac
where=$(realpath -m -- "$path") || exit 1

refuse() {
  echo "work directory $workdir: $where here, $1; expected a directory of its own for the fleet" >&2
  exit 1
}

[ "$where" = "$home" ] && refuse "the home directory itself"
below=yes
for dir in "$@"; do
  if [ "$dir" = "=" ]; then below=no; continue; fi
  [ "$where" = "$dir" ] && refuse "a system or shared directory"
  if [ "$below" = yes ]; then
    case $where in "$dir"/*) refuse "in $dir (the system's, or a server's data)" ;; esac
  fi
done
dir=$where
while :; do
  for file in ibdata1 mysql.ibd aria_log_control; do
    [ -e "$dir/$file" ] && refuse "in a database server's data directory ($dir holds $file)"
  done
  [ "$dir" = / ] && break
  dir=$(dirname -- "$dir")
done
echo "$where"
